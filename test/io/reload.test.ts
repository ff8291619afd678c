/**
 * reloadSnapshot (SIGHUP's reload of --snapshot) from a folder on disk: what its
 * log lines say the reload did. The executable's SIGHUP: test/e2e/reload.test.ts.
 */
import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { catalogFromSnapshot } from '../../src/domain/catalog/snapshot.ts'
import { CatalogStore } from '../../src/domain/catalog/store.ts'
import { log } from '../../src/io/log.ts'
import { reloadSnapshot } from '../../src/io/reload.ts'
import { loadSnapshotPath } from '../../src/io/snapshot-files.ts'
import { syntheticGroup, tleText } from '../fixtures/synthetic.ts'

const tmp = mkdtempSync(join(tmpdir(), 'sattrack-reload-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** Runs one reload of `dir` into `store` and gives its log lines. */
async function reload(store: CatalogStore, dir: string) {
  const lines: any[] = []
  log.configure({ sink: (line) => lines.push(JSON.parse(line)) })
  try {
    await reloadSnapshot(store, dir, () => {})
  } finally {
    log.configure({ sink: null })
  }
  return lines
}

test('a group whose file became unreadable keeps its sets, and the reload log lists it among the groups kept', async () => {
  const dir = join(tmp, 'unreadable')
  mkdirSync(dir)
  const day = (d: number) => new Date(Date.UTC(2026, 4, d))
  const write = (name: string, text: string, at: Date) => {
    writeFileSync(join(dir, name), text)
    utimesSync(join(dir, name), at, at)
  }
  // 28 May: science 92000-92002, stations 90000-90009, weather 91000-91004.
  write('science.tle', tleText(syntheticGroup(92000, 3, { epochDay: 148 })), day(28))
  write('stations.tle', tleText(syntheticGroup(90000, 10, { epochDay: 148 })), day(28))
  write('weather.tle', tleText(syntheticGroup(91000, 5, { epochDay: 148 })), day(28))
  const store = new CatalogStore(catalogFromSnapshot(await loadSnapshotPath(dir), 'snapshot', Date.now()).catalog)

  // 30 May: a newer stations file with one satellite more; weather's file turned into an HTML page.
  write('stations.tle', tleText(syntheticGroup(90000, 11, { epochDay: 150 })), day(30))
  write('weather.tle', '<html><body>not elements</body></html>\n', day(30))
  const lines = await reload(store, dir)
  expect(lines.find((l) => l.msg === 'reload: files of --snapshot that cannot be read; their groups keep what they had')?.unreadableGroups).toEqual({ weather: 'not TLE, OMM JSON or OMM CSV: an HTML page' })
  const replaced = lines.find((l) => l.msg === 'reload: catalogue replaced')
  expect(replaced).toMatchObject({ added: 1, removed: 0, satellitesBefore: 18, satellitesAfter: 19 })
  expect(replaced.groupsReplaced).toEqual(['stations'])
  expect(replaced.groupsKept).toEqual(['science', 'weather'])
  // It did keep them: weather's five satellites, with their sets of 28 May.
  expect(store.current.get(91000)?.groups).toEqual(['weather'])
  expect(store.current.get(91000)?.epoch).toStartWith('2026-05-28')

  // Nothing new next time: nothing swapped, every group listed as kept.
  const again = (await reload(store, dir)).find((l) => l.msg === 'reload: --snapshot brings nothing new; nothing swapped')
  expect(again).toMatchObject({ groupsReplaced: [], groupsKept: ['science', 'stations', 'weather'] })
})
