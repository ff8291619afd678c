/**
 * The day windows behind /nearby at one-off instants: they keep every
 * near-earth satellite reach.ts's bound keeps (at any instant of the day, for
 * any observer and threshold), every deep-space satellite the plain loop
 * lists, and not many more; and their numerics (atan2, Kepler's equation).
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { geodeticToEcf } from 'satellite.js'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { ATAN2_ERROR_RAD, eccentricAnomaly, fastAtan2, type WindowObserver, windowCandidates } from '../../../src/domain/nearby/day-windows.ts'
import { type MeanArc, meanArc, reachable } from '../../../src/domain/nearby/reach.ts'
import { minutesSinceEpoch } from '../../../src/domain/orbit/resonance.ts'
import { findNearby } from '../../../src/domain/nearby/reference.ts'
import { siderealTimeRad } from '../../../src/domain/orbit/position.ts'
import { NO_AGE_LIMIT } from '../../../src/domain/orbit/validity.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'
import { nearbyQuery, random } from '../../helpers/nearby.ts'

const DEG = Math.PI / 180
const SNAPSHOT = Date.UTC(2026, 4, 30, 22, 50)
const DAY_MS = 86_400_000

let catalog: Catalog
beforeAll(async () => {
  catalog = (await embeddedCatalog()).withPolicy(NO_AGE_LIMIT)
})

/** The observer as the engine gives it to the windows (and its reach.ts form), for a threshold. */
function observerAt(latitudeDeg: number, longitudeDeg: number, altitudeM: number, instant: Date, minElevationDeg: number): WindowObserver {
  const gmst = siderealTimeRad(instant)
  const [c, s] = [Math.cos(gmst), Math.sin(gmst)]
  const o = geodeticToEcf({ latitude: latitudeDeg * DEG, longitude: longitudeDeg * DEG, height: altitudeM / 1000 })
  const radiusKm = Math.hypot(o.x, o.y, o.z)
  const tilt = Math.abs(latitudeDeg - Math.asin(o.z / radiusKm) / DEG)
  const [ux, uy, uz] = [Math.cos(latitudeDeg * DEG) * Math.cos(longitudeDeg * DEG), Math.cos(latitudeDeg * DEG) * Math.sin(longitudeDeg * DEG), Math.sin(latitudeDeg * DEG)]
  return {
    x: (o.x * c - o.y * s) / radiusKm,
    y: (o.x * s + o.y * c) / radiusKm,
    z: o.z / radiusKm,
    radiusKm,
    minElevation: (minElevationDeg - tilt - 0.05) * DEG,
    ux: ux * c - uy * s,
    uy: ux * s + uy * c,
    uz,
    minElevationDeg,
  }
}

describe('windowCandidates', () => {
  test('keeps every near-earth satellite the mean-element bound keeps, at random instants of 40 days, observers and thresholds', () => {
    const next = random(31)
    const arc: MeanArc = { node: 0, cosInclination: 0, sinInclination: 0, u: 0, arc: 0, tilt: 0, maxRadiusKm: 0 }
    let kept = 0
    let bounded = 0
    for (let k = 0; k < 150; k++) {
      const instant = new Date(SNAPSHOT + Math.floor((next() * 2 - 1) * 20 * DAY_MS))
      const latitudeDeg = k % 10 === 0 ? [90, -90, 0, 89.99, -0.01][k % 5]! : Math.asin(2 * next() - 1) / DEG
      const observer = observerAt(latitudeDeg, next() * 360 - 180, k % 4 === 0 ? 100_000 : next() * 3000 - 1000, instant, 10 + (k % 3) * next() * 40)
      const candidates = new Set(windowCandidates(catalog, instant.getTime(), observer))
      const bound = reachable(catalog, instant.getTime(), observer).filter((i) => catalog.satrecAt(i).method === 'n')
      for (const i of bound) {
        // The bound also keeps records whose largest radius is below the observer's (drag extrapolated to
        // weeks before the epoch): nothing there is above any horizon, and the windows leave them out.
        const satrec = catalog.satrecAt(i)
        if (meanArc(satrec, minutesSinceEpoch(satrec, instant.getTime()), arc) && arc.maxRadiusKm <= observer.radiusKm) continue
        if (!candidates.has(i)) throw new Error(`k ${k} obs ${JSON.stringify(observer)} t ${instant.toISOString()} missing ${i} ${catalog.satellites[i]!.name}`)
      }
      kept += [...candidates].filter((i) => catalog.satrecAt(i).method === 'n').length
      bounded += bound.length
    }
    // And not many more: the day's drift of the plane and the radius' bins cost a little.
    console.log(`near-earth: ${kept} kept, ${bounded} by the bound`)
    expect(kept).toBeLessThan(bounded * 1.5)
  })

  test('keeps every deep-space satellite the plain loop lists, and few others', () => {
    const next = random(37)
    let listedDeep = 0
    let keptDeep = 0
    for (let k = 0; k < 40; k++) {
      const instant = new Date(SNAPSHOT + Math.floor((next() * 2 - 1) * 20 * DAY_MS))
      const [latitudeDeg, longitudeDeg, altitudeM, minElevationDeg] = [Math.asin(2 * next() - 1) / DEG, next() * 360 - 180, next() * 2000, 10 + (k % 2) * 60 * next()]
      const candidates = new Set(windowCandidates(catalog, instant.getTime(), observerAt(latitudeDeg, longitudeDeg, altitudeM, instant, minElevationDeg)))
      const plain = findNearby(catalog, nearbyQuery({ latitudeDeg, longitudeDeg, altitudeM }, instant, { minElevationDeg }))
      for (const entry of plain.entries) {
        const i = catalog.indexOf(entry.satellite.noradId)!
        if (catalog.satrecAt(i).method !== 'd') continue
        expect(candidates.has(i)).toBe(true)
        listedDeep++
      }
      keptDeep += [...candidates].filter((i) => catalog.satrecAt(i).method === 'd').length
    }
    expect(listedDeep).toBeGreaterThan(2000)
    console.log(`deep space: ${keptDeep} kept, ${listedDeep} listed`)
    expect(keptDeep).toBeLessThan(listedDeep * 1.3)
  })
})

describe('numerics', () => {
  test('fastAtan2 is within ATAN2_ERROR_RAD of Math.atan2 everywhere', () => {
    const next = random(41)
    let worst = 0
    for (let k = 0; k < 200_000; k++) {
      const angle = next() * 2 * Math.PI
      const r = 10 ** (next() * 12 - 6)
      const [y, x] = [r * Math.sin(angle), r * Math.cos(angle)]
      let d = Math.abs(fastAtan2(y, x) - Math.atan2(y, x))
      if (d > Math.PI) d = 2 * Math.PI - d // ±π
      worst = Math.max(worst, d)
    }
    for (const [y, x] of [[0, 1], [1, 0], [0, -1], [-1, 0], [1, 1], [-1, -1], [1, -1], [0, 0]] as const) worst = Math.max(worst, Math.abs(fastAtan2(y, x) - Math.atan2(y, x)) % (2 * Math.PI))
    expect(worst).toBeLessThan(ATAN2_ERROR_RAD / 2)
  })

  test("eccentricAnomaly solves Kepler's equation for any mean anomaly and eccentricities up to 0.98", () => {
    const next = random(43)
    for (let k = 0; k < 100_000; k++) {
      const e = k % 10 === 0 ? 0.98 * next() ** 0.1 : next() * 0.98
      const m = (next() * 2 - 1) * 1000
      const E = eccentricAnomaly(m, e)
      let residual = (E - e * Math.sin(E) - m) % (2 * Math.PI)
      if (residual > Math.PI) residual -= 2 * Math.PI
      if (residual < -Math.PI) residual += 2 * Math.PI
      expect(Math.abs(residual)).toBeLessThan(1e-9)
    }
  })
})
