/** The nearby engine against the plain loop (SGP4 for every satellite) over the real catalogue. */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { findNearby } from '../../../src/domain/nearby/reference.ts'
import type { NearbyQuery, NearbyResult } from '../../../src/domain/nearby/selection.ts'
import { NearbyEngine, TABLE_STEP_MS } from '../../../src/domain/nearby/engine.ts'
import { heldDayWindows } from '../../../src/domain/nearby/day-windows.ts'
import { emptyTable, fillTable, hermiteWeights, interpolateState } from '../../../src/domain/nearby/position-table.ts'
import { positionAt, siderealTimeRad } from '../../../src/domain/orbit/position.ts'
import { NO_AGE_LIMIT } from '../../../src/domain/orbit/validity.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'
import { edgeQueries, extremeQueries, nearbyQuery, random } from '../../helpers/nearby.ts'

let catalog: Catalog
beforeAll(async () => {
  // Months from the epochs too: no age limit, so the engine meets decayed and implausible elements as well.
  catalog = (await embeddedCatalog()).withPolicy(NO_AGE_LIMIT)
})

/** An engine that always answers from its tables (none of the answers without tables), deferring nothing. */
const tablesEngine = () => new NearbyEngine({ defer: () => {}, oneOffsWithoutTables: false })

/** Same satellites (but those within 1e-6° of the threshold), elevation within 0.001°, range within 10 m, speed within 0.05 km/h, range rate within 0.5 m/s. */
function expectSameAnswer(plain: NearbyResult, fast: NearbyResult, query: NearbyQuery) {
  const fastById = new Map(fast.entries.map((e) => [e.satellite.noradId, e]))
  const plainIds = new Set(plain.entries.map((e) => e.satellite.noradId))
  for (const p of plain.entries) {
    const f = fastById.get(p.satellite.noradId)
    if (!f) {
      expect(p.elevationDeg - query.minElevationDeg).toBeLessThan(1e-6)
      continue
    }
    expect(Math.abs(f.elevationDeg - p.elevationDeg)).toBeLessThan(0.001)
    expect(Math.abs(f.rangeKm - p.rangeKm)).toBeLessThan(0.01)
    expect(Math.abs(f.azimuthDeg - p.azimuthDeg) % 360).toBeLessThan(0.01)
    expect(Math.abs(f.altitudeKm - p.altitudeKm)).toBeLessThan(0.01)
    if (query.geoposition) {
      expect(Math.abs(f.latitudeDeg! - p.latitudeDeg!)).toBeLessThan(1e-4)
      expect(Math.abs(f.longitudeDeg! - p.longitudeDeg!) % 360).toBeLessThan(1e-4)
    } else expect([f.latitudeDeg, f.longitudeDeg]).toEqual([undefined, undefined])
    expect(Math.abs(f.speedKmH - p.speedKmH)).toBeLessThan(0.05)
    // The range rate from the velocity blended between tables: within 0.5 m/s (0.7 Hz at 437 MHz).
    expect(Math.abs(f.rangeRateKmS - p.rangeRateKmS)).toBeLessThan(0.0005)
    expect(f.sunlit).toBe(p.sunlit)
    if (p.magnitude === null) expect(f.magnitude).toBeNull()
    // To 0.01 both: an interpolated state can round the other way.
    else expect(Math.abs(f.magnitude! - p.magnitude)).toBeLessThanOrEqual(0.0100001)
    expect(f.visible).toBe(p.visible)
  }
  for (const f of fast.entries) {
    if (!plainIds.has(f.satellite.noradId)) expect(query.minElevationDeg - f.elevationDeg).toBeLessThan(1e-6)
  }
  expect(fast.sky).toEqual(plain.sky)
}

describe('NearbyEngine', () => {
  test('equals the plain loop for 60 random observers and instants, near the epoch and months away', () => {
    const next = random(42)
    const engine = tablesEngine()
    let compared = 0
    for (let k = 0; k < 60; k++) {
      // Half within a day of the snapshot, half up to 14 months later (stale elements, decays, nonsense).
      const base = Date.UTC(2026, 4, 30, 22, 50)
      const spanMs = k % 2 === 0 ? 86_400_000 : 420 * 86_400_000
      // Arguments are evaluated in order, so the sequence of random numbers is as before.
      const query = nearbyQuery(
        { latitudeDeg: next() * 180 - 90, longitudeDeg: next() * 360 - 180, altitudeM: next() * 3000 },
        new Date(base + Math.floor(next() * spanMs)),
        { minElevationDeg: 10 + next() * 30, geoposition: k % 3 === 0 },
      )
      const plain = findNearby(catalog, query)
      expectSameAnswer(plain, engine.find(catalog, query), query)
      compared += plain.entries.length
    }
    expect(compared).toBeGreaterThan(5_000)
  })

  test('equals the plain loop at one-off instants: 120 random observers at random milliseconds within 20 days of the elements, no tables', () => {
    // The default engine: an instant whose interval has no tables is answered from the day windows
    // (day-windows.ts) and SGP4 for the satellites they keep. Every query here asks for an interval of its own.
    const engine = new NearbyEngine({ defer: () => {} })
    const next = random(2026)
    const epoch = Date.UTC(2026, 4, 30, 22, 50)
    let compared = 0
    for (let k = 0; k < 120; k++) {
      const query = nearbyQuery(
        { latitudeDeg: Math.asin(2 * next() - 1) * (180 / Math.PI), longitudeDeg: next() * 360 - 180, altitudeM: next() * 3000 },
        new Date(epoch + Math.floor((2 * next() - 1) * 20 * 86_400_000)),
        { minElevationDeg: 10 + (k % 4 === 0 ? next() * 60 : 0), geoposition: k % 3 === 0, visibleOnly: k % 11 === 0 },
      )
      const plain = findNearby(catalog, query)
      const fast = engine.find(catalog, query)
      expectSameAnswer(plain, fast, query)
      // Each satellite propagated by SGP4 itself: the same satellites, every number the same to the last bit
      // (the plain loop gives every latitude and longitude; the engine those the query asks for).
      const asked = query.geoposition ? plain : { ...plain, entries: plain.entries.map((e) => ({ ...e, latitudeDeg: undefined, longitudeDeg: undefined })) }
      expect(fast).toEqual(asked)
      compared += plain.entries.length
    }
    expect(compared).toBeGreaterThan(20_000)
  })

  test('filters (azimuth window, visible-only) like the plain loop', () => {
    const engine = tablesEngine()
    const query = nearbyQuery({ latitudeDeg: 48.85, longitudeDeg: 2.35, altitudeM: 35 }, new Date(Date.UTC(2026, 4, 31, 0, 12, 34, 567)), {
      azimuthFromDeg: 300,
      azimuthToDeg: 60,
      visibleOnly: true,
      // Fainter than the default, so that enough are listed (and the limit is applied the same way).
      magnitudeLimit: 7.5,
    })
    const plain = findNearby(catalog, query)
    expect(plain.entries.length).toBeGreaterThan(5)
    expectSameAnswer(plain, engine.find(catalog, query), query)
  })

  test('the declination prefilter loses no one: poles, equator, the highest and lowest observers, low and steep thresholds', () => {
    const engine = tablesEngine()
    const instant = new Date(Date.UTC(2026, 4, 31, 5, 17, 3, 250))
    let compared = 0
    for (const query of extremeQueries([-90, -64.2, -0.3, 0, 23.44, 53.1, 89.99, 90], 17.5, instant)) {
      const plain = findNearby(catalog, query)
      const fast = engine.find(catalog, query)
      expectSameAnswer(plain, fast, query)
      expect(fast.entries.length).toBe(plain.entries.length)
      compared += plain.entries.length
    }
    expect(compared).toBeGreaterThan(1_000)
  })

  test('the prefilter keeps a satellite due north or south of the observer just above the threshold, at every height', () => {
    // The edge of the declination band: the observer on the satellite's meridian, as far away as the threshold allows.
    const engine = tablesEngine()
    const { bands, cases } = edgeQueries(catalog, new Date(Date.UTC(2026, 4, 31, 7, 3, 41, 600)), 1e-4)
    for (const { query, noradId } of cases) expect(engine.find(catalog, query).entries.map((e) => e.satellite.noradId)).toContain(noradId)
    expect(bands).toBeGreaterThan(12)
    expect(cases.length).toBeGreaterThan(100)
  })

  test('the prefilter keeps a satellite due east or west of the observer, or at a diagonal, just above the threshold, at every height', () => {
    // The edge of the cells' reach in right ascension (and in declination and right ascension at once).
    const engine = tablesEngine()
    for (const instant of [new Date(Date.UTC(2026, 4, 31, 7, 3, 41, 600)), new Date(Date.UTC(2026, 4, 30, 19, 44, 5, 5))]) {
      const { bands, cases } = edgeQueries(catalog, instant, 1e-4, [45, 90, 135, 225, 270, 315])
      for (const { query, noradId } of cases) expect(engine.find(catalog, query).entries.map((e) => e.satellite.noradId)).toContain(noradId)
      expect(bands).toBeGreaterThan(12)
      expect(cases.length).toBeGreaterThan(300)
    }
  })

  test('a threshold or azimuth bound a hair from a satellite decides as SGP4 does, not as interpolation would', () => {
    const engine = tablesEngine()
    const base = nearbyQuery({ latitudeDeg: 44.06, longitudeDeg: -96.695, altitudeM: 300 }, new Date(Date.UTC(2026, 4, 31, 13, 28, 26, 711)))
    const plain = findNearby(catalog, base).entries
    expect(plain.length).toBeGreaterThan(100)
    const ids = (q: NearbyQuery) => engine.find(catalog, q).entries.map((e) => e.satellite.noradId)
    // Every 7th satellite of the answer: the threshold just below and just above its exact elevation, then the same for azimuth.
    for (let k = 0; k < plain.length; k += 7) {
      const { satellite, elevationDeg, azimuthDeg } = plain[k]!
      if (elevationDeg - 1e-5 >= 10 && elevationDeg + 1e-5 <= 90) {
        expect(ids({ ...base, minElevationDeg: elevationDeg - 1e-5 })).toContain(satellite.noradId)
        expect(ids({ ...base, minElevationDeg: elevationDeg + 1e-5 })).not.toContain(satellite.noradId)
      }
      if (elevationDeg < 89 && azimuthDeg > 1e-4 && azimuthDeg < 360 - 1e-4) {
        expect(ids({ ...base, azimuthFromDeg: azimuthDeg - 1e-5, azimuthToDeg: azimuthDeg + 1e-5 })).toContain(satellite.noradId)
        expect(ids({ ...base, azimuthFromDeg: azimuthDeg + 1e-5, azimuthToDeg: Math.min(360, azimuthDeg + 5) })).not.toContain(satellite.noradId)
      }
    }
  })

  test('long-decayed elements give no position at any instant after the decay, in the plain loop and the engine alike', () => {
    // STARLINK-2093: on these elements SGP4 alone flickers in and out of a position within seconds (none at
    // 08:41:20 and 08:41:30, one at 08:41:22 on 22 November 2026); the decay rule refuses every instant after it.
    const index = catalog.indexOf(47374)!
    const at = (iso: string) => positionAt(catalog, index, new Date(iso), siderealTimeRad(new Date(iso)))
    const answers = ['2026-11-22T08:41:20Z', '2026-11-22T08:41:22Z', '2026-11-22T08:41:30Z'].map(at)
    for (const answer of answers) {
      expect(answer.ok).toBe(false)
      if (!answer.ok) expect(answer.reason).toMatch(/^decayed at 2026-\d\d-\d\dT[\d:.]+Z \(.*\); no later positions$/)
    }
    const query = nearbyQuery({ latitudeDeg: 12.19, longitudeDeg: -81.8, altitudeM: 0 }, new Date('2026-11-22T08:41:22Z'))
    const plain = findNearby(catalog, query)
    expect(plain.entries.map((e) => e.satellite.noradId)).not.toContain(47374)
    expectSameAnswer(plain, tablesEngine().find(catalog, query), query)
  })

  test('a one-off instant is answered without tables, as the plain loop answers it; asked again, by the tables', () => {
    const engine = new NearbyEngine({ defer: () => {} })
    const query = nearbyQuery({ latitudeDeg: 35.7, longitudeDeg: 139.7, altitudeM: 40 }, new Date(Date.UTC(2026, 7, 14, 3, 2, 1, 500)), { geoposition: true })
    const plain = findNearby(catalog, query)
    // The plain loop's own answer, to the last bit (interpolated speeds would differ in the last digits).
    expect(engine.find(catalog, query)).toEqual(plain)
    const again = engine.find(catalog, query)
    expect(again).not.toEqual(plain)
    expectSameAnswer(plain, again, query)
  })

  test('at a grid instant the answer is SGP4 itself, to the last bit', () => {
    const engine = tablesEngine()
    const query = nearbyQuery({ latitudeDeg: -33.87, longitudeDeg: 151.21, altitudeM: 0 }, new Date(Date.UTC(2026, 4, 31, 10, 0, 0)), { geoposition: true })
    const plain = findNearby(catalog, query)
    const fast = engine.find(catalog, query)
    expect(fast.entries.map((e) => e.satellite.noradId)).toEqual(plain.entries.map((e) => e.satellite.noradId))
    for (let i = 0; i < plain.entries.length; i++) {
      const [f, p] = [fast.entries[i]!, plain.entries[i]!]
      // The same SGP4 state through the same geodetic conversion: the same bits.
      expect([f.latitudeDeg, f.longitudeDeg, f.altitudeKm, f.speedKmH]).toEqual([p.latitudeDeg, p.longitudeDeg, p.altitudeKm, p.speedKmH])
      expect(f.elevationDeg).toBeCloseTo(p.elevationDeg, 9)
    }
  })

  test('prefetch fills a table in pieces through the deferral it was given, each piece until its time is up', () => {
    const pending: ((timeUp: () => boolean) => void)[] = []
    const engine = new NearbyEngine({ defer: (piece) => pending.push(piece) })
    const grid = NearbyEngine.gridBefore(Date.UTC(2026, 4, 31, 1))
    engine.prefetch(catalog, grid)
    let pieces = 0
    while (pending.length > 0) {
      // Time is up at the fourth question of each piece: a piece fills 64 satellites at most.
      let asked = 0
      pending.shift()!(() => ++asked === 4)
      pieces++
    }
    expect(pieces).toBeGreaterThanOrEqual(catalog.size / 64)
    // Asked again and again meanwhile (every request at "now" asks), one chain fills it.
    const again = NearbyEngine.gridBefore(Date.UTC(2026, 4, 31, 2))
    for (let k = 0; k < 50; k++) engine.prefetch(catalog, again)
    expect(pending.length).toBe(1)
    const table = engine.table(catalog, grid)
    expect(table.filled).toBe(catalog.size)
  })
})

describe('sweep', () => {
  test('lets go of the tables, intervals and day windows not used since the previous sweep; answers stay the same', () => {
    const engine = new NearbyEngine({ defer: () => {} })
    const instant = new Date(Date.UTC(2026, 4, 31, 1, 0, 3, 456))
    const query = nearbyQuery({ latitudeDeg: 48.85, longitudeDeg: 2.35, altitudeM: 0 }, instant)
    const grid = NearbyEngine.gridBefore(instant.getTime())
    const earlier = engine.table(catalog, grid - 60_000)
    engine.find(catalog, query) // the interval's first request: answered without tables (they are made for the next)
    const before = engine.find(catalog, query)
    const a = engine.table(catalog, grid)
    // A one-off instant days away: answered from its day window.
    engine.find(catalog, nearbyQuery(query.observer, new Date(instant.getTime() + 5 * 86_400_000 + 1234)))
    expect(heldDayWindows(catalog)).toBeGreaterThanOrEqual(1)
    engine.sweep(catalog) // everything was used since: kept
    expect(engine.find(catalog, query)).toEqual(before)
    expect(heldDayWindows(catalog)).toBeGreaterThanOrEqual(1)
    engine.sweep(catalog) // only the tables and interval of `instant` were used since (by that find)
    expect(engine.table(catalog, grid)).toBe(a)
    expect(engine.table(catalog, grid - 60_000)).not.toBe(earlier)
    expect(heldDayWindows(catalog)).toBe(0)
    engine.sweep(catalog)
    engine.sweep(catalog) // nothing used: all gone, and made again on demand, the same
    expect(engine.table(catalog, grid)).not.toBe(a)
    expect(engine.find(catalog, query)).toEqual(before)
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
      const exact = positionAt(catalog, i, mid, gmst)
      if (!exact.ok) continue
      const p = exact.state.eciKm
      expect(Math.hypot(out[0]! - p.x, out[1]! - p.y, out[2]! - p.z)).toBeLessThan(0.001)
    }
  })
})
