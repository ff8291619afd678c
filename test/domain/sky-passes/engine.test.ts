/** The catalogue-wide pass search (src/domain/sky-passes/engine.ts) against its plain loop (reference.ts), over the real catalogue. */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { siderealTimeRad } from '../../../src/domain/orbit/position.ts'
import { sunAltitudeDeg, sunPositionAu } from '../../../src/domain/orbit/sky.ts'
import { NO_AGE_LIMIT } from '../../../src/domain/orbit/validity.ts'
import { possiblyDark } from '../../../src/domain/sky-passes/darkness.ts'
import { findSkyPasses, gridWindows } from '../../../src/domain/sky-passes/engine.ts'
import { findSkyPassesPlain, type SkyPassesQuery } from '../../../src/domain/sky-passes/reference.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'
import { random } from '../../helpers/nearby.ts'

let catalog: Catalog
beforeAll(async () => {
  catalog = await embeddedCatalog()
})

const run = <T>(work: Generator<void, T>): T => {
  for (;;) {
    const step = work.next()
    if (step.done) return step.value
  }
}

/** The snapshot's stamp: elements are from the days before it. */
const STAMP = Date.UTC(2026, 4, 30, 22, 50)

describe('findSkyPasses', () => {
  test('equals the plain loop, to the bit, for random observers, windows, thresholds, limits and satellites: near the data, at the age limit, months later', () => {
    const next = random(20)
    let passes = 0
    let visible = 0
    let cut = 0
    let clipped = 0
    let withoutPosition = 0
    for (let k = 0; k < 12; k++) {
      // A third without an age limit: decayed and nonsense elements too.
      const on = k % 3 === 2 ? catalog.withPolicy(NO_AGE_LIMIT) : catalog
      const when = k % 4 === 3 ? 28.5 + next() * 3 : k % 6 === 5 ? 60 + next() * 200 : -1 + next() * 3
      const startMs = Math.round(STAMP + when * 86_400_000)
      const query: SkyPassesQuery = {
        observer: { latitudeDeg: next() * 180 - 90, longitudeDeg: next() * 360 - 180, altitudeM: next() * 3000 },
        startMs,
        endMs: startMs + (1 + Math.floor(next() * 48)) * 3_600_000,
        minElevationDeg: [0, 10, 10, 30][Math.floor(next() * 4)]!,
        visibleOnly: k % 2 === 0,
        magnitudeLimit: [4.5, 4.5, 6, 8][Math.floor(next() * 4)]!,
        indices: [...new Set(Array.from({ length: 120 }, () => Math.floor(next() * on.size)))].sort((a, b) => a - b),
      }
      const plain = run(findSkyPassesPlain(on, query))
      const fast = run(findSkyPasses(on, query))
      expect(fast.passes).toEqual(plain.passes)
      expect(fast.withoutPosition).toEqual(plain.withoutPosition)
      expect(fast.noPosition).toEqual(plain.noPosition)
      passes += plain.passes.length
      visible += plain.passes.filter((p) => p.pass.visible.length > 0).length
      cut += plain.passes.filter((p) => p.pass.rise === null || p.pass.set === null).length
      clipped += fast.stats.clipped
      withoutPosition += plain.withoutPosition.length
    }
    // The comparison covers what it is for.
    expect(passes).toBeGreaterThan(1000)
    expect(visible).toBeGreaterThan(20)
    expect(cut).toBeGreaterThan(10)
    expect(clipped).toBeGreaterThan(5)
    expect(withoutPosition).toBeGreaterThan(50)
  }, 120_000)

  test('a satellite the age limit cuts the searched time of is searched inside the limit and around the cut, one whose decay falls inside it over the whole time: the plain loop\'s passes and spans', () => {
    const next = random(31)
    const totals = { passes: 0, clipped: 0, wholeTime: 0, startCuts: 0, endCuts: 0, spans: 0 }
    const compare = (on: Catalog, query: SkyPassesQuery) => {
      const plain = run(findSkyPassesPlain(on, query))
      const fast = run(findSkyPasses(on, query))
      expect(fast.passes).toEqual(plain.passes)
      expect(fast.withoutPosition).toEqual(plain.withoutPosition)
      expect(fast.noPosition).toEqual(plain.noPosition)
      totals.passes += plain.passes.length
      totals.clipped += fast.stats.clipped
      totals.wholeTime += fast.stats.wholeTime
      for (const { spans } of plain.noPosition) {
        totals.spans += spans.length
        totals.startCuts += spans.filter((s) => s.fromMs === query.startMs).length
        totals.endCuts += spans.filter((s) => s.toMs === query.endMs).length
      }
    }
    const observer = () => ({ latitudeDeg: next() * 120 - 60, longitudeDeg: next() * 360 - 180, altitudeM: 0 })
    const some = (on: Catalog, count: number) => [...new Set(Array.from({ length: count }, () => Math.floor(next() * on.size)))].sort((a, b) => a - b)
    for (let k = 0; k < 4; k++) {
      // The 30-day limit inside a night a month after the data (the end cut), all passes and visible-only.
      const startMs = Math.round(STAMP + (29 + next()) * 86_400_000)
      compare(catalog, { observer: observer(), startMs, endMs: startMs + 12 * 3_600_000, minElevationDeg: 10, visibleOnly: k % 2 === 1, magnitudeLimit: 6, indices: some(catalog, 150) })
      // A 6-hour limit over a day around the epochs: cut at the start, at the end, or both.
      const short = catalog.withPolicy({ maxElementAgeMs: 6 * 3_600_000 })
      const dayMs = Math.round(STAMP - (0.5 + next()) * 86_400_000)
      compare(short, { observer: observer(), startMs: dayMs, endMs: dayMs + 24 * 3_600_000, minElevationDeg: 0, visibleOnly: k % 2 === 0, magnitudeLimit: 8, indices: some(short, 150) })
    }
    // Decays inside two days five days after the data, without an age limit: whole-time searches.
    const free = catalog.withPolicy(NO_AGE_LIMIT)
    const fromMs = STAMP + 5 * 86_400_000
    const decaying = free.satellites.map((_, i) => i).filter((i) => {
      const satrec = free.satrecAt(i)
      return free.validity.decayedBy(i, satrec, fromMs + 2 * 86_400_000) !== null && free.validity.decayedBy(i, satrec, fromMs) === null
    })
    compare(free, { observer: observer(), startMs: fromMs, endMs: fromMs + 2 * 86_400_000, minElevationDeg: 0, visibleOnly: false, magnitudeLimit: 4.5, indices: [...new Set([...decaying, ...some(free, 40)])].sort((a, b) => a - b) })
    // The comparison covers what it is for.
    expect(decaying.length).toBeGreaterThan(5)
    expect(totals.wholeTime).toBeGreaterThanOrEqual(decaying.length)
    expect(totals.clipped).toBeGreaterThan(300)
    expect(totals.startCuts).toBeGreaterThan(50)
    expect(totals.endCuts).toBeGreaterThan(200)
    expect(totals.passes).toBeGreaterThan(1000)
  }, 120_000)

  test('a satellite SGP4 finds below the surface when run back before its epoch is searched over the whole time: without a position, as in the plain loop', () => {
    const next = random(41)
    // Two weeks before the data: Starlinks raising their orbits have no position then (SGP4: below the surface).
    const startMs = Date.UTC(2026, 4, 17, 20)
    const indices = [...new Set([46701, 61957].map((id) => catalog.indexOf(id)!).concat(Array.from({ length: 200 }, () => Math.floor(next() * catalog.size))))].sort((a, b) => a - b)
    for (const visibleOnly of [false, true]) {
      const query: SkyPassesQuery = { observer: { latitudeDeg: 48.85, longitudeDeg: 2.35, altitudeM: 0 }, startMs, endMs: startMs + 12 * 3_600_000, minElevationDeg: 10, visibleOnly, magnitudeLimit: 4.5, indices }
      const plain = run(findSkyPassesPlain(catalog, query))
      const fast = run(findSkyPasses(catalog, query))
      expect(fast.passes).toEqual(plain.passes)
      expect(fast.withoutPosition).toEqual(plain.withoutPosition)
      expect(fast.noPosition).toEqual(plain.noPosition)
      expect(plain.withoutPosition).toEqual(expect.arrayContaining([catalog.indexOf(46701), catalog.indexOf(61957)]))
    }
  }, 60_000)

  test('visible-only skips most satellites without propagating them, and searches far fewer stretches than it scans', () => {
    const startMs = Date.UTC(2026, 4, 31, 18)
    const query: SkyPassesQuery = {
      observer: { latitudeDeg: 48.85, longitudeDeg: 2.35, altitudeM: 0 },
      startMs,
      endMs: startMs + 12 * 3_600_000,
      minElevationDeg: 10,
      visibleOnly: true,
      magnitudeLimit: 4.5,
      indices: catalog.satellites.map((_, i) => i),
    }
    const answer = run(findSkyPasses(catalog, query))
    expect(answer.stats.tooFaint).toBeGreaterThan(catalog.size / 2)
    expect(answer.stats.searched).toBeLessThan(answer.stats.stretches / 5)
    expect(answer.passes.length).toBeGreaterThan(50)
    // The ISS's visible passes of that night are all there, as its own search finds them.
    const iss = catalog.indexOf(25544)!
    const own = run(findSkyPassesPlain(catalog, { ...query, indices: [iss] }))
    expect(answer.passes.filter((p) => p.index === iss)).toEqual(own.passes)
  }, 60_000)

  test('admit is told the plan before any search, and a refusal stops the search', () => {
    const startMs = Date.UTC(2026, 4, 31, 18)
    let told: unknown
    const work = findSkyPasses(catalog, {
      observer: { latitudeDeg: 48.85, longitudeDeg: 2.35, altitudeM: 0 },
      startMs,
      endMs: startMs + 3_600_000,
      minElevationDeg: 10,
      visibleOnly: false,
      magnitudeLimit: 4.5,
      indices: [0, 1, 2, catalog.indexOf(25544)!],
      admit: (plan) => {
        told = plan
        throw new Error('refused')
      },
    })
    expect(() => run(work)).toThrow('refused')
    expect(told).toEqual({ withPosition: 4, candidates: 4 })
  })
})

describe('gridWindows', () => {
  test('widens by two steps onto the whole-time grid, clamps to the searched time, merges what meets', () => {
    expect(gridWindows([{ fromMs: 1_050, toMs: 1_260 }], 1_000, 2_000, 100)).toEqual([{ fromMs: 1_000, toMs: 1_500 }])
    expect(gridWindows([{ fromMs: 1_450, toMs: 1_460 }], 1_000, 2_000, 100)).toEqual([{ fromMs: 1_200, toMs: 1_700 }])
    expect(gridWindows([{ fromMs: 1_450, toMs: 1_460 }, { fromMs: 1_800, toMs: 1_990 }], 1_000, 2_000, 100)).toEqual([{ fromMs: 1_200, toMs: 2_000 }])
    expect(gridWindows([{ fromMs: 1_100, toMs: 1_110 }, { fromMs: 1_900, toMs: 1_910 }], 1_000, 2_000, 100)).toEqual([
      { fromMs: 1_000, toMs: 1_400 },
      { fromMs: 1_700, toMs: 2_000 },
    ])
  })
})

describe('possiblyDark', () => {
  test('covers every instant at which the Sun is at or below -6°, sampled every minute, at any latitude', () => {
    const next = random(3)
    for (let k = 0; k < 20; k++) {
      const observer = { latitudeDeg: next() * 180 - 90, longitudeDeg: next() * 360 - 180, altitudeM: 0 }
      const startMs = STAMP + Math.floor(next() * 365 * 86_400_000)
      const endMs = startMs + 48 * 3_600_000
      const spans = possiblyDark(observer, startMs, endMs)
      for (let t = startMs; t <= endMs; t += 60_000) {
        const instant = new Date(t)
        if (sunAltitudeDeg(observer, sunPositionAu(instant), siderealTimeRad(instant)) <= -6) {
          expect(spans.some((s) => s.fromMs <= t && t <= s.toMs)).toBe(true)
        }
      }
    }
  })
})
