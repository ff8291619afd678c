/**
 * The one overlay rule start-up, refresh and reload share: for each group the
 * newest source wins, a later layer on a tie; groups one layer alone holds are
 * kept; for each satellite the newest element set wins, whatever the date of
 * its source; a refused set keeps the satellite's set from a losing layer.
 */
import { expect, test } from 'bun:test'
import type { ElementGroup } from '../../../src/domain/catalog/groups.ts'
import { catalogOf, chooseNewest, layerOf, overlay, refusedSets } from '../../../src/domain/catalog/overlay.ts'
import { elementsOf, syntheticGroup } from '../../fixtures/synthetic.ts'

const DAY = 86_400_000
const T = Date.UTC(2026, 4, 30)

const group = (name: string, source: ElementGroup['source'], obtainedAtMs: number, firstId: number, count: number, epochDay: number): ElementGroup => ({
  group: name,
  source,
  obtainedAtMs,
  elements: syntheticGroup(firstId, count, { epochDay }).map(elementsOf),
})

test('each group from the layer that obtained it last; a tie goes to the later layer; groups one layer holds are kept', () => {
  const base = { source: 'embedded' as const, groups: [group('stations', 'embedded', T, 1000, 3, 145), group('weather', 'embedded', T, 2000, 2, 145), group('geo', 'embedded', T, 3000, 1, 145)] }
  const cache = { source: 'cache' as const, groups: [group('stations', 'cache', T + DAY, 1000, 3, 150), group('weather', 'cache', T - DAY, 2000, 2, 140), group('geo', 'cache', T, 3000, 1, 149), group('gps', 'cache', T - 5 * DAY, 4000, 2, 140)] }
  expect(Object.fromEntries(chooseNewest([base, cache]))).toEqual({ stations: 1, weather: 0, geo: 1, gps: 1 })
  const o = overlay([base, cache])
  expect(o.groupSources).toEqual({ stations: 'cache', weather: 'embedded', geo: 'cache', gps: 'cache' })
  expect(o.source).toBe('cache')
  const catalog = catalogOf(o, T)
  expect(catalog.groupCounts).toEqual({ geo: 1, gps: 2, stations: 3, weather: 2 })
  // Said to be obtained when its oldest group was (gps, 5 days before T): all it serves is at least that fresh.
  expect(catalog.origin).toEqual({
    source: 'cache',
    obtainedAtMs: T - 5 * DAY,
    groupsObtainedAtMs: { stations: T + DAY, weather: T, geo: T, gps: T - 5 * DAY },
    groupSources: { stations: 'cache', weather: 'embedded', geo: 'cache', gps: 'cache' },
  })
  // Only the older layer gives anything: the catalogue is said to come from it.
  expect(overlay([base, { source: 'cache', groups: [group('stations', 'cache', T - DAY, 1000, 3, 140)] }]).source).toBe('embedded')
})

test('a refused set keeps the satellite the set a losing layer holds for it in that group; others are not added', () => {
  const held = { source: 'snapshot' as const, groups: [group('stations', 'snapshot', T, 1000, 4, 145)] }
  const fresh = group('stations', 'refresh', T + DAY, 1000, 4, 150)
  // The round refused 1001 and 1003; 1003 was never held, and 1002 came in fine.
  const round: ElementGroup = {
    ...fresh,
    elements: fresh.elements!.filter((e) => e.noradId !== 1001 && e.noradId !== 1003),
    refused: [
      { noradId: 1001, reason: 'x' },
      { noradId: 1003, reason: 'y' },
    ],
  }
  held.groups[0]!.elements = held.groups[0]!.elements!.filter((e) => e.noradId !== 1003)
  const o = overlay([held, { source: 'refresh', groups: [round] }])
  expect(o.keptForRefused).toEqual({ stations: 1 })
  const catalog = catalogOf(o, T)
  expect(catalog.satellites.map((s) => s.noradId)).toEqual([1000, 1001, 1002])
  expect(catalog.get(1001)!.elements).toBe(held.groups[0]!.elements!.find((e) => e.noradId === 1001)!)
  expect(catalog.get(1002)!.elements).toBe(round.elements!.find((e) => e.noradId === 1002)!)
})

test('a catalogue as a layer competes by the same rule: its groups keep their own times and sources', () => {
  const o = overlay([
    { source: 'embedded', groups: [group('stations', 'embedded', T, 1000, 2, 145), group('weather', 'embedded', T, 2000, 2, 145)] },
    { source: 'refresh', groups: [group('stations', 'refresh', T + DAY, 1000, 2, 150)] },
  ])
  const held = catalogOf(o, T)
  const layer = layerOf(held)
  expect(layer.groups.map((g) => [g.group, g.source, g.obtainedAtMs, g.elements!.length])).toEqual([
    ['stations', 'refresh', T + DAY, 2],
    ['weather', 'embedded', T, 2],
  ])
  // A reloaded file older than the refreshed group replaces only what it is newer than.
  const reloaded = overlay([layer, { source: 'snapshot', groups: [group('stations', 'snapshot', T + DAY / 2, 1000, 2, 149), group('weather', 'snapshot', T + DAY / 2, 2000, 3, 149)] }])
  expect(reloaded.groupSources).toEqual({ stations: 'refresh', weather: 'snapshot' })
  expect(catalogOf(reloaded, T).groupCounts).toEqual({ stations: 2, weather: 3 })
})

test('an older set never replaces a newer one: a source dated later but holding older sets rolls nothing back', () => {
  // The catalogue held: stations refreshed on T + DAY with sets of day 150.
  const held = { source: 'refresh' as const, groups: [group('stations', 'refresh', T + DAY, 1000, 3, 150)] }
  // A crafted file, dated later (written after), whose sets for 1000-1002 are older (day 140), plus one new satellite.
  const crafted = { source: 'snapshot' as const, groups: [group('stations', 'snapshot', T + 2 * DAY, 1000, 4, 140)] }
  const o = overlay([held, crafted])
  expect(o.groupSources).toEqual({ stations: 'snapshot' }) // the group's membership is the file's
  expect(o.keptNewer).toEqual({ stations: 3 })
  const catalog = catalogOf(o, T)
  expect(catalog.satellites.map((s) => [s.noradId, new Date(s.elements.epochMs).getUTCDate()])).toEqual([
    [1000, 30], // day 150: the held sets stay
    [1001, 30],
    [1002, 30],
    [1003, 20], // day 140: the file's new satellite
  ])
})

test('a source dated earlier still brings the newer sets it holds (nothing blocks a later file)', () => {
  // The catalogue held claims stations was obtained late (a file dated far ahead, say) but holds day-140 sets.
  const held = { source: 'snapshot' as const, groups: [group('stations', 'snapshot', T + 10 * DAY, 1000, 3, 140)] }
  const real = { source: 'snapshot' as const, groups: [group('stations', 'snapshot', T + DAY, 1000, 3, 150)] }
  const o = overlay([held, real])
  expect(o.groupSources).toEqual({ stations: 'snapshot' })
  expect(o.fromLayer).toEqual({ stations: 0 }) // the held group wins by date…
  const catalog = catalogOf(o, T)
  // …but every satellite gets the newer set of the real file.
  expect(catalog.satellites.map((s) => new Date(s.elements.epochMs).getUTCDate())).toEqual([30, 30, 30])
})

test('a set that could not be read, naming its satellite, keeps the satellite with its held set; one naming nobody cannot', () => {
  const held = { source: 'snapshot' as const, groups: [group('stations', 'snapshot', T, 1000, 3, 145)] }
  const fresh = group('stations', 'refresh', T + DAY, 1000, 3, 150)
  const round: ElementGroup = {
    ...fresh,
    elements: fresh.elements!.filter((e) => e.noradId === 1000),
    refused: [
      { noradId: 1001, reason: 'line 4: line 2 checksum mismatch', line: 4 },
      { noradId: null, reason: 'line 7: catalog numbers of lines 1 and 2 differ', line: 7 },
    ],
  }
  const o = overlay([held, { source: 'refresh', groups: [round] }])
  expect(o.keptForRefused).toEqual({ stations: 1 })
  const catalog = catalogOf(o, T)
  expect(catalog.satellites.map((s) => s.noradId)).toEqual([1000, 1001])
  expect(refusedSets([round], catalog)).toEqual([
    { group: 'stations', noradId: 1001, reason: 'line 4: line 2 checksum mismatch', satelliteKept: true },
    { group: 'stations', noradId: null, reason: 'line 7: catalog numbers of lines 1 and 2 differ', satelliteKept: false },
  ])
})
