/** src/domain/orbit/observing.ts: topocentric RA/Dec, the sub-solar point, footprints, Julian dates and compass points, each against what it must equal. */
import { describe, expect, test } from 'bun:test'
import { compassPoint, footprintKm, julianDate, subsolarPoint, topocentricRaDec } from '../../../src/domain/orbit/observing.ts'
import { positionAt, siderealTimeRad } from '../../../src/domain/orbit/position.ts'
import { lookAngles, sunAltitudeDeg, sunPositionAu } from '../../../src/domain/orbit/sky.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'

const T = new Date(Date.UTC(2026, 4, 31, 6, 0, 0))
const RAD_TO_DEG = 180 / Math.PI

const angleDiff = (a: number, b: number) => Math.abs(((a - b + 540) % 360) - 180)

describe('topocentricRaDec', () => {
  test('seen from its own sub-satellite point a satellite is at the zenith: RA = local sidereal time, Dec = the geodetic latitude', async () => {
    const catalog = await embeddedCatalog()
    const gmst = siderealTimeRad(T)
    for (const id of [25544, 20580, 43013]) {
      const position = positionAt(catalog, catalog.indexOf(id)!, T, gmst)
      if (!position.ok) throw new Error(position.reason)
      const { eciKm, latitudeDeg, longitudeDeg } = position.state
      const observer = { latitudeDeg, longitudeDeg, altitudeM: 0 }
      expect(lookAngles(observer, eciKm, gmst).elevationDeg).toBeGreaterThan(89.999)
      const { raDeg, decDeg } = topocentricRaDec(observer, eciKm, gmst)
      expect(angleDiff(raDeg, gmst * RAD_TO_DEG + longitudeDeg)).toBeLessThan(1e-6)
      expect(Math.abs(decDeg - latitudeDeg)).toBeLessThan(1e-6)
      expect(raDeg).toBeGreaterThanOrEqual(0)
      expect(raDeg).toBeLessThan(360)
    }
  })

  test('far away the topocentric direction tends to the geocentric one (parallax ~ Earth radius / distance)', () => {
    const gmst = siderealTimeRad(T)
    const far = { x: 3e6, y: 4e6, z: 2e6 }
    const { raDeg, decDeg } = topocentricRaDec({ latitudeDeg: 45, longitudeDeg: 10, altitudeM: 0 }, far, gmst)
    const r = Math.hypot(far.x, far.y, far.z)
    expect(angleDiff(raDeg, Math.atan2(far.y, far.x) * RAD_TO_DEG)).toBeLessThan(0.1)
    expect(Math.abs(decDeg - Math.asin(far.z / r) * RAD_TO_DEG)).toBeLessThan(0.1)
  })
})

describe('subsolarPoint', () => {
  test('the Sun is at the zenith there (within the 0.19° between geocentric and geodetic latitude)', () => {
    for (const ms of [T.getTime(), Date.UTC(2026, 11, 21, 12), Date.UTC(2026, 2, 20, 18, 30)]) {
      const instant = new Date(ms)
      const gmst = siderealTimeRad(instant)
      const { latitudeDeg, longitudeDeg } = subsolarPoint(instant, gmst)
      expect(longitudeDeg).toBeGreaterThanOrEqual(0)
      expect(longitudeDeg).toBeLessThan(360)
      const observer = { latitudeDeg, longitudeDeg: longitudeDeg > 180 ? longitudeDeg - 360 : longitudeDeg, altitudeM: 0 }
      expect(sunAltitudeDeg(observer, sunPositionAu(instant), gmst)).toBeGreaterThan(89.8)
    }
  })

  test('wheretheiss.at documents 2013-03-23T20:11:16Z as solar_lat 1.3327, solar_lon 238.7861: within the Sun series accuracy', () => {
    const instant = new Date(1364069476 * 1000)
    const { latitudeDeg, longitudeDeg } = subsolarPoint(instant, siderealTimeRad(instant))
    expect(Math.abs(latitudeDeg - 1.3327003598631)).toBeLessThan(0.02)
    expect(angleDiff(longitudeDeg, 238.78610691196)).toBeLessThan(0.05)
  })
})

describe('footprintKm, julianDate, compassPoint', () => {
  test('footprint: 2·R·arccos(R/(R+h)); 0 at the ground; the ISS about 4,490 km, GEO about 18,100 km', () => {
    expect(footprintKm(0)).toBe(0)
    expect(footprintKm(-5)).toBe(0)
    expect(footprintKm(408)).toBeCloseTo(2 * 6378.137 * Math.acos(6378.137 / 6786.137), 9)
    expect(footprintKm(416)).toBeGreaterThan(4400)
    expect(footprintKm(416)).toBeLessThan(4600)
    expect(footprintKm(35786)).toBeGreaterThan(18000)
    expect(footprintKm(35786)).toBeLessThan(18200)
  })

  test('Julian date: 1970-01-01T00:00Z is 2440587.5; wheretheiss.at documents 1364069476 as 2456375.3411574', () => {
    expect(julianDate(0)).toBe(2440587.5)
    expect(julianDate(1364069476 * 1000)).toBeCloseTo(2456375.3411574, 7)
  })

  test('compass: 16 points of 22.5°, N centred on 0', () => {
    expect(compassPoint(0)).toBe('N')
    expect(compassPoint(11.24)).toBe('N')
    expect(compassPoint(11.26)).toBe('NNE')
    expect(compassPoint(90)).toBe('E')
    expect(compassPoint(112.5)).toBe('ESE')
    expect(compassPoint(225)).toBe('SW')
    expect(compassPoint(348.76)).toBe('N')
    expect(compassPoint(359.99)).toBe('N')
    expect(compassPoint(337.5)).toBe('NNW')
    const all = new Set(Array.from({ length: 3600 }, (_, i) => compassPoint(i / 10)))
    expect(all.size).toBe(16)
  })
})
