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

/** May 2026, day `d`: the files' times. */
const day = (d: number) => new Date(Date.UTC(2026, 4, d))

/** A new folder of `tmp`, and how to write a file in it with a modification time. */
function folder(name: string) {
  const dir = join(tmp, name)
  mkdirSync(dir)
  const write = (file: string, text: string, at: Date) => {
    writeFileSync(join(dir, file), text)
    utimesSync(join(dir, file), at, at)
  }
  return { dir, write }
}

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
  const { dir, write } = folder('unreadable')
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

test('a group whose newer file is cut short, or holds fewer than half its satellites, keeps what it had (as a refresh refuses them); the others are taken', async () => {
  const { dir, write } = folder('guards')
  // 28 May: stations 90000-90019, weather 91000-91009, science 92000-92009.
  write('stations.tle', tleText(syntheticGroup(90000, 20, { epochDay: 148 })), day(28))
  write('weather.tle', tleText(syntheticGroup(91000, 10, { epochDay: 148 })), day(28))
  write('science.tle', tleText(syntheticGroup(92000, 10, { epochDay: 148 })), day(28))
  const store = new CatalogStore(catalogFromSnapshot(await loadSnapshotPath(dir), 'snapshot', Date.now()).catalog)

  // 30 May: stations copied in part (cut inside its 8th set), weather down to 4 of 10, science whole and newer.
  const stations = tleText(syntheticGroup(90000, 20, { epochDay: 150 }))
  const cut = stations.indexOf('2 90007') + 30
  write('stations.tle', stations.slice(0, cut), day(30))
  write('weather.tle', tleText(syntheticGroup(91000, 4, { epochDay: 150 })), day(30))
  write('science.tle', tleText(syntheticGroup(92000, 10, { epochDay: 150 })), day(30))
  const lines = await reload(store, dir)
  expect(lines.find((l) => l.msg === 'reload: groups of --snapshot not taken; each keeps what it had (a new one is not added)')).toMatchObject({
    level: 'warn',
    refusedGroups: { stations: 'its file ends inside an element set (cut short?)', weather: '4 satellites, fewer than half of the 10 it holds' },
  })
  // The cut set is not reported as a set skipped: its group was not taken at all.
  expect(lines.find((l) => l.msg === 'reload: skipped invalid element sets')).toBeUndefined()
  const replaced = lines.find((l) => l.msg === 'reload: catalogue replaced')
  expect(replaced).toMatchObject({ groupsReplaced: ['science'], groupsKept: ['stations', 'weather'], added: 0, removed: 0, elementsChanged: 10 })
  expect(store.current.groupCounts).toMatchObject({ stations: 20, weather: 10, science: 10 })
  expect(store.current.get(90019)?.epoch).toStartWith('2026-05-28')
  expect(store.current.get(91009)?.epoch).toStartWith('2026-05-28')
  expect(store.current.get(92000)?.epoch).toStartWith('2026-05-30')

  // Whole again: taken (a group may grow or change freely; only a cut or a fall below half is refused).
  write('stations.tle', stations, day(31))
  const whole = (await reload(store, dir)).find((l) => l.msg === 'reload: catalogue replaced')
  expect(whole).toMatchObject({ groupsReplaced: ['stations'], elementsChanged: 20 })

  // A new group's file cut short, and nothing else new: not added, and the log does not say the file brings nothing new.
  const geo = tleText(syntheticGroup(93000, 6, { epochDay: 150 }))
  write('geo.tle', geo.slice(0, geo.indexOf('2 93003') + 30), day(31))
  const cutNew = await reload(store, dir)
  expect(cutNew.find((l) => l.msg === 'reload: groups of --snapshot not taken; each keeps what it had (a new one is not added)')?.refusedGroups).toEqual({
    geo: 'its file ends inside an element set (cut short?)',
    weather: '4 satellites, fewer than half of the 10 it holds', // still there, still refused
  })
  expect(cutNew.find((l) => l.msg.startsWith('reload: --snapshot brings nothing new'))?.msg).toBe('reload: --snapshot brings nothing new that can be taken; nothing swapped')
  expect(store.current.groupCounts.geo).toBeUndefined()
})

test('the skipped-sets line of a reload gives examples of the sets skipped, not of the files that could not be read', async () => {
  const { dir, write } = folder('examples')
  write('stations.tle', tleText(syntheticGroup(90000, 10, { epochDay: 148 })), day(28))
  const store = new CatalogStore(catalogFromSnapshot(await loadSnapshotPath(dir), 'snapshot', Date.now()).catalog)
  for (const name of ['geo', 'military', 'oneweb']) write(`${name}.tle`, '<html><body>not elements</body></html>\n', day(30))
  // One set of a newer stations file fails its checksum.
  const text = tleText(syntheticGroup(90000, 10, { epochDay: 150 })).split('\r\n')
  const at = text.findIndex((l) => l.startsWith('2 90003'))
  text[at] = text[at]!.slice(0, 68) + String((Number(text[at]![68]) + 1) % 10)
  write('stations.tle', text.join('\r\n'), day(30))
  const lines = await reload(store, dir)
  const skipped = lines.find((l) => l.msg === 'reload: skipped invalid element sets')
  expect(skipped).toMatchObject({ count: 1, byGroup: { stations: 1 } })
  expect(skipped.examples).toHaveLength(1)
  expect(skipped.examples[0]).toStartWith('stations 90003: line ')
  expect(Object.keys(lines.find((l) => l.msg === 'reload: files of --snapshot that cannot be read; their groups keep what they had').unreadableGroups)).toEqual(['geo', 'military', 'oneweb'])
})
