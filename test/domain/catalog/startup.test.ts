/**
 * The catalogue a start uses: the base (--snapshot when given, else the embedded
 * snapshot) with the data-dir cache competing group by group by when the data
 * was obtained.
 */
import { describe, expect, test } from 'bun:test'
import { snapshotFromCache } from '../../../src/io/cache.ts'
import type { GroupSet } from '../../../src/domain/catalog/groups.ts'
import { CLOCK_SKEW_MS, planStart, type StartInputs, type StartPlan, startLogFields } from '../../../src/domain/catalog/startup.ts'
import { ommJson, syntheticGroup, tleText } from '../../fixtures/synthetic.ts'

const DAY = 86_400_000
const T = Date.UTC(2026, 4, 30)
const NOW = T + 10 * DAY

/** A snapshot of TLE groups, each `[group, firstId, count]`, stamped `stampMs`. */
const snapshot = (stampMs: number, groups: [string, number, number][], description = 'a snapshot'): GroupSet => ({
  source: 'snapshot',
  obtainedAtMs: stampMs,
  description,
  groups: groups.map(([group, firstId, count]) => ({ group, source: 'snapshot', obtainedAtMs: stampMs, text: tleText(syntheticGroup(firstId, count, { epochDay: 145 })) })),
})

/** A cache whose groups, `[group, firstId, count, fetchedAtMs]`, are OMM JSON payloads newer than the snapshots'. */
function cache(obtainedAtMs: number, groups: [string, number, number, number?][]): GroupSet {
  return {
    obtainedAtMs,
    source: 'refresh',
    description: 'http://127.0.0.1:9/gp.php',
    groups: groups.map(([group, firstId, count, fetchedAtMs]) => ({
      group,
      format: 'json' as const,
      source: 'refresh' as const,
      text: ommJson(syntheticGroup(firstId, count, { epochDay: 149 })),
      obtainedAtMs: fetchedAtMs ?? obtainedAtMs,
      etag: null,
      lastModified: null,
    })),
  }
}
const fromCache = (contents: GroupSet) => snapshotFromCache(contents, '/data/catalog-cache.json')

function plan(inputs: Partial<StartInputs> & Pick<StartInputs, 'base'>): StartPlan {
  const result = planStart({ cache: null, nowMs: NOW, ...inputs })
  if (!result.ok) throw new Error(result.error)
  return result.plan
}

const EMBEDDED = snapshot(T, [['stations', 1000, 3], ['weather', 2000, 4], ['starlink', 3000, 5]], 'the embedded snapshot')
const epochDayOf = (p: StartPlan, id: number) => new Date(p.catalog.get(id)!.elements.epochMs).getUTCDate()

describe('the base', () => {
  test('--snapshot is used in place of the embedded snapshot, even when its data is older', () => {
    const older = snapshot(T - 5 * DAY, [['stations', 5000, 2]], '/snapshots/2026-05-25T0000Z')
    const p = plan({ base: { source: 'snapshot', snapshot: older } })
    expect(p.catalog.origin).toEqual({ source: 'snapshot', obtainedAtMs: T - 5 * DAY, groupsObtainedAtMs: { stations: T - 5 * DAY }, groupSources: { stations: 'snapshot' } })
    expect(p.catalog.satellites.map((s) => s.noradId)).toEqual([5000, 5001])
  })

  test('without --snapshot the embedded snapshot is the base', () => {
    const p = plan({ base: { source: 'embedded', snapshot: EMBEDDED } })
    expect(p.catalog.origin.source).toBe('embedded')
    expect(p.catalog.groupCounts).toEqual({ starlink: 5, stations: 3, weather: 4 })
    expect(p.groupSources).toEqual({ stations: 'base', weather: 'base', starlink: 'base' })
  })

  test('a --snapshot without a valid element set is an error, whatever the cache holds', () => {
    const empty: GroupSet = { source: 'snapshot', obtainedAtMs: T, description: '/tmp/garbage.tle', groups: [{ group: 'garbage', source: 'snapshot', obtainedAtMs: T, text: 'not elements' }] }
    const result = planStart({ base: { source: 'snapshot', snapshot: empty }, cache: fromCache(cache(NOW, [['stations', 1000, 3]])), nowMs: NOW })
    expect(result).toEqual({ ok: false, error: 'no valid element sets in /tmp/garbage.tle', examples: ['garbage: not TLE, OMM JSON or OMM CSV: text starting "not elements"'] })
  })

  test('an empty embedded snapshot leaves the cache; with neither, an error', () => {
    const empty: GroupSet = { source: 'embedded', obtainedAtMs: T, description: 'the embedded snapshot', groups: [] }
    const p = plan({ base: { source: 'embedded', snapshot: empty }, cache: fromCache(cache(T - DAY, [['stations', 1000, 3]])) })
    expect(p.catalog.origin.source).toBe('cache')
    expect(planStart({ base: { source: 'embedded', snapshot: empty }, cache: null, nowMs: NOW })).toEqual({
      ok: false,
      error: 'no valid element sets in the embedded snapshot',
      examples: [],
    })
  })

  test('a stamp in the future is not believed: the base is dated by the time it is read, never by its epochs, and validated against that', () => {
    const future = snapshot(Date.UTC(2099, 0, 1), [['stations', 1000, 3]], '/snapshots/2099-01-01T0000Z')
    // A set dated in 2098 that the claimed stamp would let in.
    future.groups.push({ group: 'weather', source: 'snapshot', obtainedAtMs: Date.UTC(2099, 0, 1), text: ommJson(syntheticGroup(2000, 2, { epochDay: 2 + (Date.UTC(2098, 0, 1) - Date.UTC(2026, 0, 1)) / DAY })) })
    const p = plan({ base: { source: 'snapshot', snapshot: future }, cache: fromCache(cache(T, [['stations', 1000, 3]])) })
    expect(p.baseObtainedAtMs).toBe(NOW)
    expect(p.baseDatedBy).toBe('time read')
    expect(p.warnings).toEqual([expect.objectContaining({ message: expect.stringContaining('says its data was obtained in the future; dated by the time it was read') })])
    expect(p.catalog.origin.source).toBe('snapshot') // read now, it is newer than the cache (30 May)
    expect(p.catalog.get(2000)).toBeUndefined()
    expect(p.invalidByGroup).toEqual({ weather: 2 })
    expect(p.refused).toEqual([
      { group: 'weather', noradId: 2000, reason: expect.stringMatching(/^its epoch 2098-.* is more than a day after its group was obtained \(2026-06-09T/), satelliteKept: false },
      { group: 'weather', noradId: 2001, reason: expect.stringMatching(/^its epoch 2098-/), satelliteKept: false },
    ])
  })
})

describe('the cache competes with the base, group by group', () => {
  test('a newer cache holding every group replaces the base', () => {
    const p = plan({ base: { source: 'embedded', snapshot: EMBEDDED }, cache: fromCache(cache(T + DAY, [['stations', 1000, 3], ['weather', 2000, 4], ['starlink', 3000, 5]])) })
    expect(p.catalog.origin).toMatchObject({ source: 'cache', obtainedAtMs: T + DAY })
    expect(p.cacheGroupsUsed.sort()).toEqual(['starlink', 'stations', 'weather'])
    expect(epochDayOf(p, 1000)).toBe(29) // 29 May: the cache's elements
  })

  test('an older cache loses to the base; a tie goes to the cache', () => {
    const older = plan({ base: { source: 'embedded', snapshot: EMBEDDED }, cache: fromCache(cache(T - 1, [['stations', 1000, 3]])) })
    expect(older.catalog.origin.source).toBe('embedded')
    expect(older.cacheGroupsUsed).toEqual([])
    expect(epochDayOf(older, 1000)).toBe(25)
    const tie = plan({ base: { source: 'embedded', snapshot: EMBEDDED }, cache: fromCache(cache(T, [['stations', 1000, 3]])) })
    expect(tie.catalog.origin.source).toBe('cache')
    expect(tie.cacheGroupsUsed).toEqual(['stations'])
  })

  test('a cache of some groups only (a --refresh-groups subset) is laid over the base: nothing is lost', () => {
    // A satellite in two groups: 3000 is in starlink (base) and in the refreshed stations (cache).
    const contents = cache(T + DAY, [['stations', 3000, 2]])
    const p = plan({ base: { source: 'embedded', snapshot: EMBEDDED }, cache: fromCache(contents) })
    expect(p.groupSources).toEqual({ stations: 'cache', weather: 'base', starlink: 'base' })
    expect(p.catalog.groupCounts).toEqual({ starlink: 5, stations: 2, weather: 4 })
    expect(p.catalog.get(1000)).toBeUndefined() // the base's stations are replaced by the cache's
    expect(p.catalog.get(2003)?.groups).toEqual(['weather'])
    expect(p.catalog.get(3000)?.groups).toEqual(['starlink', 'stations'])
    expect(epochDayOf(p, 3000)).toBe(29) // the newer elements
    // Obtained when its oldest group was: all it holds is at least that fresh.
    expect(p.catalog.origin).toEqual({
      source: 'cache',
      obtainedAtMs: T,
      groupsObtainedAtMs: { stations: T + DAY, weather: T, starlink: T },
      groupSources: { stations: 'cache', weather: 'embedded', starlink: 'embedded' },
    })
  })

  test('groups only the cache holds are kept even when the base is newer; each satellite keeps the newest set either holds', () => {
    const p = plan({ base: { source: 'embedded', snapshot: EMBEDDED }, cache: fromCache(cache(T - DAY, [['stations', 1000, 3], ['gps-ops', 4000, 2]])) })
    expect(p.groupSources).toMatchObject({ stations: 'base', 'gps-ops': 'cache' })
    expect(p.catalog.groupCounts['gps-ops']).toBe(2)
    // stations comes from the base (stamped later), but the cache's sets of its satellites are newer (29 May, not 25).
    expect(epochDayOf(p, 1000)).toBe(29)
  })

  test("each cache group counts from its own fetch time (a group carried over from an earlier round can be older than the base)", () => {
    const contents = cache(T + DAY, [['starlink', 3000, 5], ['stations', 1000, 3, T - 2 * DAY]])
    const p = plan({ base: { source: 'embedded', snapshot: EMBEDDED }, cache: fromCache(contents) })
    expect(p.groupSources).toEqual({ stations: 'base', weather: 'base', starlink: 'cache' })
    expect(p.cacheGroupsUsed).toEqual(['starlink'])
  })

  test('the sets counted and shown as skipped are those of the groups used: a base group the cache replaces says nothing', () => {
    // The base: a stations set dated after its group (refused), and a weather set the same; the cache, newer, replaces stations.
    const base = snapshot(T, [['stations', 1000, 3], ['weather', 2000, 4]])
    const late = (group: string, id: number) => ({ group, source: 'snapshot' as const, obtainedAtMs: T, text: tleText(syntheticGroup(id, 1, { epochDay: 160 })) })
    base.groups.push(late('stations', 1900), late('weather', 2900))
    const p = plan({ base: { source: 'snapshot', snapshot: base }, cache: fromCache(cache(T + DAY, [['stations', 1000, 3]])) })
    expect(p.groupSources).toEqual({ stations: 'cache', weather: 'base' })
    expect(p.invalidByGroup).toEqual({ weather: 1 })
    expect(p.examples).toEqual([expect.stringMatching(/^weather 2900: /)])
  })

  test('a cache that wins nothing is not even parsed', () => {
    const cached = fromCache(cache(T - DAY, [['stations', 1000, 3]]))
    plan({ base: { source: 'embedded', snapshot: EMBEDDED }, cache: cached })
    expect(cached.read).toBeUndefined()
  })

  test('a cache with a payload that is not what it says is ignored whole, with the reason', () => {
    const contents = cache(T + DAY, [['stations', 1000, 3]])
    contents.groups.push({ ...contents.groups[0]!, group: 'weather', text: 'not json' })
    const p = plan({ base: { source: 'embedded', snapshot: EMBEDDED }, cache: fromCache(contents) })
    expect(p.cacheIgnored).toMatch(/^group weather: expected OMM JSON/)
    expect(p.catalog.origin.source).toBe('embedded')
    expect(Object.values(p.groupSources)).toEqual(['base', 'base', 'base'])
  })
})

describe('obtained times in the future', () => {
  test('a cache claiming data from 2099 is ignored (it would win for ever)', () => {
    const p = plan({ base: { source: 'embedded', snapshot: EMBEDDED }, cache: fromCache(cache(Date.UTC(2099, 0, 1), [['stations', 1000, 3]])) })
    expect(p.cacheIgnored).toBe(
      `it says its data was obtained at 2099-01-01T00:00:00.000Z, more than a day after now (${new Date(NOW).toISOString()}): this machine's clock or the file is wrong`,
    )
    expect(p.catalog.origin.source).toBe('embedded')
  })

  test('one group fetched in the future is enough to distrust the cache', () => {
    const p = plan({ base: { source: 'embedded', snapshot: EMBEDDED }, cache: fromCache(cache(NOW, [['stations', 1000, 3], ['weather', 2000, 4, NOW + 30 * DAY]])) })
    expect(p.cacheIgnored).toMatch(/more than a day after now/)
  })

  test('up to a day ahead is clock skew between machines, and believed', () => {
    const p = plan({ base: { source: 'embedded', snapshot: EMBEDDED }, cache: fromCache(cache(NOW + CLOCK_SKEW_MS, [['stations', 1000, 3]])) })
    expect(p.cacheIgnored).toBeNull()
    expect(p.cacheGroupsUsed).toEqual(['stations'])
  })
})

test('the log line names the source, the base and the cache, and which groups each gave', () => {
  const inputs: StartInputs = { base: { source: 'snapshot', snapshot: { ...EMBEDDED, description: '/snap', datedBy: 'file time' } }, cache: fromCache(cache(T + DAY, [['stations', 1000, 3]])), nowMs: NOW }
  const result = planStart(inputs)
  if (!result.ok) throw new Error(result.error)
  expect(startLogFields(inputs, result.plan)).toEqual({
    source: 'cache',
    obtainedAt: new Date(T).toISOString(),
    satellites: 12,
    groups: { starlink: 5, stations: 3, weather: 4 },
    candidates: [
      { source: 'snapshot', from: '/snap', obtainedAt: new Date(T).toISOString(), datedBy: 'file time', groupsUsed: ['weather', 'starlink'] },
      { source: 'cache', from: '/data/catalog-cache.json', obtainedAt: new Date(T + DAY).toISOString(), groupsUsed: ['stations'] },
    ],
  })
})
