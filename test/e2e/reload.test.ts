/**
 * SIGHUP against the compiled executable (dist/sattrack): --snapshot is read
 * again; a newer file replaces the groups it is newer for, atomically, and the
 * log says what changed; a bad file, or none, changes nothing, is logged, and the
 * service keeps serving; a crafted file rolls nothing back and blocks nothing.
 * And a start that finds temporary cache files left by killed writers. Only
 * loopback is contacted.
 */
import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CACHE_FILE, processStart } from '../../src/io/cache.ts'
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

/**
 * What the status says of the catalogue held, without what moves with the clock (ages in days to a
 * thousandth, 86 s, and the summary quoting them), so two reads a moment apart compare equal.
 */
const held = ({ epochs, freshness, ...catalog }: Record<string, any>) => ({
  ...catalog,
  epochs: { oldest: epochs.oldest, newest: epochs.newest },
  freshness: { ...freshness, dataAgeDays: undefined, summary: undefined },
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
  })
  // Each file is dated by when it was written: weather's file did not change, so neither did its group.
  expect(replaced.groupsReplaced).toEqual(['stations'])
  expect(replaced.groupsKept).toEqual(['weather'])
  expect(replaced.elementsChanged).toBe(10) // stations' ten; weather's sets are the same
  expect((await s.get('/api/v1/satellites/90010')).status).toBe(200)
  expect((await s.get('/api/v1/satellites/90000')).body.data.epoch).toStartWith('2026-05-30')
  expect((await s.get('/api/v1/satellites/91000')).body.data.epoch).toStartWith('2026-05-28')
  const statusAfter = await s.status()
  expect(statusAfter.catalog.groupsObtainedAt.stations).not.toBe(statusBefore.catalog.groupsObtainedAt.stations)
  expect(statusAfter.catalog.groupsObtainedAt.weather).toBe(statusBefore.catalog.groupsObtainedAt.weather)

  // A bad file: nothing valid in it. Logged with the reason, nothing changes.
  writeFileSync(join(folder, 'stations.tle'), 'ISS (ZARYA)\nthis is not an element set\n')
  writeFileSync(join(folder, 'weather.tle'), '<html>oops</html>\n')
  s.signal('SIGHUP')
  const bad = await logLine(s, 'reload: --snapshot cannot be used; nothing changed')
  expect(bad).toMatchObject({ level: 'error', path: folder, reason: `no valid element sets in ${folder}`, unreadableGroups: { stations: expect.any(String), weather: expect.any(String) } })
  expect((await s.get('/api/v1/satellites/90010')).status).toBe(200)
  expect(held((await s.status()).catalog)).toEqual(held(statusAfter.catalog))

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

test('SIGHUP: a crafted file rolls nothing back and blocks nothing; sets that cannot be read keep theirs; unreadable and unchanged files are logged', async () => {
  const dir = join(tmp, 'crafted')
  mkdirSync(dir)
  const stations = join(dir, 'stations.tle')
  // 28 May: stations 90000-90009, weather 91000-91004.
  writeFileSync(stations, tleText(syntheticGroup(90000, 10, { epochDay: 148 })))
  writeFileSync(join(dir, 'weather.tle'), tleText(syntheticGroup(91000, 5, { epochDay: 148 })))
  const s = await startService(['--snapshot', dir, '--data-dir', join(tmp, 'data3')], 30_000, requireExecutable())
  const epochOf = async (id: number) => (await s.get(`/api/v1/satellites/${id}`)).body.data.epoch as string
  try {
    // A crafted file: the same satellites with older sets (18 May), and one set of 16 November (not after the file
    // was written, so it passes): dated by the file (now), never by that epoch.
    writeFileSync(stations, tleText([...syntheticGroup(90000, 10, { epochDay: 138 }), ...syntheticGroup(90100, 1, { epochDay: 320 })]))
    s.signal('SIGHUP')
    const crafted = await logLine(s, 'reload: catalogue replaced')
    expect(crafted).toMatchObject({ added: 1, elementsChanged: 0, olderSetsIgnored: 10, groupsReplaced: ['stations'] })
    expect(Date.parse(crafted.fileObtainedAt)).toBeGreaterThan(Date.now() - 60_000) // the file's time, not 16 November
    expect(await epochOf(90000)).toStartWith('2026-05-28') // not rolled back
    expect(await epochOf(90100)).toStartWith('2026-11-16')

    // The real file, newer sets (30 May), written with an older time than the crafted one (copied with cp -p, say):
    // its sets come in all the same.
    writeFileSync(stations, tleText(syntheticGroup(90000, 10, { epochDay: 150 })))
    const june = new Date(Date.UTC(2026, 5, 1))
    utimesSync(stations, june, june)
    s.signal('SIGHUP')
    const real = await logLine(s, 'reload: catalogue replaced', 2)
    expect(real).toMatchObject({ elementsChanged: 10, groupsKept: ['stations', 'weather'] })
    expect(await epochOf(90000)).toStartWith('2026-05-30')

    // Sets that cannot be read: 90003's line 2 fails its checksum, in a newer file. 90003 keeps the set it had, and says so.
    const lines = tleText(syntheticGroup(90000, 10, { epochDay: 151 })).split('\r\n')
    const at = lines.findIndex((l) => l.startsWith('2 90003'))
    lines[at] = lines[at]!.slice(0, 68) + String((Number(lines[at]![68]) + 1) % 10)
    writeFileSync(stations, lines.join('\r\n'))
    s.signal('SIGHUP')
    const third = await logLine(s, 'reload: catalogue replaced', 3)
    // 90100 is not in this file: it leaves the group (and the catalogue, having no other).
    expect(third).toMatchObject({ removed: 1, elementsChanged: 9, groupsReplaced: ['stations'] })
    const refused = await logLine(s, 'reload: element set refused')
    expect(refused).toMatchObject({ level: 'warn', path: dir, group: 'stations', noradId: 90003, reason: expect.stringContaining('line 2 checksum mismatch'), satelliteKept: true })
    expect(await epochOf(90003)).toStartWith('2026-05-30')
    expect(await epochOf(90004)).toStartWith('2026-05-31')

    // A file that cannot be read next to the others: logged, its group (new here) is not added, the rest unchanged.
    writeFileSync(join(dir, 'geo.tle'), '<html><body>not elements</body></html>\n')
    s.signal('SIGHUP')
    const unreadable = await logLine(s, 'reload: files of --snapshot that cannot be read; their groups keep what they had')
    expect(unreadable).toMatchObject({ level: 'warn', path: dir, unreadableGroups: { geo: 'not TLE, OMM JSON or OMM CSV: an HTML page' } })
    // Nothing else changed since: nothing is swapped, and the log says so.
    const unchanged = await logLine(s, 'reload: --snapshot brings nothing new; nothing swapped')
    expect(unchanged).toMatchObject({ level: 'info', added: 0, removed: 0, elementsChanged: 0, groupsChanged: 0, groupsReplaced: [] })
    expect(s.logs().filter((l) => l.msg === 'reload: catalogue replaced')).toHaveLength(3)
    rmSync(join(dir, 'geo.tle'))
    s.signal('SIGHUP')
    await logLine(s, 'reload: --snapshot brings nothing new; nothing swapped', 2)
    expect(s.logs().filter((l) => l.msg === 'reload: catalogue replaced')).toHaveLength(3)
    expect((await s.status()).catalog.groups).toEqual({ stations: 10, weather: 5 })
  } finally {
    expect(await s.stop()).toBe(0)
  }
}, 90_000)

test('a start removes the temporary cache files killed writers left, named with a dead or reused PID, and keeps a running writer\'s', async () => {
  const dataDir = join(tmp, 'data-temps')
  mkdirSync(dataDir)
  // Another running process: a writer sharing the data dir, say.
  const other = Bun.spawn(['sleep', '60'])
  const start = processStart(other.pid)
  const name = (writer: string) => `.${CACHE_FILE}.${writer}.0badcafe.tmp`
  const dead = name('4194999.1')
  const reused = name(`${other.pid}.${Number(start ?? 0) + 1}`)
  const writing = name(`${other.pid}.${start ?? 'x'}`)
  for (const n of [dead, reused, writing]) writeFileSync(join(dataDir, n), '{"kind":"sattrack-ca')
  const s = await startService(['--data-dir', dataDir], 30_000, requireExecutable())
  try {
    const line = s.logs().find((l) => l.msg === 'removed temporary cache files left by an interrupted write')
    expect(line?.files.sort()).toEqual((start === null ? [dead] : [dead, reused]).sort())
    expect(readdirSync(dataDir).sort()).toEqual((start === null ? [reused, writing] : [writing]).sort())
  } finally {
    other.kill()
    expect(await s.stop()).toBe(0)
  }
}, 60_000)
