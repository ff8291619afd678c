/** The nearby engine against the plain loop (SGP4 for every satellite) over the real catalogue. */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../src/catalog/catalog.ts'
import { findNearby, type NearbyQuery, type NearbyResult } from '../../src/orbit/nearby.ts'
import { NearbyEngine, TABLE_STEP_MS } from '../../src/orbit/nearby-engine.ts'
import { emptyTable, fillTable, hermiteWeights, interpolateState } from '../../src/orbit/position-table.ts'
import { positionAt, siderealTimeRad } from '../../src/orbit/position.ts'
import { embeddedCatalog } from '../helpers/catalog.ts'

let catalog: Catalog
beforeAll(async () => {
  catalog = await embeddedCatalog()
})

/** A reproducible pseudo-random sequence (mulberry32). */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Same satellites (but those within 1e-6° of the threshold), elevation within 0.001°, range within 10 m, speed within 0.02 %. */
function expectSameAnswer(plain: NearbyResult, fast: NearbyResult, query: NearbyQuery) {
  const fastById = new Map(fast.entries.map((e) => [e.satellite.noradId, e]))
  const plainIds = new Set(plain.entries.map((e) => e.satellite.noradId))
  for (const p of plain.entries) {
    const f = fastById.get(p.satellite.noradId)
    if (!f) {
      expect(p.look.elevationDeg - query.minElevationDeg).toBeLessThan(1e-6)
      continue
    }
    expect(Math.abs(f.look.elevationDeg - p.look.elevationDeg)).toBeLessThan(0.001)
    expect(Math.abs(f.look.rangeKm - p.look.rangeKm)).toBeLessThan(0.01)
    expect(Math.abs(f.look.azimuthDeg - p.look.azimuthDeg) % 360).toBeLessThan(0.01)
    expect(Math.abs(f.state.altitudeKm - p.state.altitudeKm)).toBeLessThan(0.01)
    expect(Math.abs(f.state.speedKmH - p.state.speedKmH) / p.state.speedKmH).toBeLessThan(0.0002)
    expect(f.sunlit).toBe(p.sunlit)
    expect(f.visible).toBe(p.visible)
  }
  for (const f of fast.entries) {
    if (!plainIds.has(f.satellite.noradId)) expect(query.minElevationDeg - f.look.elevationDeg).toBeLessThan(1e-6)
  }
  expect(fast.sky).toEqual(plain.sky)
}

describe('NearbyEngine', () => {
  test('equals the plain loop for 60 random observers and instants, near the epoch and months away', () => {
    const next = random(42)
    const engine = new NearbyEngine({ defer: () => {} })
    let compared = 0
    for (let k = 0; k < 60; k++) {
      // Half within a day of the snapshot, half up to 14 months later (stale elements, decays, nonsense).
      const base = Date.UTC(2026, 4, 30, 22, 50)
      const spanMs = k % 2 === 0 ? 86_400_000 : 420 * 86_400_000
      const query: NearbyQuery = {
        observer: { latitudeDeg: next() * 180 - 90, longitudeDeg: next() * 360 - 180, altitudeM: next() * 3000 },
        instant: new Date(base + Math.floor(next() * spanMs)),
        minElevationDeg: 10 + next() * 30,
        azimuthFromDeg: 0,
        azimuthToDeg: 360,
        visibleOnly: false,
      }
      const plain = findNearby(catalog, query)
      expectSameAnswer(plain, engine.find(catalog, query), query)
      compared += plain.entries.length
    }
    expect(compared).toBeGreaterThan(5_000)
  })

  test('filters (azimuth window, visible-only) like the plain loop', () => {
    const engine = new NearbyEngine({ defer: () => {} })
    const query: NearbyQuery = {
      observer: { latitudeDeg: 48.85, longitudeDeg: 2.35, altitudeM: 35 },
      instant: new Date(Date.UTC(2026, 4, 31, 0, 12, 34, 567)),
      minElevationDeg: 10,
      azimuthFromDeg: 300,
      azimuthToDeg: 60,
      visibleOnly: true,
    }
    const plain = findNearby(catalog, query)
    expect(plain.entries.length).toBeGreaterThan(5)
    expectSameAnswer(plain, engine.find(catalog, query), query)
  })

  test('at a grid instant the answer is SGP4 itself, to the last bit', () => {
    const engine = new NearbyEngine({ defer: () => {} })
    const query: NearbyQuery = {
      observer: { latitudeDeg: -33.87, longitudeDeg: 151.21, altitudeM: 0 },
      instant: new Date(Date.UTC(2026, 4, 31, 10, 0, 0)),
      minElevationDeg: 10,
      azimuthFromDeg: 0,
      azimuthToDeg: 360,
      visibleOnly: false,
    }
    const plain = findNearby(catalog, query)
    const fast = engine.find(catalog, query)
    expect(fast.entries.map((e) => e.satellite.noradId)).toEqual(plain.entries.map((e) => e.satellite.noradId))
    for (let i = 0; i < plain.entries.length; i++) {
      expect(fast.entries[i]!.state.eciKm).toEqual(plain.entries[i]!.state.eciKm)
      expect(fast.entries[i]!.look.elevationDeg).toBeCloseTo(plain.entries[i]!.look.elevationDeg, 9)
    }
  })

  test('prefetch fills a table in slices through the deferral it was given', () => {
    const pending: (() => void)[] = []
    const engine = new NearbyEngine({ defer: (fn) => pending.push(fn) })
    const grid = NearbyEngine.gridBefore(Date.UTC(2026, 4, 31, 1))
    engine.prefetch(catalog, grid)
    let slices = 0
    while (pending.length > 0) {
      pending.shift()!()
      slices++
    }
    expect(slices).toBeGreaterThan(catalog.size / 1000)
    const table = engine.table(catalog, grid)
    expect(table.filled).toBe(catalog.size)
  })
})

describe('position tables', () => {
  test('Hermite interpolation is exact at both ends and within a metre in between', () => {
    const t0 = Date.UTC(2026, 4, 31, 3, 0, 0)
    const a = emptyTable(catalog, t0)
    const b = emptyTable(catalog, t0 + TABLE_STEP_MS)
    fillTable(catalog, a, 300)
    fillTable(catalog, b, 300)
    const out = new Float64Array(6)
    const mid = new Date(t0 + 3700)
    const gmst = siderealTimeRad(mid)
    for (let i = 0; i < 300; i++) {
      interpolateState(a, b, i, hermiteWeights(0, TABLE_STEP_MS / 1000), out)
      expect(out[0]).toBe(a.positionKm[3 * i]!)
      interpolateState(a, b, i, hermiteWeights(1, TABLE_STEP_MS / 1000), out)
      expect(out[1]).toBeCloseTo(b.positionKm[3 * i + 1]!, 9)
      interpolateState(a, b, i, hermiteWeights(0.37, TABLE_STEP_MS / 1000), out)
      const exact = positionAt(catalog.satrecAt(i), catalog.satellites[i]!.elements, mid, gmst)
      if (!exact.ok) continue
      const p = exact.state.eciKm
      expect(Math.hypot(out[0]! - p.x, out[1]! - p.y, out[2]! - p.z)).toBeLessThan(0.001)
    }
  })
})
