/**
 * Prepared snapshots (the build parses and validates the snapshot and makes its
 * catalogue once, so the executable does not): the start's catalogue from the
 * prepared form is the one made by parsing the snapshot itself and choosing
 * each satellite's set again, with a cache competing or not.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { PREPARED_KIND, preparedBytes, snapshotFromPrepared } from '../../../src/domain/catalog/prepared.ts'
import { fromBundle } from '../../../src/domain/catalog/snapshot.ts'
import { planStart, type StartPlan } from '../../../src/domain/catalog/startup.ts'
import type { GroupSet } from '../../../src/domain/catalog/groups.ts'
import { catalogTransfer, catalogFromTransfer } from '../../../src/domain/catalog/transfer.ts'

const DATA = resolve(import.meta.dir, '../../../data')
const NOW = Date.UTC(2026, 4, 31)
const bundlePath = join(DATA, 'snapshot.json')
const parsedSnapshot = (): GroupSet => fromBundle(JSON.parse(readFileSync(bundlePath, 'utf8')), bundlePath, 'embedded')
const bytes = preparedBytes(parsedSnapshot())

function plan(base: GroupSet, cache: GroupSet | null = null): StartPlan {
  const result = planStart({ base: { source: 'embedded', snapshot: base }, cache, nowMs: NOW })
  if (!result.ok) throw new Error(result.error)
  return result.plan
}

function expectSamePlans(fromPrepared: StartPlan, parsed: StartPlan) {
  expect(fromPrepared.catalog.size).toBe(parsed.catalog.size)
  expect(fromPrepared.catalog.satellites).toEqual(parsed.catalog.satellites)
  expect(fromPrepared.catalog.groupCounts).toEqual(parsed.catalog.groupCounts)
  expect(Object.keys(fromPrepared.catalog.groupCounts)).toEqual(Object.keys(parsed.catalog.groupCounts))
  expect(fromPrepared.catalog.origin).toEqual(parsed.catalog.origin)
  expect(fromPrepared.catalog.version).toBe(parsed.catalog.version)
  expect(fromPrepared.groupSources).toEqual(parsed.groupSources)
  expect(fromPrepared.invalidByGroup).toEqual(parsed.invalidByGroup)
  expect(fromPrepared.examples).toEqual(parsed.examples)
}

describe('prepared snapshots', () => {
  test('the real snapshot: the start makes the same catalogue (satellites, element sets, groups, origin, version) and reports the same refusals as from parsing it', () => {
    const prepared = snapshotFromPrepared(bytes, 'prepared')
    expect(prepared.sorted?.length).toBeGreaterThan(11_000)
    expectSamePlans(plan(prepared), plan(parsedSnapshot()))
  })

  test('with a cache group competing, the groups read back make the same catalogue as the parsed snapshot does', () => {
    // A cache that won the stations group with an older, shorter payload: the base's other groups stay as they are.
    const parsed = parsedSnapshot()
    const stations = parsed.groups.find((g) => g.group === 'stations')!
    const cache = (): GroupSet => ({
      source: 'cache',
      description: 'cache',
      obtainedAtMs: NOW - 3_600_000,
      groups: [{ group: 'stations', source: 'cache', obtainedAtMs: NOW - 3_600_000, text: stations.text!.split('\n').slice(0, 9).join('\n') }],
    })
    const fromPrepared = plan(snapshotFromPrepared(bytes, 'prepared'), cache())
    const fromParsed = plan(parsedSnapshot(), cache())
    expect(fromPrepared.cacheGroupsUsed).toEqual(['stations'])
    expectSamePlans(fromPrepared, fromParsed)
  })

  test('more than 32 groups, a satellite in many of them: the same catalogue as parsing them', () => {
    // The stations group again under 35 more names: its satellites are in 36 (or more) groups each.
    const withCopies = (): GroupSet => {
      const set = parsedSnapshot()
      const stations = set.groups.find((g) => g.group === 'stations')!
      return { ...set, groups: [...set.groups, ...Array.from({ length: 35 }, (_, k) => ({ ...stations, group: `copy${k}` }))] }
    }
    const fromPrepared = plan(snapshotFromPrepared(preparedBytes(withCopies()), 'prepared'))
    expect(Object.keys(fromPrepared.catalog.groupCounts).length).toBe(43)
    expect(fromPrepared.catalog.get(25544)!.groups.length).toBeGreaterThanOrEqual(36)
    expectSamePlans(fromPrepared, plan(withCopies()))
  })

  test('a catalogue handed to another process and made again is the same catalogue', () => {
    const { catalog } = plan(snapshotFromPrepared(bytes, 'prepared'))
    const again = catalogFromTransfer(JSON.parse(JSON.stringify(catalogTransfer(catalog))))
    expect(again.satellites).toEqual(catalog.satellites)
    expect(again.version).toBe(catalog.version)
    expect(again.get(25544)?.name).toBe('ISS (ZARYA)')
    expect(again.get(25545)).toBeUndefined()
  })

  test('a file that is not a prepared snapshot, or is cut short, is refused with the way to rebuild it', () => {
    expect(() => snapshotFromPrepared(new TextEncoder().encode('{"kind":"sattrack-prepared-snapshot/1"}'), 'data/prepared.bin')).toThrow(
      `data/prepared.bin is not a prepared snapshot (${PREPARED_KIND}); rebuild it with make build`,
    )
    expect(() => snapshotFromPrepared(bytes.subarray(0, bytes.length - 100), 'x')).toThrow('not a prepared snapshot')
    // The magic, then a header that is not JSON.
    const damaged = bytes.slice()
    damaged.fill(0x7b, PREPARED_KIND.length + 5, PREPARED_KIND.length + 40)
    expect(() => snapshotFromPrepared(damaged, 'x')).toThrow('not a prepared snapshot')
  })
})
