/** The data-dir cache: atomic writes, verified reads, and no cache state that can break a start. */
import { afterAll, describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type GroupSet, readGroups } from '../../src/domain/catalog/groups.ts'
import { CACHE_FILE, defaultDataDir, MAX_CACHE_BYTES, deserializeCache, READS_FILE, readCache, readsFileUse, serializeCache, snapshotFromCache, writeCache } from '../../src/io/cache.ts'
import { catalogFromSnapshot } from '../../src/domain/catalog/snapshot.ts'
import { log } from '../../src/io/log.ts'
import { payloadOf, syntheticGroup } from '../fixtures/synthetic.ts'

const tmp = mkdtempSync(join(tmpdir(), 'sattrack-persist-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
let dirs = 0
const freshDir = () => join(tmp, `d${++dirs}`)

const CONTENTS: GroupSet = {
  obtainedAtMs: Date.UTC(2026, 5, 1, 6, 0, 0, 123),
  source: 'cache',
  description: 'http://127.0.0.1:9/NORAD/elements/gp.php',
  groups: [
    { group: 'stations', source: 'cache', format: 'json', text: payloadOf(syntheticGroup(90000, 5), 'json'), obtainedAtMs: Date.UTC(2026, 5, 1, 6), etag: '"abc"', lastModified: 'Mon, 01 Jun 2026 05:00:00 GMT' },
    { group: 'weather', source: 'cache', format: 'csv', text: payloadOf(syntheticGroup(91000, 3), 'csv'), obtainedAtMs: Date.UTC(2026, 5, 1, 6), etag: null, lastModified: null },
    { group: 'geo', source: 'cache', format: 'tle', text: payloadOf(syntheticGroup(92000, 2), 'tle'), obtainedAtMs: Date.UTC(2026, 5, 1, 6), etag: 'W/"x"', lastModified: null },
  ],
}

describe('defaultDataDir', () => {
  test('$XDG_DATA_HOME/sattrack, else ~/.local/share/sattrack', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/srv/data' })).toBe('/srv/data/sattrack')
    expect(defaultDataDir({ HOME: '/home/ann' })).toBe('/home/ann/.local/share/sattrack')
    expect(defaultDataDir({ XDG_DATA_HOME: 'relative', HOME: '/home/ann' })).toBe('/home/ann/.local/share/sattrack')
  })
})

describe('writeCache and readCache', () => {
  test('round trip: payloads, formats, validators and times come back unchanged', async () => {
    const dir = freshDir()
    expect(await readCache(dir)).toEqual({ kind: 'absent' })
    const path = await writeCache(dir, CONTENTS) // creates the folder
    expect(path).toBe(join(dir, CACHE_FILE))
    // Outside a release build (here) no reads file is written: the groups come back to be read from their payloads.
    expect(await readCache(dir)).toEqual({ kind: "ok", cache: { ...CONTENTS, datedBy: "stamp" }, path, fromReads: [], readsUnused: null })
    expect(readdirSync(dir)).toEqual([CACHE_FILE]) // no temporary file left
  })

  test('the cache builds the same catalogue as its payloads', async () => {
    const dir = freshDir()
    await writeCache(dir, CONTENTS)
    const read = await readCache(dir)
    if (read.kind !== 'ok') throw new Error(read.kind)
    const report = catalogFromSnapshot(snapshotFromCache(read.cache, read.path), 'cache', 0)
    expect(report.catalog.groupCounts).toEqual({ geo: 2, stations: 5, weather: 3 })
    // Obtained when its groups were fetched (each group with its own time and source).
    expect(report.catalog.origin).toMatchObject({ source: 'cache', obtainedAtMs: Date.UTC(2026, 5, 1, 6), groupsObtainedAtMs: { geo: Date.UTC(2026, 5, 1, 6) }, groupSources: { geo: 'cache' } })
    expect(report.unreadableGroups).toEqual({})
  })

  /** The build the reads files of these tests are written by (a release build's version, commit and executable). */
  const BUILD = '0.1.0 abc1234 125000000 1780000000000'

  /** CONTENTS as a refresh holds it: every group read (parsed and validated), 90001's set refused (its checksum broken). */
  function readContents(): GroupSet {
    const stations = CONTENTS.groups[0]!
    const lines = stations.text!.replace('"NORAD_CAT_ID":90001', '"NORAD_CAT_ID":"x"')
    const set: GroupSet = { ...CONTENTS, groups: [{ ...stations, text: lines }, ...CONTENTS.groups.slice(1)] }
    readGroups(set)
    return set
  }

  test('groups written as read come back as read, from the reads file: the same sets and refusals, and the same catalogue as reading the payloads gives', async () => {
    const dir = freshDir()
    const contents = readContents()
    expect(contents.groups[0]!.refused).toHaveLength(1)
    await writeCache(dir, contents, BUILD)
    const read = await readCache(dir, BUILD)
    if (read.kind !== 'ok') throw new Error(read.kind)
    expect(read.fromReads).toEqual(['stations', 'weather', 'geo'])
    for (const [k, g] of read.cache.groups.entries()) {
      const written = contents.groups[k]!
      expect([g.group, g.format, g.elements, g.refused, g.text, g.etag]).toEqual([written.group, written.format, written.elements, written.refused, written.text, written.etag])
    }
    // The catalogue a start makes from it equals the one made by reading the payloads (the reads file set aside).
    const fromReads = catalogFromSnapshot(snapshotFromCache(read.cache, read.path), 'cache', 0)
    rmSync(join(dir, READS_FILE))
    const again = await readCache(dir, BUILD)
    if (again.kind !== 'ok') throw new Error(again.kind)
    expect(again.fromReads).toEqual([])
    expect(again.cache.groups.every((g) => g.elements === undefined)).toBe(true)
    const fromPayloads = catalogFromSnapshot(snapshotFromCache(again.cache, again.path), 'cache', 0)
    expect(fromReads.catalog.version).toBe(fromPayloads.catalog.version)
    expect(fromReads.catalog.size).toBe(9)
    expect(fromReads.invalidByGroup).toEqual(fromPayloads.invalidByGroup)
    expect(fromReads.invalidByGroup).toEqual({ stations: 1 })
  })

  test('a reads file that is damaged, or whose entry names another payload or another time, is not used: those groups are read from their payloads', async () => {
    const dir = freshDir()
    const contents = readContents()
    await writeCache(dir, contents, BUILD)
    const reads = readFileSync(join(dir, READS_FILE), 'utf8')
    // A byte of its body changed: its own checksum fails, nothing is taken from it.
    // Each time the start's log says why the file gave nothing (readsUnused).
    writeFileSync(join(dir, READS_FILE), reads.replace('"noradId"', '"noradID"'))
    expect(await readCache(dir, BUILD)).toMatchObject({ kind: 'ok', fromReads: [], readsUnused: 'it fails its checksum' })
    writeFileSync(join(dir, READS_FILE), reads.slice(0, reads.length - 10))
    expect(await readCache(dir, BUILD)).toMatchObject({ kind: 'ok', fromReads: [], readsUnused: 'it fails its checksum' })
    writeFileSync(join(dir, READS_FILE), reads.slice(0, 100))
    expect(await readCache(dir, BUILD)).toMatchObject({ kind: 'ok', fromReads: [], readsUnused: 'it is not valid JSON (truncated or overwritten?)' })
    writeFileSync(join(dir, READS_FILE), `${JSON.stringify({ kind: 'something-else' })}\n{}`)
    expect(await readCache(dir, BUILD)).toMatchObject({ kind: 'ok', fromReads: [], readsUnused: 'it is not a reads file of this version' })
    writeFileSync(join(dir, READS_FILE), '{"kind":\n')
    expect(await readCache(dir, BUILD)).toMatchObject({ kind: 'ok', fromReads: [], readsUnused: 'it is not valid JSON (truncated or overwritten?)' })
    rmSync(join(dir, READS_FILE))
    mkdirSync(join(dir, READS_FILE))
    expect(await readCache(dir, BUILD)).toMatchObject({ kind: 'ok', fromReads: [], readsUnused: 'it is not a regular file' })
    rmSync(join(dir, READS_FILE), { recursive: true })
    writeFileSync(join(dir, READS_FILE), Buffer.alloc(MAX_CACHE_BYTES + 1, 0x20))
    expect(await readCache(dir, BUILD)).toMatchObject({ kind: 'ok', fromReads: [], readsUnused: 'it is larger than a cache may be' })
    rmSync(join(dir, READS_FILE))
    expect(await readCache(dir, BUILD)).toMatchObject({ kind: 'ok', fromReads: [], readsUnused: null })
    // The cache rewritten with weather obtained later and geo's payload changed, the old reads file put back: only stations matches.
    const [stations, weather, geo] = contents.groups
    await writeCache(dir, { ...contents, groups: [stations!, { ...weather!, obtainedAtMs: weather!.obtainedAtMs + 1 }, { ...geo!, elements: undefined, text: payloadOf(syntheticGroup(92000, 3), 'tle') }] }, BUILD)
    writeFileSync(join(dir, READS_FILE), reads)
    const read = await readCache(dir, BUILD)
    if (read.kind !== 'ok') throw new Error(read.kind)
    expect(read.fromReads).toEqual(['stations'])
    expect(read.readsUnused).toBeNull()
    expect(catalogFromSnapshot(snapshotFromCache(read.cache, read.path), 'cache', 0).catalog.groupCounts).toEqual({ geo: 3, stations: 4, weather: 3 })
    // A body edited and its checksum line made again: rows that are not element sets, a set any source would have refused (a name with a
    // line break, an epoch after the group was obtained), or a refusal that is not one, are not taken (no throw).
    const [head, body] = [reads.slice(0, reads.indexOf('\n')), reads.slice(reads.indexOf('\n') + 1)]
    const sha = (text: string) => new Bun.CryptoHasher('sha256').update(text).digest('hex')
    const column = (b: any, field: string) => b.groups[0].fields.indexOf(field)
    for (const edit of [
      (b: any) => (b.groups[0].rows[0] = null),
      (b: any) => (b.groups[0].rows[0][column(b, 'epochMs')] = 'soon'),
      (b: any) => (b.groups[0].rows[0][column(b, 'epochMs')] = b.groups[0].obtainedAtMs + 2 * 86_400_000),
      (b: any) => (b.groups[0].rows[0][column(b, 'name')] = 'ISS\r\n1 25544U'),
      (b: any) => (b.groups[0].refused = [null]),
      (b: any) => (b.groups[0].rows = []),
    ]) {
      const edited = JSON.parse(body)
      edit(edited)
      const text = JSON.stringify(edited)
      writeFileSync(join(dir, READS_FILE), `${JSON.stringify({ ...JSON.parse(head), sha256: sha(text) })}\n${text}`)
      const readBack = await readCache(dir, BUILD)
      if (readBack.kind !== 'ok') throw new Error(readBack.kind)
      expect(readBack.fromReads).not.toContain('stations')
    }
    // A reads file none of whose groups matches the cache (every group obtained since it was written).
    await writeCache(dir, { ...contents, groups: contents.groups.map((g) => ({ ...g, obtainedAtMs: g.obtainedAtMs + 1 })) }, BUILD)
    writeFileSync(join(dir, READS_FILE), reads)
    expect(await readCache(dir, BUILD)).toMatchObject({ kind: 'ok', fromReads: [], readsUnused: 'none of its groups matches a payload and time of the cache, or checks out' })
    // Written by another build (an upgrade, whose reading of payloads may differ): not used, every group read again.
    expect(await readCache(dir, BUILD.replace('abc1234', 'def5678'))).toMatchObject({ kind: 'ok', fromReads: [], readsUnused: 'another build wrote it (its payloads are read again after an upgrade)' })
    // Outside a release build: neither read nor written.
    expect(await readCache(dir, null)).toMatchObject({ kind: 'ok', fromReads: [], readsUnused: null })
    const other = freshDir()
    await writeCache(other, contents, null)
    expect(readdirSync(other)).toEqual([CACHE_FILE])
  })

  test('a reads file that cannot be written is logged; the cache is written all the same and read from its payloads', async () => {
    const dir = freshDir()
    mkdirSync(join(dir, READS_FILE), { recursive: true }) // a folder in its place: the rename over it fails
    const lines: string[] = []
    log.configure({ sink: (line) => lines.push(line) })
    try {
      await writeCache(dir, CONTENTS, BUILD)
    } finally {
      log.configure({ sink: null })
    }
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 'warn', msg: "cannot write the cache's reads file; the next start reads the cache's payloads again (slower)", path: join(dir, READS_FILE), error: expect.any(String) }),
    ])
    const read = await readCache(dir, BUILD)
    expect(read).toMatchObject({ kind: 'ok', fromReads: [], readsUnused: 'it is not a regular file' })
    expect(read.kind === 'ok' && read.cache.groups.map((g) => g.group)).toEqual(CONTENTS.groups.map((g) => g.group))
  })

  test("what a start says of the reads file: the groups it gave that the start took, or why it gave none of them", () => {
    const ok = (fromReads: string[], readsUnused: string | null) => ({ kind: 'ok' as const, cache: CONTENTS, path: 'p', fromReads, readsUnused })
    expect(readsFileUse(ok(['stations', 'weather'], null), ['weather', 'geo'])).toEqual({ cacheGroupsAsRead: ['weather'], readsUnused: null })
    // It gave groups, but the start took others from the cache (those it gave came from elsewhere, newer).
    expect(readsFileUse(ok(['stations'], null), ['weather'])).toEqual({ cacheGroupsAsRead: [], readsUnused: 'the groups it gave are not those taken from the cache' })
    // It gave nothing, with its own reason; or there is none (nothing to say).
    expect(readsFileUse(ok([], 'it fails its checksum'), ['weather'])).toEqual({ cacheGroupsAsRead: [], readsUnused: 'it fails its checksum' })
    expect(readsFileUse(ok([], null), ['weather'])).toEqual({ cacheGroupsAsRead: [], readsUnused: null })
    // The start took nothing from the cache: the reads file cost nothing, whatever it is.
    expect(readsFileUse(ok([], 'it fails its checksum'), [])).toEqual({ cacheGroupsAsRead: [], readsUnused: null })
    expect(readsFileUse({ kind: 'absent' }, [])).toEqual({ cacheGroupsAsRead: [], readsUnused: null })
  })

  test('a second write replaces the first whole', async () => {
    const dir = freshDir()
    await writeCache(dir, CONTENTS)
    const second = { ...CONTENTS, obtainedAtMs: CONTENTS.obtainedAtMs + 1000, groups: CONTENTS.groups.slice(0, 1) }
    await writeCache(dir, second)
    expect(await readCache(dir)).toMatchObject({ kind: 'ok', cache: second })
  })

  test('a failed write throws and leaves the old cache intact', async () => {
    const dir = freshDir()
    await writeCache(dir, CONTENTS)
    chmodSync(dir, 0o500)
    const asRoot = process.getuid?.() === 0 // root writes anyway; then make the target a folder instead
    if (asRoot) {
      chmodSync(dir, 0o755)
      const blocked = freshDir()
      mkdirSync(join(blocked, CACHE_FILE), { recursive: true })
      await expect(writeCache(blocked, CONTENTS)).rejects.toThrow()
      expect(readdirSync(blocked).filter((name) => name.startsWith('.'))).toEqual([]) // no temporary file left
    } else {
      await expect(writeCache(dir, { ...CONTENTS, groups: [] })).rejects.toThrow()
      chmodSync(dir, 0o755)
    }
    expect(await readCache(dir)).toMatchObject({ kind: 'ok', cache: CONTENTS })
  })

  test('a data dir that is a file is reported by writeCache, never by a start', async () => {
    const path = join(tmp, 'a-file')
    writeFileSync(path, 'x')
    await expect(writeCache(path, CONTENTS)).rejects.toThrow()
    expect((await readCache(path)).kind).toBe('absent')
  })

  test('stale temporary files from a killed writer are ignored by reads and cleaned by the next write', async () => {
    const dir = freshDir()
    await writeCache(dir, CONTENTS)
    const leftover = join(dir, `.${CACHE_FILE}.12345.deadbeef.tmp`)
    writeFileSync(leftover, serializeCache(CONTENTS).slice(0, 100))
    const old = new Date(Date.now() - 3_600_000)
    utimesSync(leftover, old, old)
    expect(await readCache(dir)).toMatchObject({ kind: 'ok' })
    await writeCache(dir, CONTENTS)
    expect(existsSync(leftover)).toBe(false)
  })
})

describe('a damaged cache is reported, never trusted', () => {
  test('a file larger than what the service writes is not read', async () => {
    const dir = freshDir()
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, CACHE_FILE), Buffer.alloc(MAX_CACHE_BYTES + 1, 0x20))
    expect(await readCache(dir)).toEqual({ kind: 'invalid', path: join(dir, CACHE_FILE), reason: `it is ${MAX_CACHE_BYTES + 1} bytes, more than the ${MAX_CACHE_BYTES} a cache may hold` })
  })


  const text = serializeCache(CONTENTS)

  test('cut at any length', () => {
    for (const length of [0, 1, 50, Math.floor(text.length / 3), Math.floor(text.length / 2), text.length - 2, text.length - 1]) {
      const parsed = deserializeCache(text.slice(0, length))
      expect(parsed.ok).toBe(false)
    }
  })

  test('a changed payload fails its checksum', () => {
    const tampered = text.replace('SYNTH 90001', 'SYNTH 90009')
    expect(tampered).not.toBe(text)
    expect(deserializeCache(tampered)).toEqual({ ok: false, reason: 'group stations fails its checksum' })
  })

  test('garbage, another JSON file, another version, missing fields', () => {
    expect(deserializeCache('\u0000\u0001garbage')).toMatchObject({ ok: false })
    expect(deserializeCache('[]')).toEqual({ ok: false, reason: 'it is not a sattrack cache file' })
    const data = JSON.parse(text)
    expect(deserializeCache(JSON.stringify({ ...data, version: 99 }))).toMatchObject({ ok: false, reason: expect.stringContaining('version 99') })
    expect(deserializeCache(JSON.stringify({ ...data, groups: [] }))).toEqual({ ok: false, reason: 'it holds no groups' })
    expect(deserializeCache(JSON.stringify({ ...data, obtainedAt: 'soon' }))).toEqual({ ok: false, reason: 'obtainedAt is not a date' })
    const noFormat = { ...data, groups: [{ ...data.groups[0], format: 'xml' }] }
    expect(deserializeCache(JSON.stringify(noFormat))).toEqual({ ok: false, reason: 'group stations has an unknown format' })
  })

  test('readCache says which file and why; a folder or a FIFO in its place is not read (a FIFO would block the start)', async () => {
    const dir = freshDir()
    mkdirSync(dir)
    const path = join(dir, CACHE_FILE)
    writeFileSync(path, text.slice(0, 1000))
    expect(await readCache(dir)).toEqual({ kind: 'invalid', path, reason: 'it is not valid JSON (truncated or overwritten?)' })
    rmSync(path)
    mkdirSync(path)
    expect(await readCache(dir)).toEqual({ kind: 'invalid', path, reason: 'it is not a regular file' })
    rmSync(path, { recursive: true })
    expect(Bun.spawnSync(['mkfifo', path]).exitCode).toBe(0)
    expect(await readCache(dir)).toEqual({ kind: 'invalid', path, reason: 'it is not a regular file' })
  })
})

describe('killing the writer at any instant', () => {
  test('leaves either no cache or a whole one, never a broken one', async () => {
    const outcomes = new Set<string>()
    for (let round = 0; round < 12; round++) {
      const dir = freshDir()
      const child = Bun.spawn([process.execPath, join(import.meta.dir, '../fixtures/cache-writer.ts'), dir], { stdout: 'pipe', stderr: 'inherit' })
      // Kill at a different moment each round: before the first write, during one, between two.
      const reader = child.stdout.getReader()
      const decoder = new TextDecoder()
      let seen = ''
      const wanted = round % 4 // writes to wait for before the kill
      while (wanted > 0 && !seen.includes(`wrote ${wanted}\n`)) {
        const { value, done } = await reader.read()
        if (done) break
        seen += decoder.decode(value)
      }
      await Bun.sleep((round * 7) % 23)
      child.kill('SIGKILL')
      await child.exited
      const read = await readCache(dir)
      expect(read.kind).not.toBe('invalid')
      outcomes.add(read.kind)
      if (read.kind === 'ok') {
        expect(read.cache.groups.map((g) => g.group)).toEqual(['big', 'small'])
        const report = catalogFromSnapshot(snapshotFromCache(read.cache, read.path), 'cache', 0)
        expect(report.catalog.size).toBe(3003)
      }
      if (existsSync(join(dir, CACHE_FILE))) expect(readFileSync(join(dir, CACHE_FILE), 'utf8').endsWith('}')).toBe(true)
    }
    expect(outcomes.has('ok')).toBe(true)
  }, 30_000)
})
