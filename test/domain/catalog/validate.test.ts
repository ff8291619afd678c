/**
 * Load-time validation beyond parsing: element sets SGP4 cannot initialise,
 * epochs more than a day after their group was obtained, and names with control
 * characters are refused with a reason, from every source; a refused set never
 * replaces a good one the service already holds. Synthetic element sets, TLE
 * lines with valid checksums.
 */
import { afterAll, expect, test } from 'bun:test'
import { buildCatalog } from '../../../src/domain/catalog/catalog.ts'
import { parseTleText } from '../../../src/domain/catalog/elements.ts'
import { type Logger, logRefusedSets, Refresher } from '../../../src/io/refresh.ts'
import { MAX_LOGGED_REFUSALS } from '../../../src/domain/catalog/overlay.ts'
import { catalogFromSnapshot } from '../../../src/domain/catalog/snapshot.ts'
import { CatalogStore } from '../../../src/domain/catalog/store.ts'
import { FUTURE_EPOCH_MARGIN_MS, MAX_NAME_LENGTH, refusalOf, validateElementSets } from '../../../src/domain/catalog/validate.ts'
import { elementsOf, ommRecord, syntheticGroup, tleText } from '../../fixtures/synthetic.ts'
import { startMockUpstream } from '../../fixtures/upstream.ts'

const OBTAINED = Date.UTC(2026, 4, 30, 12)
/** A set SGP4 gives up on at once: 19.9 rev/day is below the surface (error 6). */
const DECAYED = { NORAD_CAT_ID: 90101, OBJECT_NAME: 'SYNTH DECAYED', MEAN_MOTION: 19.9, ECCENTRICITY: 0 }
const FUTURE = { NORAD_CAT_ID: 90102, OBJECT_NAME: 'SYNTH FUTURE', EPOCH: '2026-06-01T12:00:01.000000' }

/** The set as read back from 3LE text (valid checksums), so the TLE path is what is checked. */
const fromTle = (overrides: Parameters<typeof ommRecord>[0]) => {
  const { elements, invalid } = parseTleText(tleText([ommRecord(overrides)]))
  expect(invalid).toEqual([])
  return elements[0]!
}

test('a sound set passes; an epoch up to a day after the obtained time passes, one later is refused with both times', () => {
  expect(refusalOf(fromTle({}), OBTAINED)).toBeNull()
  const aDayAhead = fromTle({ EPOCH: '2026-05-31T12:00:00.000000' })
  expect(aDayAhead.epochMs).toBe(OBTAINED + FUTURE_EPOCH_MARGIN_MS)
  expect(refusalOf(aDayAhead, OBTAINED)).toBeNull()
  expect(refusalOf(fromTle(FUTURE), OBTAINED)).toBe(
    'its epoch 2026-06-01T12:00:01.000Z is more than a day after its group was obtained (2026-05-30T12:00:00.000Z)',
  )
})

test('a set SGP4 cannot initialise is refused with its error, read from TLE or OMM alike', () => {
  const reason = 'SGP4 cannot initialise it (error 6: the orbit has decayed (below the Earth surface))'
  expect(refusalOf(fromTle(DECAYED), OBTAINED)).toBe(reason)
  expect(refusalOf(elementsOf(ommRecord(DECAYED)), OBTAINED)).toBe(reason)
})

test('names with control characters or beyond the length bound are refused (a 3LE line never splits)', () => {
  for (const name of ['BAD\nNAME', 'BAD\rNAME', 'BAD\u0000', 'ESC\u001b[31mRED', 'TAB\tNAME', 'NEL\u0085']) {
    expect(refusalOf(elementsOf(ommRecord({ OBJECT_NAME: name })), OBTAINED)).toBe('its name holds control characters')
  }
  expect(refusalOf(elementsOf(ommRecord({ OBJECT_NAME: 'X'.repeat(MAX_NAME_LENGTH) })), OBTAINED)).toBeNull()
  expect(refusalOf(elementsOf(ommRecord({ OBJECT_NAME: 'X'.repeat(MAX_NAME_LENGTH + 1) })), OBTAINED)).toBe(`its name is longer than ${MAX_NAME_LENGTH} characters`)
})

test('validateElementSets keeps the order of the accepted ones and names each refused one', () => {
  const sets = [fromTle({ NORAD_CAT_ID: 90001 }), fromTle(DECAYED), fromTle({ NORAD_CAT_ID: 90003 }), fromTle(FUTURE)]
  const { accepted, refused } = validateElementSets(sets, OBTAINED)
  expect(accepted.map((e) => e.noradId)).toEqual([90001, 90003])
  expect(refused.map((r) => r.noradId)).toEqual([90101, 90102])
})

test('a snapshot: refused sets are counted with the others rejected, with their reasons, and left out', () => {
  const text = tleText([ommRecord({ NORAD_CAT_ID: 90001 }), ommRecord(DECAYED), ommRecord(FUTURE)])
  const report = catalogFromSnapshot({ source: 'snapshot', obtainedAtMs: OBTAINED, description: 'test', groups: [{ group: 'stations', source: 'snapshot', obtainedAtMs: OBTAINED, text }] }, 'snapshot', OBTAINED)
  expect(report.catalog.satellites.map((s) => s.noradId)).toEqual([90001])
  expect(report.invalidByGroup).toEqual({ stations: 2 })
  expect(report.examples).toEqual([
    'stations 90101: SGP4 cannot initialise it (error 6: the orbit has decayed (below the Earth surface))',
    'stations 90102: its epoch 2026-06-01T12:00:01.000Z is more than a day after its group was obtained (2026-05-30T12:00:00.000Z)',
  ])
  // A cache group is judged against its own fetch time.
  const cached = catalogFromSnapshot(
    { source: 'cache', obtainedAtMs: OBTAINED + 2 * 86_400_000, description: 'cache', groups: [{ group: 'stations', source: 'cache', text, obtainedAtMs: OBTAINED + 2 * 86_400_000 }] },
    'cache',
    OBTAINED,
  )
  expect(cached.catalog.satellites.map((s) => s.noradId)).toEqual([90001, 90102])
})

const upstream = startMockUpstream({})
afterAll(() => upstream.stop())

test('a refresh: refused sets never replace the ones held, are logged with reasons, and the good ones come in', async () => {
  // Held: 90000..90039 from 28 May.
  const held = syntheticGroup(90000, 40, { epochDay: 148.5 })
  const store = new CatalogStore(buildCatalog([{ group: 'stations', elements: held.map(elementsOf) }], { source: 'snapshot', obtainedAtMs: OBTAINED - 86_400_000 }, OBTAINED))
  const initial = store.current
  // Upstream: newer elements for all forty, but 90001's decayed, 90002's dated in the future, 90003's name breaks lines,
  // and 90004's does not even parse (4 of 40: not more than the tenth that fails a group).
  const fresh = syntheticGroup(90000, 40, { epochDay: 150.4 })
  fresh[1] = { ...fresh[1]!, MEAN_MOTION: 19.9, ECCENTRICITY: 0 }
  fresh[2] = { ...fresh[2]!, EPOCH: '2026-06-05T00:00:00.000000' }
  fresh[3] = { ...fresh[3]!, OBJECT_NAME: 'SYNTH\r\n1 25544U FAKE' }
  fresh[4] = { ...fresh[4]!, ECCENTRICITY: 'x' as unknown as number }
  upstream.setGroup('stations', fresh)
  const entries: { message: string; fields?: Record<string, unknown> }[] = []
  const log: Logger = { info: (message, fields) => entries.push({ message, fields }), warn: (message, fields) => entries.push({ message, fields }), error: (message, fields) => entries.push({ message, fields }) }
  const refresher = new Refresher({
    store,
    settings: { url: upstream.url, intervalMs: 6 * 3_600_000, groups: ['stations'], format: 'json', timeoutMs: 10_000 },
    clock: () => OBTAINED,
    log,
  })
  const outcome = await refresher.refreshNow()
  expect(outcome.kind).toBe('changed')
  const now = store.current
  expect(now.size).toBe(40)
  // Nothing held is lost to bad data: refused or unreadable, each keeps the set it had.
  for (const id of [90001, 90002, 90003, 90004]) expect(now.get(id)!.elements).toBe(initial.get(id)!.elements)
  for (const id of [90000, 90005, 90039]) expect(now.get(id)!.elements.epochMs).toBeGreaterThan(initial.get(id)!.elements.epochMs)
  // One log line per satellite: whose, why, and that it keeps its set.
  const refusals = entries.filter((e) => e.message === 'refresh: element set refused')
  expect(refusals.map((e) => e.fields)).toEqual([
    { url: upstream.url, group: 'stations', noradId: 90004, reason: 'record 5: ECCENTRICITY is not a number in 0..1', satelliteKept: true },
    { url: upstream.url, group: 'stations', noradId: 90001, reason: expect.stringMatching(/^SGP4 cannot/), satelliteKept: true },
    { url: upstream.url, group: 'stations', noradId: 90002, reason: expect.stringMatching(/^its epoch 2026-06-05T00:00:00.000Z is more than a day after/), satelliteKept: true },
    { url: upstream.url, group: 'stations', noradId: 90003, reason: 'its name holds control characters', satelliteKept: true },
  ])
})

test('refusals past the first twenty are counted in one line', () => {
  const entries: { message: string; fields?: Record<string, unknown> }[] = []
  const log: Logger = { info() {}, error() {}, warn: (message, fields) => entries.push({ message, fields }) }
  const refused = Array.from({ length: 25 }, (_, i) => ({ group: i < 22 ? 'a' : 'b', noradId: i, reason: 'r', satelliteKept: i % 2 === 0 }))
  logRefusedSets(log, 'reload', refused, { path: '/x' })
  expect(entries).toHaveLength(MAX_LOGGED_REFUSALS + 1)
  expect(entries[0]).toEqual({ message: 'reload: element set refused', fields: { path: '/x', group: 'a', noradId: 0, reason: 'r', satelliteKept: true } })
  expect(entries.at(-1)).toEqual({ message: 'reload: more element sets refused', fields: { path: '/x', count: 5, byGroup: { a: 2, b: 3 }, satellitesKept: 3 } })
})

test('a refresh where more than a tenth of a group is refused fails that group and changes nothing', async () => {
  const held = syntheticGroup(90000, 10, { epochDay: 148.5 })
  const store = new CatalogStore(buildCatalog([{ group: 'stations', elements: held.map(elementsOf) }], { source: 'snapshot', obtainedAtMs: OBTAINED - 86_400_000 }, OBTAINED))
  const initial = store.current
  upstream.setGroup('stations', syntheticGroup(90000, 10, { epochDay: 160 }))
  const refresher = new Refresher({
    store,
    settings: { url: upstream.url, intervalMs: 6 * 3_600_000, groups: ['stations'], format: 'json', timeoutMs: 10_000 },
    clock: () => OBTAINED,
    log: { info() {}, warn() {}, error() {} },
  })
  const outcome = await refresher.refreshNow()
  expect(outcome.kind).toBe('failed')
  expect(outcome.kind === 'failed' && outcome.error).toMatch(/^stations: no valid element sets, 10 invalid \(first: 90000: its epoch 2026-06-09T00:00:00\.000Z is more than a day after/)
  expect(store.current).toBe(initial)
})
