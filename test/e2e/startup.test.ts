/**
 * What a real start uses, end to end: an unusable --snapshot is an error however
 * old its file; a copied snapshot folder is dated by its files (the copy), never
 * by its element sets, and refreshed at once all the same because its sets are
 * stale; a cache claiming a time in the future is reported and ignored. Only
 * loopback is contacted.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { cpSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readCache, writeCache } from '../../src/io/cache.ts'
import { ommJson, syntheticGroup } from '../fixtures/synthetic.ts'
import { ROOT, runToExit, oldSnapshotOr, type ServiceProcess, startService } from '../fixtures/service-process.ts'
import { type MockUpstream, startMockUpstream } from '../fixtures/upstream.ts'

const FALLBACK_SNAPSHOT = join(ROOT, 'test/fixtures/elements')
const tmp = mkdtempSync(join(tmpdir(), 'sattrack-e2e-start-'))
let upstream: MockUpstream

beforeAll(() => {
  upstream = startMockUpstream({ stations: syntheticGroup(90000, 40, { epochDay: 160 }) })
})
afterAll(async () => {
  await upstream?.stop()
  rmSync(tmp, { recursive: true, force: true })
})

test('an unusable --snapshot exits 2 with one line, even when its file is old', async () => {
  const path = join(tmp, 'stations.tle')
  writeFileSync(path, 'ISS (ZARYA)\nthis is not an element set\n')
  const old = new Date(Date.UTC(2020, 0, 1))
  utimesSync(path, old, old)
  const result = await runToExit(['--snapshot', path, '--data-dir', join(tmp, 'unused')])
  expect(result.exitCode).toBe(2)
  expect(result.stderr.trim().split('\n')).toEqual([`sattrack: no valid element sets in ${path} (first: stations: not TLE, OMM JSON or OMM CSV: text starting "ISS (ZARYA)?this is not an element set?")`])
}, 30_000)

test('a copied snapshot folder is dated by its files, not its epochs; a cache from 2099 is ignored; the old data is refreshed at once', async () => {
  // `cp -r` of a snapshot into a folder whose name carries no stamp: every file time is now.
  const source = oldSnapshotOr(FALLBACK_SNAPSHOT, 'startup-e2e')
  const folder = join(tmp, 'copied')
  const copiedAt = Date.now()
  cpSync(source, folder, { recursive: true })
  const dataDir = join(tmp, 'data')
  const future = Date.UTC(2099, 0, 1)
  await writeCache(dataDir, {
    obtainedAtMs: future,
    source: 'refresh',
    description: upstream.url,
    groups: [{ group: 'stations', source: 'refresh', format: 'json', text: ommJson(syntheticGroup(90000, 5, { epochDay: 150 })), obtainedAtMs: future, etag: '"x"', lastModified: null }],
  })

  let service: ServiceProcess | undefined
  try {
    service = await startService(['--snapshot', folder, '--data-dir', dataDir, '--refresh-url', upstream.url, '--refresh-interval', '1h', '--refresh-groups', 'stations'])
    const loaded = service.logs().find((l) => l.msg === 'catalogue loaded')!
    expect(loaded.source).toBe('snapshot')
    expect(Date.parse(loaded.obtainedAt)).toBeGreaterThanOrEqual(copiedAt - 1000)
    expect(loaded.candidates[0]).toMatchObject({ source: 'snapshot', datedBy: 'file time' })
    const ignored = service.logs().find((l) => l.msg === 'ignoring the cache in the data dir')
    expect(ignored).toMatchObject({ level: 'warn', reason: expect.stringContaining('2099-01-01T00:00:00.000Z, more than a day after now') })

    // Months-old element sets: the first round is due at once (by the copy's date alone it would wait an hour).
    const status = await service.waitFor('a refreshed catalogue', async () => {
      const s = await service!.status()
      return s.catalog.source === 'refresh' && s
    })
    expect(status.refresh.lastError).toBeNull()
    expect(upstream.requests.some((r) => r.headers.get('if-none-match') !== null)).toBe(false) // nothing taken from the ignored cache
    // The next cache is a good one, with a believable time.
    const cache = await service.waitFor('a new cache', async () => {
      const read = await readCache(dataDir)
      return read.kind === 'ok' && read.cache.obtainedAtMs < future && read
    })
    expect(cache.cache.obtainedAtMs).toBeLessThanOrEqual(Date.now())
    expect(await service.stop()).toBe(0)
    service = undefined
  } finally {
    await service?.kill()
  }
}, 60_000)
