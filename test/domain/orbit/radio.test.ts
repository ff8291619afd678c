/** Range rate and Doppler shift (src/domain/orbit/radio.ts) against the change of the range over time, for real orbits. */
import { beforeAll, describe, expect, test } from 'bun:test'
import { geodeticToEcf } from 'satellite.js'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { positionAt, siderealTimeRad } from '../../../src/domain/orbit/position.ts'
import { dopplerShiftHz, rangeRateKmS, SPEED_OF_LIGHT_KM_S } from '../../../src/domain/orbit/radio.ts'
import { lookAngles, toGeodeticRad } from '../../../src/domain/orbit/sky.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'
import { random } from '../../helpers/nearby.ts'

let catalog: Catalog
beforeAll(async () => {
  catalog = await embeddedCatalog()
})

const rangeAt = (index: number, observer: { latitudeDeg: number; longitudeDeg: number; altitudeM: number }, ms: number): number | null => {
  const instant = new Date(ms)
  const gmst = siderealTimeRad(instant)
  const position = positionAt(catalog, index, instant, gmst)
  return position.ok ? lookAngles(observer, position.state.eciKm, gmst).rangeKm : null
}

describe('rangeRateKmS', () => {
  test('is the rate of change of the range (five-point differences over ±2 s), for 400 random satellites and observers', () => {
    const next = random(7)
    let checked = 0
    let worst = 0
    for (let k = 0; k < 400; k++) {
      const index = Math.floor(next() * catalog.size)
      const observer = { latitudeDeg: next() * 180 - 90, longitudeDeg: next() * 360 - 180, altitudeM: next() * 3000 }
      const ms = Date.UTC(2026, 4, 31) + Math.floor(next() * 86_400_000)
      const instant = new Date(ms)
      const gmst = siderealTimeRad(instant)
      const position = positionAt(catalog, index, instant, gmst)
      const ranges = [-2000, -1000, 1000, 2000].map((dt) => rangeAt(index, observer, ms + dt))
      if (!position.ok || ranges.includes(null)) continue
      const [r2, r1, f1, f2] = ranges as number[]
      const derivative = (r2! - 8 * r1! + 8 * f1! - f2!) / (12 * 1)
      const rate = rangeRateKmS(geodeticToEcf(toGeodeticRad(observer)), position.state.eciKm, position.state.velocityKmS, gmst)
      // Within 30 cm/s (range rates are km/s): SGP4's velocity is its own series, not the derivative of its
      // positions, and the two differ by up to ~10 cm/s (Skyfield, which uses the same velocity, agrees to
      // 0.1 mm/s: test/astronomy/radio-crosscheck.test.ts); the ranges jitter by ~1 mm, the five-point
      // formula's own error over 1 s steps is below that.
      expect(Math.abs(rate - derivative)).toBeLessThan(3e-4)
      worst = Math.max(worst, Math.abs(rate - derivative))
      checked++
    }
    expect(checked).toBeGreaterThan(300)
    console.log(`range rate vs the range's derivative: ${checked} cases, within ${(worst * 1e5).toFixed(1)} cm/s`)
  })

  test('a geostationary satellite barely moves', () => {
    const observer = { latitudeDeg: 48.85, longitudeDeg: 2.35, altitudeM: 0 }
    const geo = catalog.indexOf(29055)! // ASTRA 1KR
    const ms = Date.UTC(2026, 4, 31, 3)
    const instant = new Date(ms)
    const gmst = siderealTimeRad(instant)
    const state = positionAt(catalog, geo, instant, gmst)
    if (!state.ok) throw new Error('no position')
    expect(Math.abs(rangeRateKmS(geodeticToEcf(toGeodeticRad(observer)), state.state.eciKm, state.state.velocityKmS, gmst))).toBeLessThan(0.01)
  })
})

describe('dopplerShiftHz', () => {
  test('−f·ṙ/c: up while approaching, down while receding, proportional to the frequency', () => {
    expect(dopplerShiftHz(437.8e6, -7)).toBeCloseTo((437.8e6 * 7) / SPEED_OF_LIGHT_KM_S, 6)
    expect(dopplerShiftHz(437.8e6, 7)).toBeCloseTo((-437.8e6 * 7) / SPEED_OF_LIGHT_KM_S, 6)
    // About 10 kHz at 437.8 MHz for the ISS's 7 km/s: what radio amateurs tune for.
    expect(Math.round(dopplerShiftHz(437.8e6, -7))).toBe(10222)
    expect(dopplerShiftHz(145.8e6, 0)).toBe(-0)
    expect(dopplerShiftHz(2 * 145.8e6, 3)).toBeCloseTo(2 * dopplerShiftHz(145.8e6, 3), 9)
  })
})
