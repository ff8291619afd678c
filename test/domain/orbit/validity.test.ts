/**
 * The decay rule's machinery (src/domain/orbit/validity.ts) over the real catalogue: the bound, the decay search against a plain scan.
 * The rule as a whole (age window, decay first, plausible heights, SGP4 errors): test/domain/orbit/position.test.ts.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { type SatRec, sgp4, twoline2satrec } from 'satellite.js'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { positionAt, siderealTimeRad } from '../../../src/domain/orbit/position.ts'
import { clearSpanMin, FLOOR_KM, lowestHeightBoundKm, NO_AGE_LIMIT, Validity } from '../../../src/domain/orbit/validity.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'
import { random } from '../../helpers/nearby.ts'
import { elementsOf, ommRecord } from '../../fixtures/synthetic.ts'

const DAY_MS = 86_400_000
const MINUTE_MS = 60_000
let catalog: Catalog
beforeAll(async () => {
  catalog = (await embeddedCatalog()).withPolicy(NO_AGE_LIMIT)
})

const nearEarth = () => catalog.satellites.map((_, i) => i).filter((i) => catalog.satrecAt(i).method === 'n')

describe('lowestHeightBoundKm', () => {
  test('is never above the height SGP4 gives, at random instants up to 200 days from every near-earth epoch', () => {
    const next = random(5)
    let compared = 0
    let closest = Number.POSITIVE_INFINITY
    for (const i of nearEarth()) {
      const satrec = catalog.satrecAt(i)
      for (let k = 0; k < 6; k++) {
        const tsince = (next() * 200 - 5) * 1440
        const bound = lowestHeightBoundKm(satrec, tsince)
        if (bound === Number.NEGATIVE_INFINITY) continue
        const pv = sgp4(satrec, tsince)
        if (!pv || satrec.error !== 0) continue
        const p = pv.position
        const geocentricKm = Math.hypot(p.x, p.y, p.z) - 6378.137
        expect(bound).toBeLessThanOrEqual(geocentricKm)
        closest = Math.min(closest, geocentricKm - bound)
        compared++
      }
    }
    expect(compared).toBeGreaterThan(50_000)
    // Tight enough to be useful: some orbits come within a few km of it.
    expect(closest).toBeLessThan(5)
  })

  test('throughout: never above the instant bound anywhere between the epoch and the span, and never rising with it', () => {
    for (const i of nearEarth().filter((_, k) => k % 50 === 0)) {
      const satrec = catalog.satrecAt(i)
      let previous = Number.POSITIVE_INFINITY
      for (let days = 0; days <= 400; days += 10) {
        const throughout = lowestHeightBoundKm(satrec, days * 1440, true)
        expect(throughout).toBeLessThanOrEqual(previous)
        expect(throughout).toBeLessThanOrEqual(lowestHeightBoundKm(satrec, days * 1440))
        previous = throughout
      }
    }
  })
})

/** The plain reference: the bound every hour from the epoch; the first hour below the floor, bisected to the ms. */
function plainDecayMs(satrec: SatRec, epochMs: number, horizonMin: number): number | null {
  const clear = (t: number) => lowestHeightBoundKm(satrec, t) >= FLOOR_KM
  if (!clear(0)) return epochMs
  for (let t = 60; t <= horizonMin + 60; t += 60) {
    if (clear(t)) continue
    let lo = t - 60
    let hi = t
    while (hi - lo > 1 / 60_000) {
      const mid = (lo + hi) / 2
      if (clear(mid)) lo = mid
      else hi = mid
    }
    return epochMs + Math.round(hi * MINUTE_MS)
  }
  return null
}

describe('the decay search', () => {
  test('finds the decay instant of a plain hourly scan for every near-earth satellite within 150 days (or none, as it does)', () => {
    const validity = new Validity(
      catalog.satellites.map((s) => s.elements),
      NO_AGE_LIMIT,
    )
    let decayed = 0
    for (const i of nearEarth()) {
      const satrec = catalog.satrecAt(i)
      const epochMs = catalog.satellites[i]!.elements.epochMs
      const horizonMs = epochMs + 150 * DAY_MS
      const plain = plainDecayMs(satrec, epochMs, 150 * 1440)
      const found = validity.decayedBy(i, satrec, horizonMs)
      if (plain === null || plain > horizonMs) expect(found).toBeNull()
      else {
        expect(found).not.toBeNull()
        // The search starts where the bound holds throughout, the plain scan at the epoch: the same crossing to a second.
        expect(Math.abs(found! - plain)).toBeLessThan(1000)
        decayed++
      }
    }
    expect(decayed).toBeGreaterThan(300)
  })

  test('the span clear throughout ends at or before the first decay', () => {
    for (const i of nearEarth().filter((_, k) => k % 7 === 0)) {
      const satrec = catalog.satrecAt(i)
      const span = clearSpanMin(satrec)
      const plain = plainDecayMs(satrec, 0, Math.min(span, 400 * 1440))
      if (plain !== null) expect(plain / MINUTE_MS).toBeGreaterThanOrEqual(span - 60)
    }
  })

  test('answers the same whichever instants are asked first', () => {
    const fresh = () => new Validity(catalog.satellites.map((s) => s.elements), NO_AGE_LIMIT)
    const forwards = fresh()
    const backwards = fresh()
    const ids = nearEarth().filter((_, k) => k % 11 === 0)
    const offsets = [3, 40, 90, 170].map((d) => d * DAY_MS)
    const answers = (v: Validity, order: number[]) =>
      ids.flatMap((i) => order.map((o) => [i, o, v.decayedBy(i, catalog.satrecAt(i), catalog.satellites[i]!.elements.epochMs + o)] as const))
    const sort = (rows: (readonly [number, number, number | null])[]) => [...rows].sort((a, b) => a[0] - b[0] || a[1] - b[1])
    expect(sort(answers(forwards, offsets))).toEqual(sort(answers(backwards, [...offsets].reverse())))
  })

  test('once decayed, every later instant is refused with the same decay instant', () => {
    const index = catalog.indexOf(48880)!
    const epochMs = catalog.satellites[index]!.elements.epochMs
    const reasons = [20, 45, 120, 400, 4000].map((d) => {
      const at = new Date(epochMs + d * DAY_MS)
      const result = positionAt(catalog, index, at, siderealTimeRad(at))
      expect(result.ok).toBe(false)
      return result.ok ? '' : result.reason
    })
    expect(new Set(reasons).size).toBe(1)
    expect(reasons[0]).toMatch(/^decayed at 2026-06-\d\dT[\d:.]+Z \(the lowest point of its orbit is below 80 km\); no later positions$/)
  })

  test('a decay beyond the age limit is not said: the elements cannot support it, the age limit refuses (with no limit, it is said)', async () => {
    // STARLINK-32416 (61589): SGP4's drag on its May elements brings its perigee below 80 km in November, months past the 30 days.
    const limited = await embeddedCatalog()
    const index = limited.indexOf(61589)!
    const satrec = limited.satrecAt(index)
    const epochMs = limited.satellites[index]!.elements.epochMs
    const free = new Validity(limited.satellites.map((s) => s.elements), NO_AGE_LIMIT)
    const decayMs = free.decayedBy(index, satrec, epochMs + 400 * DAY_MS)!
    expect(decayMs - epochMs).toBeGreaterThan(100 * DAY_MS)
    const after = decayMs + DAY_MS
    expect(free.refusalAt(index, satrec, after)?.kind).toBe('decayed')
    expect(limited.validity.refusalAt(index, satrec, after)).toMatchObject({ kind: 'element-age', reason: expect.stringMatching(/^the elements are \d+ days old at this instant/) })
    expect(limited.validity.decayedWithin(index, satrec, after)).toBeNull()
    expect(limited.validity.countRefusalsAmong([index], after, (i) => limited.satrecAt(i))).toEqual({ elementAge: 1, decayed: 0 })
    // 48880 decays 2026-06-14, within 30 days of its epoch: said with the limit too.
    const i48880 = limited.indexOf(48880)!
    expect(limited.validity.refusalAt(i48880, limited.satrecAt(i48880), Date.UTC(2026, 10, 26))?.kind).toBe('decayed')
  })
})

describe('the launch year', () => {
  test('no position before the year of launch its international designator says, with or without an age limit; a designator later than the epoch is not believed', () => {
    const set = (objectId: string, epoch: string) => elementsOf(ommRecord({ OBJECT_ID: objectId, EPOCH: epoch }))
    const launched = set('2026-102A', '2026-01-05T00:00:00.000000') // launched in 2026, elements of 5 January
    const undated = set('', '2026-01-05T00:00:00.000000')
    const contradicted = set('2026-102A', '2025-12-20T00:00:00.000000') // an epoch before the year the designator says
    const old = set('1988-091B', '2026-01-05T00:00:00.000000')
    const elements = [launched, undated, contradicted, old]
    const satrecs = elements.map((e) => twoline2satrec(e.tle!.line1, e.tle!.line2))
    const limited = new Validity(elements, { maxElementAgeMs: 30 * DAY_MS })
    const free = new Validity(elements, NO_AGE_LIMIT)
    const newYear = Date.UTC(2026, 0, 1)
    expect(limited.ageWindowOf(0)).toEqual({ fromMs: newYear, toMs: launched.epochMs + 30 * DAY_MS })
    expect(free.ageWindowOf(0)).toEqual({ fromMs: newYear, toMs: Number.POSITIVE_INFINITY })
    for (const validity of [limited, free]) {
      expect(validity.refusalAt(0, satrecs[0]!, newYear)).toBeNull()
      expect(validity.refusalAt(0, satrecs[0]!, newYear - 1)).toEqual({
        kind: 'element-age',
        reason: 'the instant is before 2026, the year of its launch (international designator 2026-102A); positions are given from 2026-01-01T00:00:00.000Z',
      })
      expect(validity.countRefusalsAmong([0], newYear - 1, (i) => satrecs[i]!)).toEqual({ elementAge: 1, decayed: 0 })
      // No designator, or one that contradicts the epoch: only the age limit.
      for (const i of [1, 2]) expect(validity.refusalAt(i, satrecs[i]!, newYear - 1)).toBeNull()
    }
    // With no limit, an old satellite still has none before its launch year.
    expect(free.refusalAt(3, satrecs[3]!, Date.UTC(1988, 0, 1))).toBeNull()
    expect(free.refusalAt(3, satrecs[3]!, Date.UTC(1957, 9, 4))?.reason).toStartWith('the instant is before 1988, the year of its launch (international designator 1988-091B)')
  })
})

describe('countRefusals', () => {
  test('the sorted index counts as the one-by-one loop: random instants, and each side of age limits and decays', async () => {
    const next = random(23)
    for (const maxElementAgeMs of [null, 30 * DAY_MS, 3 * DAY_MS]) {
      const c = (await embeddedCatalog()).withPolicy({ maxElementAgeMs })
      // Two rule sets of one catalogue: the index's, and the loop's (each with its own decay search).
      const fast = new Validity(c.satellites.map((s) => s.elements), c.validity.policy)
      const plain = new Validity(c.satellites.map((s) => s.elements), c.validity.policy)
      const satrecAt = (i: number) => c.satrecAt(i)
      const epochs = c.satellites.map((s) => s.elements.epochMs)
      const instants: number[] = []
      for (let k = 0; k < 60; k++) instants.push(Date.UTC(2026, 4, 30) + Math.round((next() * 400 - 60) * DAY_MS))
      // The edges: each side of some satellites' age-window ends (to the ms) and of decays found on the way.
      for (let k = 0; k < 40; k++) {
        const e = epochs[Math.floor(next() * epochs.length)]!
        const age = maxElementAgeMs ?? 0
        for (const t of [e - age - 1, e - age, e + age, e + age + 1, e - 1, e]) instants.push(t)
      }
      // Each side of launch years' starts (the age window starts there for satellites launched that year, with no limit).
      for (const year of [1988, 2025, 2026]) instants.push(Date.UTC(year, 0, 1) - 1, Date.UTC(year, 0, 1))
      let decayedSeen = 0
      for (const t of instants) {
        const counts = fast.countRefusals(t, satrecAt)
        expect(counts).toEqual(plain.countRefusalsOneByOne(t, satrecAt))
        decayedSeen = Math.max(decayedSeen, counts.decayed)
      }
      // Counted among every satellite, the counts are the same too.
      const every = c.satellites.map((_, i) => i)
      for (const t of instants.slice(0, 10)) expect(plain.countRefusalsAmong(every, t, satrecAt)).toEqual(plain.countRefusalsOneByOne(t, satrecAt))
      // Decays come into it (months after the snapshot many Starlink elements have decayed; within 30 days of their epochs, fewer;
      // within 3 days, hardly any).
      expect(decayedSeen).toBeGreaterThan(maxElementAgeMs === null ? 1000 : maxElementAgeMs === 30 * DAY_MS ? 100 : -1)
      // And each side of decays the index found, to the ms.
      const decays = [...new Set(c.satellites.map((_, i) => fast.decayedBy(i, c.satrecAt(i), Date.UTC(2027, 0, 1))).filter((d): d is number => d !== null))].slice(0, 30)
      expect(decays.length).toBeGreaterThan(10)
      for (const d of decays) for (const t of [d - 1, d, d + 1]) expect(fast.countRefusals(t, satrecAt)).toEqual(plain.countRefusalsOneByOne(t, satrecAt))
    }
  })

  test('prepareDecays runs the decay searches of a far instant in steps (a satellite at most a year further each), then the counts are the same', async () => {
    // With no age limit: the searches go as far as the instant (with one, no further than the limit's end: below).
    const c = (await embeddedCatalog()).withPolicy(NO_AGE_LIMIT)
    const satrecAt = (i: number) => c.satrecAt(i)
    const prepared = new Validity(c.satellites.map((s) => s.elements), c.validity.policy)
    const plain = new Validity(c.satellites.map((s) => s.elements), c.validity.policy)
    const far = Date.UTC(2036, 5, 30)
    const steps = prepared.prepareDecays(far, satrecAt)!
    let pauses = 0
    for (let step = steps.next(); !step.done; step = steps.next()) pauses++
    // Ten years of searches for the thousands of satellites that last: more steps than satellites.
    expect(pauses).toBeGreaterThan(c.size)
    const counts = prepared.countRefusals(far, satrecAt)
    expect(counts).toEqual(plain.countRefusalsOneByOne(far, satrecAt))
    expect(counts.decayed).toBeGreaterThan(1000)
    // Nothing left to prepare there, nor before the index's horizon; further on, there is again.
    expect(prepared.prepareDecays(far, satrecAt)).toBeUndefined()
    expect(prepared.prepareDecays(far + 20 * DAY_MS, satrecAt)).toBeUndefined()
    expect(prepared.prepareDecays(far + 400 * DAY_MS, satrecAt)).toBeDefined()
    // Before the horizon already searched: nothing.
    expect(prepared.prepareDecays(Date.UTC(2026, 5, 10), satrecAt)).toBeUndefined()
  })
})
