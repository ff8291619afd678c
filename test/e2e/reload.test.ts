/**
 * SIGHUP against the compiled executable (dist/sattrack): --snapshot is read
 * again; a newer file replaces the groups it is newer for, atomically, and the
 * log says what changed; a bad file, or none, changes nothing, is logged, and the
 * service keeps serving. Only loopback is contacted.
 */
import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { syntheticGroup, tleText } from '../fixtures/synthetic.ts'
import { type ServiceProcess, startService } from '../fixtures/service-process.ts'
import { requireExecutable } from './harness.ts'

const tmp = mkdtempSync(join(tmpdir(), 'sattrack-e2e-reload-'))
const folder = join(tmp, 'snapshot')
let service: ServiceProcess | undefined
afterAll(async () => {
  await service?.stop()
  rmSync(tmp, { recursive: true, force: true })
})

/** The nth log line with this message, once it is there. */
const logLine = (s: ServiceProcess, msg: string, nth = 1) =>
  s.waitFor(`log line ${JSON.stringify(msg)} #${nth}`, async () => s.logs().filter((l) => l.msg === msg)[nth - 1], 15_000)

test('SIGHUP reloads --snapshot: newer groups swapped in and logged; a bad file or a missing one changes nothing', async () => {
  mkdirSync(folder)
  // 28 May: stations 90000-90009, weather 91000-91004.
  writeFileSync(join(folder, 'stations.tle'), tleText(syntheticGroup(90000, 10, { epochDay: 148 })))
  writeFileSync(join(folder, 'weather.tle'), tleText(syntheticGroup(91000, 5, { epochDay: 148 })))
  service = await startService(['--snapshot', folder, '--data-dir', join(tmp, 'data')], 30_000, requireExecutable())
  const s = service
  expect((await s.get('/api/v1/satellites/90010')).status).toBe(404)
  const before = (await s.get('/api/v1/satellites/90000')).body.data
  expect(before.epoch).toStartWith('2026-05-28')
  const statusBefore = await s.status()

  // A newer stations file (30 May) with one satellite more; weather unchanged.
  writeFileSync(join(folder, 'stations.tle'), tleText(syntheticGroup(90000, 11, { epochDay: 150 })))
  s.signal('SIGHUP')
  const replaced = await logLine(s, 'reload: catalogue replaced')
  expect(replaced).toMatchObject({
    level: 'info',
    path: folder,
    satellitesBefore: 15,
    satellitesAfter: 16,
    added: 1,
    removed: 0,
    // The folder is dated by its newest element set (30 May): weather, unchanged, counts as obtained then too.
    obtainedAt: expect.stringMatching(/^2026-05-30T00:/),
  })
  expect(replaced.groupsReplaced.sort()).toEqual(['stations', 'weather'])
  expect(replaced.elementsChanged).toBe(10) // stations' ten; weather's sets are the same
  expect((await s.get('/api/v1/satellites/90010')).status).toBe(200)
  expect((await s.get('/api/v1/satellites/90000')).body.data.epoch).toStartWith('2026-05-30')
  expect((await s.get('/api/v1/satellites/91000')).body.data.epoch).toStartWith('2026-05-28')
  const statusAfter = await s.status()
  expect(statusAfter.catalog.obtainedAt).not.toBe(statusBefore.catalog.obtainedAt)

  // A bad file: nothing valid in it. Logged with the reason, nothing changes.
  writeFileSync(join(folder, 'stations.tle'), 'ISS (ZARYA)\nthis is not an element set\n')
  writeFileSync(join(folder, 'weather.tle'), '<html>oops</html>\n')
  s.signal('SIGHUP')
  const bad = await logLine(s, 'reload: --snapshot cannot be used; nothing changed')
  expect(bad).toMatchObject({ level: 'error', path: folder, reason: `no valid element sets in ${folder}` })
  expect((await s.get('/api/v1/satellites/90010')).status).toBe(200)
  expect((await s.status()).catalog).toEqual(statusAfter.catalog)

  // The file gone: logged, nothing changes, still serving.
  rmSync(folder, { recursive: true })
  s.signal('SIGHUP')
  const missing = await logLine(s, 'reload: --snapshot cannot be used; nothing changed', 2)
  expect(missing.reason).toContain('does not exist')
  expect((await s.get('/api/v1/satellites/90010')).status).toBe(200)
  expect(s.exitCode()).toBeNull()
  expect(await s.stop()).toBe(0)
  service = undefined
}, 90_000)

test('SIGHUP without --snapshot is logged and changes nothing (it does not stop the service)', async () => {
  const s = await startService(['--data-dir', join(tmp, 'data2')], 30_000, requireExecutable())
  try {
    s.signal('SIGHUP')
    const line = await logLine(s, 'SIGHUP: there is no --snapshot to reload; nothing changed')
    expect(line.level).toBe('warn')
    expect((await s.get('/api/v1/service/healthcheck')).status).toBe(200)
    expect(s.exitCode()).toBeNull()
  } finally {
    expect(await s.stop()).toBe(0)
  }
}, 60_000)
