/**
 * End to end, the real process: started on the 2026-05-24 snapshot (older than
 * the embedded one, used all the same: --snapshot replaces it) with refresh
 * pointed at a loopback stand-in for CelesTrak that serves the embedded data as
 * OMM JSON plus a 6-digit OMM-only object; then upstream faults, a hang,
 * restarts with the same data dir (from the cache), a corrupted cache, and a
 * refresh of two groups that keeps the other six.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parseTleText } from '../../src/domain/catalog/elements.ts'
import { CACHE_FILE, READS_FILE, readCache } from '../../src/io/cache.ts'
import { catalogFromSnapshot } from '../../src/domain/catalog/snapshot.ts'
import { loadSnapshotPath } from '../../src/io/snapshot-files.ts'
import { ommRecord, recordsOf } from '../fixtures/synthetic.ts'
import { ROOT, runToExit, oldSnapshotOr, type ServiceProcess, startService } from '../fixtures/service-process.ts'
import { type MockUpstream, startMockUpstream } from '../fixtures/upstream.ts'
import { requireExecutable } from './harness.ts'

const FALLBACK_SNAPSHOT = join(ROOT, 'test/fixtures/elements/stations.tle')
const SIX_DIGIT = ommRecord({
  NORAD_CAT_ID: 270001,
  OBJECT_NAME: 'SYNTH OMM-ONLY',
  OBJECT_ID: '2026-123AB',
  EPOCH: '2026-05-30T06:00:00.123456',
  INCLINATION: 97.5,
  MEAN_MOTION: 15.2,
})

let upstream: MockUpstream
let embeddedCount = 0
/** The catalog numbers upstream serves in each group. */
const upstreamIds = new Map<string, Set<number>>()
const dataDir = mkdtempSync(join(tmpdir(), 'sattrack-e2e-refresh-'))
const snapshotArg = oldSnapshotOr(FALLBACK_SNAPSHOT, 'refresh-e2e')

beforeAll(async () => {
  // The embedded snapshot's groups, converted to OMM JSON as CelesTrak would serve them.
  const bundle = JSON.parse(readFileSync(join(ROOT, 'data/snapshot.json'), 'utf8')) as { groups: Record<string, string> }
  const groups: Record<string, ReturnType<typeof recordsOf>> = {}
  const ids = new Set<number>()
  for (const [group, text] of Object.entries(bundle.groups)) {
    const elements = parseTleText(text).elements
    for (const e of elements) ids.add(e.noradId)
    groups[group] = recordsOf(elements)
    upstreamIds.set(group, new Set(elements.map((e) => e.noradId)))
  }
  embeddedCount = ids.size
  groups.stations = [...groups.stations!, SIX_DIGIT]
  upstreamIds.get('stations')!.add(SIX_DIGIT.NORAD_CAT_ID)
  upstream = startMockUpstream(groups)
})
afterAll(async () => {
  await upstream?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

const args = () => [
  '--snapshot',
  snapshotArg,
  '--refresh-url',
  upstream.url,
  '--refresh-interval',
  '3s',
  '--refresh-timeout',
  '1s',
  '--data-dir',
  dataDir,
  // Every upstream group, also when the snapshot is the one-group fallback fixture.
  '--refresh-groups',
  [...upstreamIds.keys()].join(','),
]

describe('the service process with refresh', () => {
  let service: ServiceProcess | undefined
  afterAll(async () => {
    await service?.kill()
  })

  test('starts on --snapshot, refreshes at once from OMM JSON; the 6-digit object is served; the cache is written', async () => {
    // A slow upstream, so the round in progress can be seen.
    upstream.setFault({ kind: 'delay', ms: 600 })
    service = await startService(args())
    // The start chose --snapshot (older than the embedded snapshot: it is used in its place) and said so.
    const loaded = service.logs().find((l) => l.msg === 'catalogue loaded')!
    expect(loaded).toMatchObject({ source: 'snapshot', candidates: [{ source: 'snapshot', from: snapshotArg }] })
    expect(loaded.candidates).toHaveLength(1) // the data dir is empty: no cache

    const during = await service.waitFor('a round in progress', async () => {
      const s = await service!.status()
      return s.refresh.inProgress && s
    })
    upstream.setFault(null)
    expect(during.catalog.source).toBe('snapshot')
    if (snapshotArg !== FALLBACK_SNAPSHOT) expect(during.catalog.obtainedAt).toBe('2026-05-24T05:38:00.000Z')
    expect(during.refresh.lastAttemptAt).toMatch(/Z$/)
    expect(during.refresh.nextAttemptAt).toBeNull() // not a time before the attempt under way

    const status = await service.waitFor('a refreshed catalogue', async () => {
      const s = await service!.status()
      return s.catalog.source === 'refresh' && s
    })
    expect(Date.parse(status.refresh.nextAttemptAt)).toBeGreaterThan(Date.parse(status.refresh.lastAttemptAt))
    expect(status.catalog.satellites).toBe(embeddedCount + 1)
    expect(status.catalog.groups.stations).toBeGreaterThan(1)
    expect(status.refresh).toMatchObject({ enabled: true, url: upstream.url, intervalSeconds: 3, lastError: null, format: 'json' })
    expect(status.refresh.lastSuccessAt).toMatch(/Z$/)
    expect(upstream.requests.some((r) => r.headers.get('user-agent')?.startsWith('sattrack/'))).toBe(true)

    const six = await service.get('/api/v1/satellites/270001')
    expect(six.status).toBe(200)
    expect(six.body.data).toMatchObject({ noradId: 270001, tle: null, epoch: '2026-05-30T06:00:00.123Z', groups: ['stations'] })
    const position = await service.get('/api/v1/satellites/270001/geoposition?time=2026-05-30T07:00:00Z')
    expect(position.status).toBe(200)
    expect(position.body.altitude).toBeGreaterThan(300)
    const iss = await service.get('/api/v1/satellites/25544')
    expect(iss.body.data.tle.line1).toHaveLength(69)

    expect(service.logs().some((l) => l.level === 'warn' && l.msg === 'element sets are stale')).toBe(true)

    const cache = await service.waitFor('the cache file', async () => {
      const read = await readCache(dataDir)
      return read.kind === 'ok' && read
    })
    expect(cache.cache.groups.map((g) => g.format)).toContain('json')
  }, 60_000)

  test('a 500 and then a hang leave the catalogue as it was and show in lastError; the API answers throughout', async () => {
    const before = await service!.status()
    upstream.setFault({ kind: 'status', status: 500 })
    const failed = await service!.waitFor('a failed round', async () => {
      const s = await service!.status()
      return s.refresh.lastError !== null && s
    })
    expect(failed.refresh.lastError).toMatch(/HTTP 500/)
    expect(failed.catalog.satellites).toBe(before.catalog.satellites)
    expect(failed.catalog.loadedAt).toBe(before.catalog.loadedAt)
    // Backed off: a minute after a first failure, never more than the interval (3 s here).
    expect(Date.parse(failed.refresh.nextAttemptAt) - Date.parse(failed.refresh.lastAttemptAt)).toBeGreaterThanOrEqual(3_000)
    expect(failed.refresh.groupErrors.stations).toMatch(/^HTTP 500 \(9 bytes\) from /)

    upstream.setFault({ kind: 'hang' })
    const hung = await service!.waitFor(
      'a timed-out round',
      async () => {
        const s = await service!.status()
        expect((await service!.get('/api/v1/service/healthcheck')).body).toEqual({ message: 'OK' })
        return /no complete answer within 1s/.test(s.refresh.lastError ?? '') && s
      },
      30_000,
    )
    expect(hung.catalog.loadedAt).toBe(before.catalog.loadedAt)
    expect(hung.refresh.consecutiveFailures).toBe(2)
    expect((await service!.get('/api/v1/satellites/270001')).status).toBe(200)
  }, 60_000)

  test('SIGTERM stops it cleanly with exit code 0', async () => {
    expect(await service!.stop()).toBe(0)
    service = undefined
    upstream.setFault(null)
  }, 20_000)

  test('a restart with the same data dir starts from the cache', async () => {
    upstream.requests.length = 0
    service = await startService(args())
    const first = await service.status()
    expect(first.catalog.source).toBe('cache')
    const loaded = service.logs().find((l) => l.msg === 'catalogue loaded')!
    expect(loaded.candidates.map((c: { source: string; groupsUsed: string[] }) => [c.source, c.groupsUsed.length])).toEqual([
      ['snapshot', 0],
      ['cache', Object.keys(first.catalog.groups).length],
    ])
    expect(first.catalog.satellites).toBe(embeddedCount + 1)
    expect((await service.get('/api/v1/satellites/270001')).body.data.tle).toBeNull()
    // Its next round is conditional, and 304 changes nothing.
    const confirmed = await service.waitFor('a conditional round', async () => {
      const s = await service!.status()
      return s.refresh.lastSuccessAt !== null && s
    })
    expect(confirmed.catalog.source).toBe('cache')
    expect(upstream.requests.length).toBeGreaterThan(0)
    expect(upstream.requests.every((r) => r.headers.get('if-none-match') !== null)).toBe(true)
    // The whole list: what the catalogue holds, whatever its groups' times.
    const list = async () => Bun.hash(await (await fetch(`${service!.url}/api/v1/satellites`)).text())
    const held = await list()
    expect(await service.stop()).toBe(0)

    // `bun run` (not a release build) writes no reads file. The executable writes one with its first round (304s here)...
    expect(existsSync(join(dataDir, READS_FILE))).toBe(false)
    const executable = requireExecutable()
    const startLine = () => service!.logs().find((l) => l.msg === 'catalogue loaded')!
    service = await startService(args(), 30_000, executable)
    expect(startLine().cacheGroupsAsRead).toBeUndefined()
    expect(startLine().cacheReadsFileUnused).toBeUndefined() // there is none yet
    await service.waitFor('the reads file', async () => existsSync(join(dataDir, READS_FILE)))
    expect(await list()).toBe(held)
    expect(await service.stop()).toBe(0)
    // ... from which its next start takes every group as read (no parsing, no validation), serving the same list...
    service = await startService(args(), 30_000, executable)
    expect([...startLine().cacheGroupsAsRead].sort()).toEqual(Object.keys(first.catalog.groups).sort())
    expect(startLine().cacheReadsFileUnused).toBeUndefined()
    expect(await list()).toBe(held)
    expect(await service.stop()).toBe(0)
    // ... and which another build (a copy of the executable: another file time) does not use: it reads the payloads again.
    const copy = join(mkdtempSync(join(tmpdir(), 'sattrack-build-')), 'sattrack')
    copyFileSync(executable, copy)
    chmodSync(copy, 0o755)
    try {
      service = await startService(args(), 30_000, copy)
      expect(startLine().cacheGroupsAsRead).toBeUndefined()
      expect(startLine().cacheReadsFileUnused).toBe('another build wrote it (its payloads are read again after an upgrade)')
      expect(await list()).toBe(held)
      expect(await service.stop()).toBe(0)
    } finally {
      rmSync(dirname(copy), { recursive: true, force: true })
    }
    service = undefined
  }, 60_000)

  test('a corrupted cache is reported and ignored; the service starts, refreshes and writes a good one', async () => {
    const path = join(dataDir, CACHE_FILE)
    const text = readFileSync(path, 'utf8')
    writeFileSync(path, text.slice(0, Math.floor(text.length / 2)))
    service = await startService(args())
    const warned = service.logs().find((l) => l.msg === 'ignoring the cache in the data dir')
    expect(warned).toMatchObject({ level: 'warn', path })
    expect((await service.status()).catalog.source).not.toBe('cache')
    await service.waitFor('a refreshed catalogue', async () => (await service!.status()).catalog.source === 'refresh')
    await service.waitFor('a good cache again', async () => (await readCache(dataDir)).kind === 'ok')
    expect(await service.stop()).toBe(0)
    service = undefined

    writeFileSync(path, '\u0000\u0001 not a cache at all')
    service = await startService([...args(), '--refresh-interval', '1h'])
    expect((await service.status()).catalog.source).not.toBe('cache')
    expect(service.logs().some((l) => l.msg === 'ignoring the cache in the data dir')).toBe(true)
    expect(await service.stop()).toBe(0)
    service = undefined
  }, 60_000)
})

test('a refresh of some groups keeps the others, running and after a restart from the cache', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sattrack-e2e-subset-'))
  let service: ServiceProcess | undefined
  try {
    // What the catalogue must hold: the base's satellites of the groups not refreshed, and upstream's stations and weather.
    const base = catalogFromSnapshot(await loadSnapshotPath(snapshotArg), 'snapshot', Date.now()).catalog
    const refreshed = ['stations', 'weather']
    const expected = new Set([...refreshed.flatMap((g) => [...upstreamIds.get(g)!])])
    for (const s of base.satellites) if (s.groups.some((g) => !refreshed.includes(g))) expected.add(s.noradId)
    const expectedGroups = [...new Set([...Object.keys(base.groupCounts), ...refreshed])].sort()

    const subsetArgs = ['--snapshot', snapshotArg, '--refresh-url', upstream.url, '--refresh-interval', '1h', '--refresh-groups', refreshed.join(','), '--data-dir', dir]
    service = await startService(subsetArgs)
    const status = await service.waitFor('a refreshed catalogue', async () => {
      const s = await service!.status()
      return s.catalog.source === 'refresh' && s
    })
    expect(status.refresh.groups).toEqual(refreshed)
    expect(Object.keys(status.catalog.groups).sort()).toEqual(expectedGroups)
    expect(status.catalog.satellites).toBe(expected.size)
    expect(status.catalog.satellites).toBeGreaterThan(base.size / 2) // not just the two groups
    expect((await service.get('/api/v1/satellites/270001')).body.data.groups).toEqual(['stations'])
    const cache = await service.waitFor('the cache file', async () => {
      const read = await readCache(dir)
      return read.kind === 'ok' && read
    })
    expect(cache.cache.groups.map((g) => g.group).sort()).toEqual(refreshed) // the rest is in the base
    expect(await service.stop()).toBe(0)

    service = await startService(subsetArgs)
    const restarted = await service.status()
    expect(restarted.catalog.source).toBe('cache')
    expect(restarted.catalog.satellites).toBe(expected.size)
    expect(restarted.catalog.groups).toEqual(status.catalog.groups)
    expect(await service.stop()).toBe(0)
    service = undefined
  } finally {
    await service?.kill()
    rmSync(dir, { recursive: true, force: true })
  }
}, 90_000)

test('an interval below 2h for celestrak.org is refused at start, before any request', async () => {
  const result = await runToExit(['--refresh-url', 'https://celestrak.org/NORAD/elements/gp.php', '--refresh-interval', '30m'])
  expect(result.exitCode).toBe(2)
  expect(result.stderr.trim().split('\n')).toHaveLength(1)
  expect(result.stderr).toContain('at least 2h')
}, 30_000)
