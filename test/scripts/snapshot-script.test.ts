/**
 * `make snapshot FROM=PATH` (scripts/snapshot.ts --from, here with --into a
 * temporary folder in place of data/): every group goes through the same
 * reading step as a start, a refresh and a reload; a group with nothing valid,
 * or that cannot be read, leaves the folder as it was (exit code 1, a message
 * naming it); each refused set is printed with its satellite; undated files are
 * dated by when they were written, never by their epochs.
 */
import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { syntheticGroup, tleText } from '../fixtures/synthetic.ts'

const ROOT = resolve(import.meta.dir, '../..')
const tmp = mkdtempSync(join(tmpdir(), 'sattrack-make-snapshot-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const WRITTEN = new Date(Date.UTC(2026, 5, 1))

async function makeSnapshot(from: string, into: string) {
  const child = Bun.spawn([process.execPath, join(ROOT, 'scripts/snapshot.ts'), '--from', from, '--into', into], { stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  await child.exited
  return { code: child.exitCode, stdout, stderr }
}

/** A data folder as it is before: one group and SOURCE. */
function dataFolder(name: string): { dir: string; before: Record<string, string> } {
  const dir = join(tmp, name)
  mkdirSync(dir)
  writeFileSync(join(dir, 'stations.tle'), tleText(syntheticGroup(80000, 3, { epochDay: 140 })))
  writeFileSync(join(dir, 'SOURCE'), 'stamp: 2026-05-20T00:00:00.000Z\nsource: before\n')
  return { dir, before: contents(dir) }
}

const contents = (dir: string) => Object.fromEntries(readdirSync(dir).sort().map((n) => [n, readFileSync(join(dir, n), 'utf8')]))

/** An input folder of group files, each written on 1 June. */
function input(name: string, groups: Record<string, string>): string {
  const dir = join(tmp, name)
  mkdirSync(dir)
  for (const [file, text] of Object.entries(groups)) {
    writeFileSync(join(dir, file), text)
    utimesSync(join(dir, file), WRITTEN, WRITTEN)
  }
  return dir
}

test('a group whose every set fails validation leaves data/ as it was, names the group and prints each refused set', async () => {
  const { dir, before } = dataFolder('data-future')
  // weather is fine; every stations set is dated after the file was written plus a day (day 160: 9 June).
  const from = input('in-future', { 'stations.tle': tleText(syntheticGroup(90000, 3, { epochDay: 160 })), 'weather.tle': tleText(syntheticGroup(91000, 2, { epochDay: 151 })) })
  const result = await makeSnapshot(from, dir)
  expect(result.code).toBe(1)
  expect(result.stderr).toContain('make snapshot: group stations holds no valid element set (3 refused); data/ is unchanged')
  for (const id of [90000, 90001, 90002]) {
    expect(result.stderr).toMatch(new RegExp(`make snapshot: element set refused: stations ${id}: its epoch 2026-06-09T.* is more than a day after its group was obtained \\(2026-06-01T00:00:00.000Z\\)`))
  }
  expect(contents(dir)).toEqual(before)
}, 30_000)

test('a group that cannot be read leaves data/ as it was', async () => {
  const { dir, before } = dataFolder('data-html')
  const from = input('in-html', { 'stations.tle': tleText(syntheticGroup(90000, 3, { epochDay: 151 })), 'weather.tle': '<html><body>503</body></html>\n' })
  const result = await makeSnapshot(from, dir)
  expect(result.code).toBe(1)
  expect(result.stderr).toContain('make snapshot: group weather: not TLE, OMM JSON or OMM CSV: an HTML page; data/ is unchanged')
  expect(contents(dir)).toEqual(before)
}, 30_000)

test('good groups replace data/: files as published, refused sets printed, dated by the files, never by an epoch', async () => {
  const { dir } = dataFolder('data-good')
  const good = tleText(syntheticGroup(90000, 3, { epochDay: 151 }))
  // One set of weather dated 16 November: it cannot date the data, and is refused against the file's time.
  const weather = tleText([...syntheticGroup(91000, 2, { epochDay: 151 }), ...syntheticGroup(91100, 1, { epochDay: 320 })])
  const from = input('in-good', { 'stations.tle': good, 'weather.tle': weather })
  const result = await makeSnapshot(from, dir)
  expect(result.code).toBe(0)
  expect(result.stderr).toMatch(/make snapshot: element set refused: weather 91100: its epoch 2026-11-16T/)
  expect(result.stdout).toContain('data/: 2 groups, 5 valid element sets (1 refused), stamp 2026-06-01T00:00:00.000Z')
  const after = contents(dir)
  expect(Object.keys(after)).toEqual(['SOURCE', 'snapshot.json', 'stations.tle', 'weather.tle'])
  expect(after['stations.tle']).toBe(good)
  expect(after['weather.tle']).toBe(weather)
  expect(after.SOURCE).toBe('stamp: 2026-06-01T00:00:00.000Z\nsource: in-good (dated by file time)\n')
  expect(JSON.parse(after['snapshot.json']!)).toMatchObject({ stamp: '2026-06-01T00:00:00.000Z', groups: { stations: good, weather } })
}, 30_000)
