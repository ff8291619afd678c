/** Pass prediction (src/domain/orbit/passes.ts): the numerical pieces, and whole searches against a 1-second brute-force scan. */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { SatRec } from 'satellite.js'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { buildCatalog } from '../../../src/domain/catalog/catalog.ts'
import { type ElementSet, parseTle } from '../../../src/domain/catalog/elements.ts'
import { findPasses, intersectSpans, type Pass, type PassQuery, scanStepMs } from '../../../src/domain/orbit/passes.ts'
import { positionAt, siderealTimeRad } from '../../../src/domain/orbit/position.ts'
import { isSunlit, KM_PER_AU, lookAngles, type Observer, sunAltitudeDeg, sunPositionAu, toGeodeticRad } from '../../../src/domain/orbit/sky.ts'
import { ecfToEci, geodeticToEcf } from 'satellite.js'
import { apparentMagnitude, phaseAngleRad } from '../../../src/domain/orbit/magnitude.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'
import { makeTle, type TleOptions } from '../../helpers/tle.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const T0 = Date.UTC(2026, 4, 31)

const PARIS: Observer = { latitudeDeg: 48.8566, longitudeDeg: 2.3522, altitudeM: 35 }
const SYDNEY: Observer = { latitudeDeg: -33.8688, longitudeDeg: 151.2093, altitudeM: 58 }
const TROMSO: Observer = { latitudeDeg: 69.6492, longitudeDeg: 18.9553, altitudeM: 10 }
const LONGYEARBYEN: Observer = { latitudeDeg: 78.2232, longitudeDeg: 15.6267, altitudeM: 10 }
const SOUTH_POLE: Observer = { latitudeDeg: -90, longitudeDeg: 0, altitudeM: 2835 }

const ISS = 25544
const NOAA_20 = 43013
const ARKTIKA_M_1 = 47719
const QZS_2 = 42738
const ASTRA_1KR = 29055

let catalog: Catalog
beforeAll(async () => {
  catalog = await embeddedCatalog()
})

/** A satellite of a catalogue, as findPasses takes it, with its SGP4 record and elements. */
interface Sat {
  catalog: Catalog
  index: number
  satrec: SatRec
  elements: ElementSet
}

function satelliteOf(noradId: number): Sat {
  const index = catalog.indexOf(noradId)!
  return { catalog, index, satrec: catalog.satrecAt(index), elements: catalog.satellites[index]!.elements }
}

function synthetic(options: TleOptions): Sat {
  const tle = makeTle(options)
  const parsed = parseTle(tle.name, tle.line1, tle.line2)
  if (!parsed.ok) throw new Error(parsed.reason)
  const one = buildCatalog([{ group: 'test', elements: [parsed.elements] }], { source: 'snapshot', obtainedAtMs: 0 }, 0)
  return { catalog: one, index: 0, satrec: one.satrecAt(0), elements: parsed.elements }
}

/** Elevation (degrees) at a whole-ms instant, or null without a position. */
function elevationAt(sat: Sat, observer: Observer, ms: number): number | null {
  const instant = new Date(ms)
  const gmst = siderealTimeRad(instant)
  const position = positionAt(sat.catalog, sat.index, instant, gmst)
  return position.ok ? lookAngles(observer, position.state.eciKm, gmst).elevationDeg : null
}

/** The stretches at or above the threshold, sampled every second: [first second above, last second above, highest sample]. */
function bruteForce(sat: Sat, query: PassQuery) {
  const out: { from: number; to: number; top: number }[] = []
  let open: { from: number; to: number; top: number } | null = null
  for (let t = query.startMs; t <= query.endMs; t += 1000) {
    const el = elevationAt(sat, query.observer, t)
    if (el !== null && el >= query.minElevationDeg) {
      open ??= { from: t, to: t, top: el }
      open.to = t
      open.top = Math.max(open.top, el)
    } else if (open) {
      out.push(open)
      open = null
    }
  }
  if (open) out.push(open)
  return out
}

describe('numerical pieces', () => {
  test('intersectSpans keeps the common parts of two ordered lists', () => {
    const a = [
      { fromMs: 0, toMs: 10 },
      { fromMs: 20, toMs: 30 },
    ]
    const b = [
      { fromMs: 5, toMs: 25 },
      { fromMs: 28, toMs: 40 },
    ]
    expect(intersectSpans(a, b)).toEqual([
      { fromMs: 5, toMs: 10 },
      { fromMs: 20, toMs: 25 },
      { fromMs: 28, toMs: 30 },
    ])
    expect(intersectSpans(a, [])).toEqual([])
  })

  test('the scan step follows the orbit: finer at a fast perigee, capped for slow orbits', () => {
    const iss = scanStepMs(satelliteOf(ISS).satrec)
    expect(iss).toBeGreaterThan(30_000)
    expect(iss).toBeLessThan(45_000)
    const molniya = satelliteOf(ARKTIKA_M_1).satrec
    const molniyaPeriodMs = ((2 * Math.PI) / molniya.no) * 60_000
    expect(scanStepMs(molniya)).toBeLessThan(molniyaPeriodMs / 150 / 5)
    expect(scanStepMs(satelliteOf(ASTRA_1KR).satrec)).toBe(300_000)
  })
})

describe('findPasses against a brute-force scan every second', () => {
  const cases: [string, number, Observer, number][] = [
    ['ISS over Paris', ISS, PARIS, 10],
    ['ISS over Sydney from the horizon', ISS, SYDNEY, 0],
    ['ISS over Tromsø from the horizon (low passes)', ISS, TROMSO, 0],
    ['NOAA 20 over Longyearbyen', NOAA_20, LONGYEARBYEN, 10],
    ['NOAA 20 over the South Pole', NOAA_20, SOUTH_POLE, 30],
    ['Arktika-M 1 over Sydney (perigee passes)', ARKTIKA_M_1, SYDNEY, 0],
    ['Arktika-M 1 over Longyearbyen', ARKTIKA_M_1, LONGYEARBYEN, 10],
    ['QZS-2 over Sydney', QZS_2, SYDNEY, 10],
  ]
  test.each(cases)('%s', (_label, noradId, observer, threshold) => {
    const sat = satelliteOf(noradId)
    const query = { observer, startMs: T0, endMs: T0 + DAY, minElevationDeg: threshold }
    const { passes, noPosition, anyPosition } = findPasses(sat.catalog, sat.index, query)
    const expected = bruteForce(sat, query)
    expect(anyPosition).toBe(true)
    expect(noPosition).toEqual([])
    expect(passes.length).toBeGreaterThan(0)
    // Same passes (a pass shorter than the 1 s sampling may be missed by the brute force only).
    const long = passes.filter((p) => p.endMs - p.startMs >= 2000)
    expect(long.length).toBe(expected.length)
    for (const [k, p] of long.entries()) {
      const e = expected[k]!
      // The brute force's first and last seconds above bracket the true crossings to within 1 s.
      expect(p.startMs).toBeGreaterThan(e.from - 1000 - 5)
      expect(p.startMs).toBeLessThanOrEqual(e.from + 5)
      expect(p.endMs).toBeGreaterThanOrEqual(e.to - 5)
      expect(p.endMs).toBeLessThan(e.to + 1000 + 5)
      // The culmination is at least as high as every sample, and hardly higher.
      expect(p.culmination.elevationDeg).toBeGreaterThanOrEqual(e.top - 1e-9)
      expect(p.culmination.elevationDeg - e.top).toBeLessThan(0.05)
    }
    for (const p of passes) {
      expect(p.culmination.instantMs).toBeGreaterThanOrEqual(p.startMs)
      expect(p.culmination.instantMs).toBeLessThanOrEqual(p.endMs)
      // Rises and sets sit on the threshold: located to a few ms.
      for (const crossing of [p.rise, p.set]) if (crossing) expect(Math.abs(crossing.elevationDeg - threshold)).toBeLessThan(0.002)
    }
  })
})

describe('passes and dips shorter than the scan step', () => {
  test('a pass whose culmination barely clears the threshold (above it for less than a step) is found', () => {
    const sat = satelliteOf(ISS)
    const step = scanStepMs(sat.satrec)
    const [first] = findPasses(sat.catalog, sat.index, { observer: PARIS, startMs: T0, endMs: T0 + DAY, minElevationDeg: 10 }).passes as [Pass]
    // The grid starts at startMs: put the culmination halfway between two of its samples.
    const startMs = first.culmination.instantMs - 10.5 * step
    const query = { observer: PARIS, startMs, endMs: startMs + DAY, minElevationDeg: 10 }
    for (const margin of [0.05, 0.001]) {
      const threshold = first.culmination.elevationDeg - margin
      const { passes } = findPasses(sat.catalog, sat.index, { ...query, minElevationDeg: threshold })
      const short = passes.find((p) => Math.abs(p.culmination.instantMs - first.culmination.instantMs) < 1000)!
      expect(short).toBeDefined()
      expect(short.endMs - short.startMs).toBeLessThan(step)
      expect(short.rise!.instantMs).toBeLessThan(first.culmination.instantMs)
      expect(short.set!.instantMs).toBeGreaterThan(first.culmination.instantMs)
      expect(Math.abs(short.rise!.elevationDeg - threshold)).toBeLessThan(1e-3)
      expect(Math.abs(short.set!.elevationDeg - threshold)).toBeLessThan(1e-3)
    }
  })

  test('a geostationary satellite dipping below the threshold for less than a step: set and rise around the dip', () => {
    const sat = satelliteOf(ASTRA_1KR)
    const step = scanStepMs(sat.satrec)
    // The lowest elevation of the day, to 10 s (the daily swing is a fraction of a degree, the bottom very flat).
    let lowest = { t: 0, el: 90 }
    for (let t = T0; t <= T0 + DAY; t += 10_000) {
      const el = elevationAt(sat, PARIS, t)!
      if (el < lowest.el) lowest = { t, el }
    }
    // A threshold just above it, the bottom halfway between two samples of the grid: a dip of about a minute, unsampled.
    const threshold = lowest.el + 2e-6
    const startMs = lowest.t - 10.5 * step
    const { passes } = findPasses(sat.catalog, sat.index, { observer: PARIS, startMs, endMs: startMs + DAY, minElevationDeg: threshold })
    expect(passes.length).toBe(2)
    const [before, after] = passes as [Pass, Pass]
    expect([before.rise, after.set]).toEqual([null, null])
    expect(after.rise!.instantMs - before.set!.instantMs).toBeLessThan(step / 2)
    expect(Math.abs((before.set!.instantMs + after.rise!.instantMs) / 2 - lowest.t)).toBeLessThan(30_000)
  })
})

describe('edges of the searched time, and orbits that never rise or never set', () => {
  test('a window opening and closing mid-pass: rise and set null, the culmination its highest point within', () => {
    const sat = satelliteOf(ISS)
    const whole = findPasses(sat.catalog, sat.index, { observer: SYDNEY, startMs: T0, endMs: T0 + DAY, minElevationDeg: 10 }).passes
    const [first, second] = whole as [Pass, Pass]
    // From just after the first pass's culmination to just before the second's.
    const startMs = first.culmination.instantMs + 30_000
    const endMs = second.culmination.instantMs - 30_000
    const cut = findPasses(sat.catalog, sat.index, { observer: SYDNEY, startMs, endMs, minElevationDeg: 10 }).passes
    expect(cut.length).toBe(2)
    const [a, b] = cut as [Pass, Pass]
    expect(a.rise).toBeNull()
    expect(a.startMs).toBe(startMs)
    expect(a.set!.instantMs).toBe(first.set!.instantMs)
    // Descending from the start on: the highest point is the start itself.
    expect(a.culmination.instantMs).toBe(startMs)
    expect(b.rise!.instantMs).toBe(second.rise!.instantMs)
    expect(b.set).toBeNull()
    expect(b.endMs).toBe(endMs)
    expect(b.culmination.instantMs).toBe(endMs)
    expect(elevationAt(sat, SYDNEY, startMs)).toBe(a.culmination.elevationDeg)
  })

  test('a window starting just before a culmination keeps that culmination', () => {
    const sat = satelliteOf(ISS)
    const [first] = findPasses(sat.catalog, sat.index, { observer: SYDNEY, startMs: T0, endMs: T0 + DAY, minElevationDeg: 10 }).passes as [Pass]
    const startMs = first.culmination.instantMs - 20_000
    const [cut] = findPasses(sat.catalog, sat.index, { observer: SYDNEY, startMs, endMs: startMs + DAY, minElevationDeg: 10 }).passes as [Pass]
    expect(cut.rise).toBeNull()
    expect(Math.abs(cut.culmination.instantMs - first.culmination.instantMs)).toBeLessThan(20)
    expect(cut.culmination.elevationDeg).toBeCloseTo(first.culmination.elevationDeg, 6)
  })

  test('a geostationary satellite above the threshold never sets: one pass over the whole window', () => {
    const sat = satelliteOf(ASTRA_1KR)
    const { passes } = findPasses(sat.catalog, sat.index, { observer: PARIS, startMs: T0, endMs: T0 + 3 * DAY, minElevationDeg: 10 })
    expect(passes.length).toBe(1)
    const [p] = passes as [Pass]
    expect([p.rise, p.set, p.startMs, p.endMs]).toEqual([null, null, T0, T0 + 3 * DAY])
    // Nearly still in the sky: the culmination is the highest of a nearly constant elevation.
    const at0 = elevationAt(sat, PARIS, T0)!
    expect(p.culmination.elevationDeg).toBeGreaterThanOrEqual(at0)
    expect(p.culmination.elevationDeg - at0).toBeLessThan(1)
  })

  test('a geostationary satellite below the threshold, and a LEO out of reach, never rise', () => {
    const astra = satelliteOf(ASTRA_1KR)
    expect(findPasses(astra.catalog, astra.index, { observer: LONGYEARBYEN, startMs: T0, endMs: T0 + 2 * DAY, minElevationDeg: 10 }).passes).toEqual([])
    const iss = satelliteOf(ISS)
    expect(findPasses(iss.catalog, iss.index, { observer: SOUTH_POLE, startMs: T0, endMs: T0 + 2 * DAY, minElevationDeg: 0 }).passes).toEqual([])
  })

  test('threshold 90 leaves nothing (or passes of no duration) for a LEO', () => {
    const sat = satelliteOf(ISS)
    const { passes } = findPasses(sat.catalog, sat.index, { observer: PARIS, startMs: T0, endMs: T0 + 2 * DAY, minElevationDeg: 90 })
    for (const p of passes) expect(p.endMs - p.startMs).toBeLessThan(100)
  })
})

describe('visibility', () => {
  test('visible windows lie within their pass and hold the rule at their inside and not just outside', () => {
    const sat = satelliteOf(ISS)
    const { passes } = findPasses(sat.catalog, sat.index, { observer: SYDNEY, startMs: T0, endMs: T0 + 3 * DAY, minElevationDeg: 10 })
    const visibleAt = (ms: number) => {
      const instant = new Date(ms)
      const gmst = siderealTimeRad(instant)
      const position = positionAt(sat.catalog, sat.index, instant, gmst)
      if (!position.ok) return false
      const sun = sunPositionAu(instant)
      return (
        isSunlit(position.state.eciKm, sun) &&
        sunAltitudeDeg(SYDNEY, sun, gmst) <= -6 &&
        lookAngles(SYDNEY, position.state.eciKm, gmst).elevationDeg >= 10 - 0.002
      )
    }
    const windows = passes.flatMap((p) => p.visible.map((w) => ({ p, w })))
    expect(windows.length).toBeGreaterThan(0)
    expect(passes.some((p) => p.visible.length === 0)).toBe(true)
    for (const { p, w } of windows) {
      expect(w.fromMs).toBeGreaterThanOrEqual(p.startMs)
      expect(w.toMs).toBeLessThanOrEqual(p.endMs)
      expect(w.toMs).toBeGreaterThan(w.fromMs)
      for (let t = w.fromMs; t <= w.toMs; t += 5000) expect(visibleAt(t)).toBe(true)
      expect(visibleAt(w.toMs)).toBe(true)
      // Just outside: not visible, unless the window ends with the pass.
      if (w.fromMs > p.startMs) expect(visibleAt(w.fromMs - 25)).toBe(false)
      if (w.toMs < p.endMs) expect(visibleAt(w.toMs + 25)).toBe(false)
    }
    for (const p of passes.filter((p) => p.visible.length === 0)) {
      for (let t = p.startMs; t <= p.endMs; t += 5000) expect(visibleAt(t)).toBe(false)
    }
  })

  test('with a brightness: windows also hold magnitude <= limit inside and not just outside; brightest and culmination magnitudes', () => {
    const MCMURDO: Observer = { latitudeDeg: -77.846, longitudeDeg: 166.676, altitudeM: 24 }
    const cases = [
      { id: ISS, observer: SYDNEY, threshold: 10, standardMagnitude: -1.8, magnitudeLimit: -2.5 },
      // METOP-B in the polar night: it brightens as it approaches and enters the shadow within one grid step.
      { id: 38771, observer: MCMURDO, threshold: 30, standardMagnitude: 6, magnitudeLimit: 7 },
    ]
    let windowsSeen = 0
    let faintPasses = 0
    for (const c of cases) {
      const sat = satelliteOf(c.id)
      const magnitudeAt = (ms: number): number | null => {
        const instant = new Date(ms)
        const gmst = siderealTimeRad(instant)
        const position = positionAt(sat.catalog, sat.index, instant, gmst)
        if (!position.ok) return null
        const sun = sunPositionAu(instant)
        if (!isSunlit(position.state.eciKm, sun)) return null
        const observerKm = ecfToEci(geodeticToEcf(toGeodeticRad(c.observer)), gmst)
        const sunKm = { x: sun.x * KM_PER_AU, y: sun.y * KM_PER_AU, z: sun.z * KM_PER_AU }
        const range = lookAngles(c.observer, position.state.eciKm, gmst).rangeKm
        return apparentMagnitude(c.standardMagnitude, range, phaseAngleRad(position.state.eciKm, observerKm, sunKm))
      }
      const seenAt = (ms: number) => {
        const instant = new Date(ms)
        const gmst = siderealTimeRad(instant)
        const position = positionAt(sat.catalog, sat.index, instant, gmst)
        return position.ok && sunAltitudeDeg(c.observer, sunPositionAu(instant), gmst) <= -6 && lookAngles(c.observer, position.state.eciKm, gmst).elevationDeg >= c.threshold - 0.002
      }
      // Decided on the magnitude to 0.01, as the answers give it.
      const visibleAt = (ms: number) => {
        const m = magnitudeAt(ms)
        return m !== null && Math.round(m * 100) / 100 <= c.magnitudeLimit && seenAt(ms)
      }
      const { passes } = findPasses(sat.catalog, sat.index, {
        observer: c.observer,
        startMs: T0,
        endMs: T0 + 3 * DAY,
        minElevationDeg: c.threshold,
        brightness: { standardMagnitude: c.standardMagnitude, magnitudeLimit: c.magnitudeLimit },
      })
      for (const p of passes) {
        const m = magnitudeAt(p.culmination.instantMs)
        if (m === null) expect(p.culmination.magnitude).toBeNull()
        else expect(Math.abs(p.culmination.magnitude! - m)).toBeLessThanOrEqual(0.005 + 1e-9)
        if (p.brightest) {
          expect(Math.abs(p.brightest.magnitude - magnitudeAt(p.brightest.instantMs)!)).toBeLessThanOrEqual(0.005 + 1e-9)
          // No moment of the pass sunlit in a dark sky is brighter (beyond the located minimum's tolerance).
          for (let t = p.startMs; t <= p.endMs; t += 2000) {
            const here = magnitudeAt(t)
            if (here !== null && seenAt(t)) expect(here).toBeGreaterThan(p.brightest.magnitude - 0.006)
          }
          expect(p.visible.length > 0).toBe(p.brightest.magnitude <= c.magnitudeLimit)
          if (p.brightest.magnitude > c.magnitudeLimit) faintPasses++
        }
        for (const w of p.visible) {
          windowsSeen++
          for (let t = w.fromMs + 10; t < w.toMs - 10; t += 1000) expect(visibleAt(t)).toBe(true)
          if (w.fromMs > p.startMs) expect(visibleAt(w.fromMs - 25)).toBe(false)
          if (w.toMs < p.endMs) expect(visibleAt(w.toMs + 25)).toBe(false)
        }
        if (p.visible.length === 0) for (let t = p.startMs; t <= p.endMs; t += 1000) expect(visibleAt(t)).toBe(false)
      }
    }
    expect(windowsSeen).toBeGreaterThan(2)
    expect(faintPasses).toBeGreaterThan(0)
  })

  test('a window can open at dusk: where the Sun reaches -6° at the observer', () => {
    // METOP-B over Paris on 1 June 2026 around 20:27Z: sunlit and above 10° before the sky is dark enough.
    const sat = satelliteOf(38771)
    const { passes } = findPasses(sat.catalog, sat.index, { observer: PARIS, startMs: T0, endMs: T0 + 3 * DAY, minElevationDeg: 10 })
    const sunAt = (ms: number) => sunAltitudeDeg(PARIS, sunPositionAu(new Date(ms)), siderealTimeRad(new Date(ms)))
    const atDusk = passes.flatMap((p) => p.visible.filter((w) => w.fromMs > p.startMs && Math.abs(sunAt(w.fromMs) + 6) < 0.001))
    expect(atDusk.length).toBe(1)
    expect(sunAt(atDusk[0]!.fromMs)).toBeLessThanOrEqual(-6)
    expect(sunAt(atDusk[0]!.fromMs - 25)).toBeGreaterThan(-6)
  })
})

describe('stale elements: passes only where positions exist', () => {
  test('elements that decay inside the window: passes up to the decay, the rest listed as without position', () => {
    // An invented satellite at ~370 km with heavy drag: it decays about a day after its epoch.
    const epochMs = Date.UTC(2026, 4, 30, 12)
    const sat = synthetic({ noradId: 90101, epochMs, meanMotionRevPerDay: 16.2, bstar: ' 10000-1' })
    const startMs = epochMs - 2 * DAY
    const endMs = epochMs + 4 * DAY
    const search = findPasses(sat.catalog, sat.index, { observer: PARIS, startMs, endMs, minElevationDeg: 0 })
    expect(search.anyPosition).toBe(true)
    // Before the epoch, drag run backwards raises the orbit past the plausible ceiling (apogee height + 10 % + 200 km).
    const gap = search.noPosition.at(-1)
    for (const before of search.noPosition.slice(0, -1)) {
      expect(before.toMs).toBeLessThan(epochMs)
      expect(before.reason).toContain('above the highest plausible for these elements')
    }
    expect(gap!.toMs).toBe(endMs)
    expect(gap!.fromMs).toBeGreaterThan(epochMs)
    expect(gap!.reason).toStartWith('decayed at 2026-05-31T')
    expect(gap!.reason).toEndWith('no later positions')
    // The edge is located to the millisecond: a position the millisecond before, none from it on, and it is the decay time the reason gives.
    expect(elevationAt(sat, PARIS, gap!.fromMs - 1)).not.toBeNull()
    expect(elevationAt(sat, PARIS, gap!.fromMs)).toBeNull()
    expect(gap!.reason).toStartWith(`decayed at ${new Date(gap!.fromMs).toISOString()}`)
    expect(search.passes.length).toBeGreaterThan(0)
    for (const p of search.passes) expect(p.endMs).toBeLessThan(gap!.fromMs)
  })

  test('positions that begin and end inside the window (a negative drag term propagated backwards)', () => {
    const epochMs = Date.UTC(2026, 4, 30, 12)
    const sat = synthetic({ noradId: 90102, epochMs, meanMotionRevPerDay: 15.5, bstar: '-99999-1' })
    const startMs = epochMs - 5 * DAY
    const endMs = epochMs + 7 * DAY
    const search = findPasses(sat.catalog, sat.index, { observer: SYDNEY, startMs, endMs, minElevationDeg: 0 })
    // Before: none. Then positions; as the orbit decays its perigee dips below the ground first, then all of it.
    const gaps = search.noPosition
    expect(gaps.length).toBeGreaterThanOrEqual(2)
    expect(gaps[0]!.fromMs).toBe(startMs)
    expect(gaps[0]!.reason).toStartWith('SGP4 finds the satellite below the surface')
    expect(gaps.at(-1)!.reason).toStartWith('decayed at ')
    expect(gaps.at(-1)!.toMs).toBe(endMs)
    for (const gap of gaps) {
      if (gap.fromMs > startMs) expect(elevationAt(sat, SYDNEY, gap.fromMs - 20)).not.toBeNull()
      expect(elevationAt(sat, SYDNEY, gap.fromMs)).toBeNull()
      expect(elevationAt(sat, SYDNEY, gap.toMs)).toBeNull()
      if (gap.toMs < endMs) expect(elevationAt(sat, SYDNEY, gap.toMs + 20)).not.toBeNull()
    }
    expect(search.passes.length).toBeGreaterThan(0)
    for (const p of search.passes) {
      for (const gap of gaps) expect(p.endMs < gap.fromMs || p.startMs > gap.toMs).toBe(true)
    }
    // A pass cut by the start of positions has no rise; one cut by their end has no set.
    for (const p of search.passes) {
      if (p.rise === null) expect(gaps.some((gap) => p.startMs - gap.toMs <= 20 && p.startMs > gap.toMs)).toBe(true)
      if (p.set === null) expect(gaps.some((gap) => gap.fromMs - p.endMs <= 20 && gap.fromMs > p.endMs)).toBe(true)
    }
  })

  test('no position anywhere in the window', () => {
    const epochMs = Date.UTC(2026, 4, 30, 12)
    const sat = synthetic({ noradId: 90103, epochMs, meanMotionRevPerDay: 16.2, bstar: ' 10000-1' })
    const search = findPasses(sat.catalog, sat.index, { observer: PARIS, startMs: epochMs + 10 * DAY, endMs: epochMs + 11 * DAY, minElevationDeg: 10 })
    expect(search.anyPosition).toBe(false)
    expect(search.passes).toEqual([])
    expect(search.noPosition).toEqual([{ fromMs: epochMs + 10 * DAY, toMs: epochMs + 11 * DAY, reason: expect.stringMatching(/^decayed at 2026-05-31T.*no later positions$/) }])
  })

  test('elements past the age limit: no positions beyond 30 days from the epoch, whatever the orbit', () => {
    const epochMs = Date.UTC(2026, 4, 30, 12)
    const sat = synthetic({ noradId: 90104, epochMs, meanMotionRevPerDay: 14.2, bstar: ' 10000-4' })
    const search = findPasses(sat.catalog, sat.index, { observer: PARIS, startMs: epochMs + 29 * DAY, endMs: epochMs + 31 * DAY, minElevationDeg: 10 })
    // The stretch starts at the first millisecond past the limit, with the reason found there.
    expect(search.noPosition).toEqual([
      {
        fromMs: epochMs + 30 * DAY + 1,
        toMs: epochMs + 31 * DAY,
        reason: 'the elements are more than 30 days old at this instant (epoch 2026-05-30T12:00:00.000Z); positions are given within 30 days of the epoch (--max-element-age)',
      },
    ])
    // The edge is located to within 20 ms after the limit.
    expect(search.noPosition[0]!.fromMs - (epochMs + 30 * DAY)).toBeWithin(1, 21)
    expect(search.passes.length).toBeGreaterThan(0)
    for (const p of search.passes) expect(p.endMs).toBeLessThanOrEqual(epochMs + 30 * DAY)
  })
})

test('a 10-day ISS search (timing printed, not asserted)', () => {
  const sat = satelliteOf(ISS)
  const started = performance.now()
  const { passes, stepMs } = findPasses(sat.catalog, sat.index, { observer: PARIS, startMs: T0, endMs: T0 + 10 * DAY, minElevationDeg: 10 })
  const elapsed = performance.now() - started
  console.log(`findPasses: ISS over Paris, 10 days, step ${stepMs / 1000} s: ${passes.length} passes in ${elapsed.toFixed(1)} ms`)
  expect(passes.length).toBeGreaterThan(30)
})
