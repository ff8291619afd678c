/** --snapshot in every form (TLE, OMM JSON, OMM CSV, folders, bundles) and building a catalogue from it. */
import { afterAll, describe, expect, test } from 'bun:test'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeCache } from '../../../src/io/cache.ts'
import { catalogFromSnapshot, SnapshotError } from '../../../src/domain/catalog/snapshot.ts'
import { loadSnapshotPath } from '../../../src/io/snapshot-files.ts'
import { ommCsv, ommJson, syntheticGroup, tleText } from '../../fixtures/synthetic.ts'

const FIXTURES = join(import.meta.dir, '../../fixtures/elements')
const tmp = mkdtempSync(join(tmpdir(), 'sattrack-snapshot-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const NOW = Date.UTC(2026, 4, 31)

async function catalogOf(path: string) {
  const report = catalogFromSnapshot(await loadSnapshotPath(path), 'snapshot', NOW)
  return report
}

describe('loadSnapshotPath', () => {
  test('a path that is missing, or neither a file nor a folder (a device): one sentence naming it', async () => {
    await expect(loadSnapshotPath('/nonexistent/snapshot')).rejects.toThrow('snapshot /nonexistent/snapshot does not exist or cannot be read')
    await expect(loadSnapshotPath('/dev/null')).rejects.toThrow('snapshot /dev/null is neither a file nor a folder')
  })

  test('one OMM JSON file: its name is the group; the 6-digit object has no TLE', async () => {
    const { catalog, invalidByGroup } = await catalogOf(join(FIXTURES, 'stations.json'))
    expect(invalidByGroup).toEqual({})
    expect(catalog.groupCounts).toEqual({ stations: 4 })
    expect(catalog.get(270001)?.elements.tle).toBeNull()
    expect(catalog.get(90001)?.elements.tle?.line1).toHaveLength(69)
  })

  test('one OMM CSV file and one 3LE file give the same satellites', async () => {
    const csv = (await catalogOf(join(FIXTURES, 'stations.csv'))).catalog
    const json = (await catalogOf(join(FIXTURES, 'stations.json'))).catalog
    const tle = (await catalogOf(join(FIXTURES, 'stations.tle'))).catalog
    expect(csv.version).toBe(json.version)
    expect(tle.satellites.map((s) => s.noradId)).toEqual([90001, 90002, 90003]) // 270001 has no TLE form
    for (const s of tle.satellites) expect(s.elements.tle).toEqual(json.get(s.noradId)!.elements.tle)
  })

  test('a folder mixing formats; its name gives the stamp; a bundle beside group files is not a group', async () => {
    const folder = join(tmp, '2026-06-01T1200Z')
    mkdirSync(folder)
    writeFileSync(join(folder, 'weather.json'), ommJson(syntheticGroup(92000, 3)))
    writeFileSync(join(folder, 'geo.csv'), ommCsv(syntheticGroup(93000, 2)))
    writeFileSync(join(folder, 'science.tle'), tleText(syntheticGroup(94000, 4)))
    writeFileSync(join(folder, 'snapshot.json'), JSON.stringify({ stamp: '2020-01-01T00:00:00Z', source: 'x', groups: {} }))
    writeFileSync(join(folder, 'notes.md'), '# not elements')
    const snapshot = await loadSnapshotPath(folder)
    expect(snapshot.obtainedAtMs).toBe(Date.UTC(2026, 5, 1, 12))
    expect(snapshot.datedBy).toBe('stamp')
    expect(snapshot.groups.map((g) => g.group).sort()).toEqual(['geo', 'science', 'weather'])
    const { catalog } = catalogFromSnapshot(snapshot, 'snapshot', NOW)
    expect(catalog.groupCounts).toEqual({ geo: 2, science: 4, weather: 3 })
  })

  test('a folder or file without a stamp: each file is dated by when it was written, never by its epochs', async () => {
    const folder = join(tmp, 'copied-with-cp-r')
    mkdirSync(folder)
    writeFileSync(join(folder, 'stations.tle'), tleText(syntheticGroup(92100, 3, { epochDay: 140 })))
    writeFileSync(join(folder, 'weather.json'), ommJson(syntheticGroup(92200, 2, { epochDay: 141.5 })))
    const stationsAt = new Date(Date.UTC(2026, 4, 21))
    const weatherAt = new Date(Date.UTC(2026, 4, 22))
    utimesSync(join(folder, 'stations.tle'), stationsAt, stationsAt)
    utimesSync(join(folder, 'weather.json'), weatherAt, weatherAt)
    const snapshot = await loadSnapshotPath(folder)
    expect(snapshot).toMatchObject({ obtainedAtMs: weatherAt.getTime(), datedBy: 'file time' })
    expect(snapshot.groups.map((g) => [g.group, g.obtainedAtMs])).toEqual([
      ['stations', stationsAt.getTime()],
      ['weather', weatherAt.getTime()],
    ])
    const file = await loadSnapshotPath(join(folder, 'stations.tle'))
    expect(file).toMatchObject({ obtainedAtMs: stationsAt.getTime(), datedBy: 'file time' })
    // Nothing is parsed to date it.
    expect(snapshot.read).toBeUndefined()
    const report = catalogFromSnapshot(snapshot, 'snapshot', NOW)
    expect(report.catalog.groupCounts).toEqual({ stations: 3, weather: 2 })
  })

  test('a crafted epoch cannot date a file: it is validated against the file time and refused', async () => {
    // One set dated 300 days into 2026 (late October) in a file written on 1 June: refused, whatever it says.
    const path = join(tmp, 'stations.json')
    writeFileSync(path, ommJson([...syntheticGroup(92300, 2, { epochDay: 150 }), ...syntheticGroup(92310, 1, { epochDay: 300 })]))
    const written = new Date(Date.UTC(2026, 5, 1))
    utimesSync(path, written, written)
    const snapshot = await loadSnapshotPath(path)
    expect(snapshot).toMatchObject({ obtainedAtMs: written.getTime(), datedBy: 'file time' })
    const report = catalogFromSnapshot(snapshot, 'snapshot', NOW)
    expect(report.catalog.satellites.map((s) => s.noradId)).toEqual([92300, 92301])
    expect(report.invalidByGroup).toEqual({ stations: 1 })
    expect(report.examples[0]).toMatch(/^stations 92310: its epoch 2026-10-27T.* is more than a day after its group was obtained \(2026-06-01T00:00:00.000Z\)$/)
  })

  test('a stamped folder name wins over the epochs', async () => {
    const folder = join(tmp, '2026-05-20T0000Z')
    mkdirSync(folder)
    writeFileSync(join(folder, 'stations.tle'), tleText(syntheticGroup(92400, 2, { epochDay: 145 })))
    expect(await loadSnapshotPath(folder)).toMatchObject({ obtainedAtMs: Date.UTC(2026, 4, 20), datedBy: 'stamp' })
  })

  test('a folder holding only a bundle, and a bundle file', async () => {
    const folder = join(tmp, 'bundle-only')
    mkdirSync(folder)
    const bundle = { stamp: '2026-06-02T00:00:00.000Z', source: 'test', groups: { stations: tleText(syntheticGroup(95000, 2)), extra: ommJson(syntheticGroup(96000, 1)) } }
    writeFileSync(join(folder, 'snapshot.json'), JSON.stringify(bundle))
    for (const path of [folder, join(folder, 'snapshot.json')]) {
      const snapshot = await loadSnapshotPath(path)
      expect(snapshot.obtainedAtMs).toBe(Date.UTC(2026, 5, 2))
      expect(catalogFromSnapshot(snapshot, 'snapshot', NOW).catalog.groupCounts).toEqual({ extra: 1, stations: 2 })
    }
  })

  test('a data-dir cache file copied from another install', async () => {
    const dir = join(tmp, 'copied-cache')
    const path = await writeCache(dir, {
      obtainedAtMs: Date.UTC(2026, 5, 3),
      source: 'refresh',
      description: 'http://127.0.0.1:9/gp.php',
      groups: [{ group: 'stations', source: 'refresh', format: 'json', text: ommJson(syntheticGroup(99000, 3)), obtainedAtMs: Date.UTC(2026, 5, 3), etag: null, lastModified: null }],
    })
    const snapshot = await loadSnapshotPath(path)
    expect(snapshot.obtainedAtMs).toBe(Date.UTC(2026, 5, 3))
    expect(catalogFromSnapshot(snapshot, 'snapshot', NOW).catalog.groupCounts).toEqual({ stations: 3 })
    writeFileSync(path, readFileSync(path, 'utf8').replace('SYNTH 99001', 'SYNTH 99009'))
    await expect(loadSnapshotPath(path)).rejects.toThrow('is a damaged cache: group stations fails its checksum')
  })

  test('the content decides the format, not the extension', async () => {
    const path = join(tmp, 'misnamed.txt')
    writeFileSync(path, ommCsv(syntheticGroup(97000, 2)))
    expect((await catalogOf(path)).catalog.groupCounts).toEqual({ misnamed: 2 })
  })

  test('errors a person can act on', async () => {
    await expect(loadSnapshotPath(join(tmp, 'missing'))).rejects.toThrow(SnapshotError)
    const empty = join(tmp, 'empty')
    mkdirSync(empty)
    await expect(loadSnapshotPath(empty)).rejects.toThrow('holds no <group>.tle, <group>.json or <group>.csv files')
    const bad = join(tmp, 'bad.json')
    writeFileSync(bad, '{"stamp": 1')
    await expect(loadSnapshotPath(bad)).rejects.toThrow('is not valid JSON')
    // A JSON object, but not a bundle: no date to give its data, or no groups. (Other text is read as a group file: catalogFromSnapshot reports it.)
    for (const [name, text] of [
      ['undated.json', '{"source":"x","groups":{"stations":""}}'],
      ['badly-dated.json', '{"stamp":"yesterday","groups":{"stations":""}}'],
      ['no-groups.json', '{"stamp":"2026-05-30T22:50:00Z","groups":["stations"]}'],
    ]) {
      const path = join(tmp, name!)
      writeFileSync(path, text!)
      await expect(loadSnapshotPath(path)).rejects.toThrow(`${path} is not a snapshot bundle (needs stamp, source, groups)`)
    }
  })
})

describe('catalogFromSnapshot', () => {
  test('an unreadable group is reported, not fatal; groups given twice add up', () => {
    const report = catalogFromSnapshot(
      {
        source: 'snapshot',
        obtainedAtMs: Date.UTC(2026, 5, 1),
        description: 'test',
        groups: [
          { group: 'a', text: ommJson(syntheticGroup(98000, 2)) },
          { group: 'a', text: tleText(syntheticGroup(98100, 1)) },
          { group: 'b', text: '<html>oops</html>' },
          { group: 'c', text: '[{"NORAD_CAT_ID": 1}]', format: 'json' as const },
        ].map((g) => ({ ...g, source: 'snapshot' as const, obtainedAtMs: Date.UTC(2026, 5, 1) })),
      },
      'snapshot',
      NOW,
    )
    expect(report.catalog.groupCounts).toEqual({ a: 3, b: 0, c: 0 })
    expect(Object.keys(report.unreadableGroups)).toEqual(['b'])
    expect(report.invalidByGroup).toEqual({ c: 1 })
    expect(report.examples).toContain('c 1: record 1: EPOCH is not a UTC date-time like 2026-05-30T12:25:10.469664')
  })

  test('a snapshot file copied from the fixtures keeps its groups and origin', async () => {
    const path = join(tmp, 'weather.csv')
    copyFileSync(join(FIXTURES, 'stations.csv'), path)
    const { catalog } = catalogFromSnapshot(await loadSnapshotPath(path), 'snapshot', NOW)
    expect(catalog.origin.source).toBe('snapshot')
    expect(catalog.get(90002)?.groups).toEqual(['weather'])
  })
})
