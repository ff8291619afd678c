/**
 * The data-dir cache: the payloads of the last successful refresh and their
 * metadata, in one file replaced atomically (temporary file, fsync, rename,
 * fsync of the folder), so a kill at any instant leaves the old file or the new
 * one, never a mix. Reading verifies everything and never throws.
 */
import { readFileSync } from 'node:fs'
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { ELEMENT_FORMATS } from '../domain/catalog/formats.ts'
import { recordRefusal } from '../domain/catalog/validate.ts'
import type { ElementSet } from '../domain/catalog/elements.ts'
import type { ElementGroup, GroupSet } from '../domain/catalog/groups.ts'
import { type GroupReadData, groupReadData, withGroupRead } from '../domain/catalog/transfer.ts'
import { log } from './log.ts'
import { MAX_ROUND_BYTES } from './refresh.ts'
import { buildIdentity } from './version.ts'

/** The cache file inside the data dir. */
export const CACHE_FILE = 'catalog-cache.json'
export const CACHE_KIND = 'sattrack-cache'
const CACHE_VERSION = 1
const TEMP_PREFIX = `.${CACHE_FILE}.`
const TEMP_SUFFIX = '.tmp'
/**
 * Next to the cache, what reading its payloads gave (each group's element sets
 * and refusals, transfer.ts GroupReadData): a start takes a group from it
 * instead of parsing and validating the payload again (most of a start's time
 * with a cache: ~160 ms of ~400 for the 12k catalogue in OMM JSON) when the
 * entry names the payload's checksum and the group's time as the cache holds
 * them, and the file was written by this very build (version.ts buildIdentity:
 * another build may read payloads otherwise, a fix included). Written just
 * before the cache, from the same groups; a missing, damaged or outdated file
 * only costs the reading. Not written or read outside a release build.
 */
export const READS_FILE = 'catalog-cache.reads.json'
const READS_KIND = 'sattrack-cache-reads'
/** Why a cache or reads file whose JSON does not parse is not used. */
const NOT_JSON = 'it is not valid JSON (truncated or overwritten?)'
/**
 * A larger file is not read (it is reported and ignored): what the service
 * writes holds at most MAX_ROUND_BYTES of payloads, which JSON escaping (CR, LF
 * and quotes) makes at most about a tenth larger.
 */
export const MAX_CACHE_BYTES = 2 * MAX_ROUND_BYTES
/** A temporary file older than this was left by a process that died while writing (a write takes well under a second). */
const STALE_TEMP_MS = 10 * 60_000

/*
 * What the cache holds is a set of groups (groups.ts) whose `description` is
 * the endpoint: every group the service holds from upstream (the groups of the
 * last successful round, and groups refreshed by earlier rounds or read from an
 * earlier cache that it still serves unchanged), each with its payload (`text`,
 * `format`) as it came from upstream, when it was fetched or last confirmed
 * (`obtainedAtMs`) and its validators. Groups that came from the base snapshot
 * and were never refreshed are not in it: a start takes them from the base again.
 */

export type CacheReadResult =
  | { kind: 'absent' }
  /**
   * `fromReads`: the groups taken as read from the reads file (READS_FILE); the others are read from their payloads.
   * `readsUnused`: why a reads file that is there gave no group (another build wrote it, after an upgrade...); null when
   * it gave one, is absent, or is not for this build to read (bun run).
   */
  | { kind: 'ok'; cache: GroupSet; path: string; fromReads: string[]; readsUnused: string | null }
  | { kind: 'invalid'; path: string; reason: string }

/** `$XDG_DATA_HOME/sattrack`, or `~/.local/share/sattrack`. */
export function defaultDataDir(env: Record<string, string | undefined>, home: string = homedir()): string {
  const xdg = env.XDG_DATA_HOME
  // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
  if (xdg && xdg.startsWith('/')) return join(xdg, 'sattrack')
  return join(env.HOME || home, '.local', 'share', 'sattrack')
}

function sha256(text: string): string {
  return new Bun.CryptoHasher('sha256').update(text).digest('hex')
}

/** The file's text: the payloads with their metadata and a checksum of each (groups without a payload are left out). */
export function serializeCache(contents: GroupSet, checksums: ReadonlyMap<ElementGroup, string> = checksumsOf(contents)): string {
  return JSON.stringify({
    kind: CACHE_KIND,
    version: CACHE_VERSION,
    obtainedAt: new Date(contents.obtainedAtMs).toISOString(),
    url: contents.description,
    groups: contents.groups.flatMap((g) =>
      g.text === undefined || g.format === undefined
        ? []
        : [
            {
              group: g.group,
              format: g.format,
              fetchedAt: new Date(g.obtainedAtMs).toISOString(),
              etag: g.etag ?? null,
              lastModified: g.lastModified ?? null,
              sha256: checksums.get(g)!,
              payload: g.text,
            },
          ],
    ),
  })
}

/** The checksum of each group's payload. */
function checksumsOf(contents: GroupSet): Map<ElementGroup, string> {
  return new Map(contents.groups.flatMap((g) => (g.text === undefined ? [] : [[g, sha256(g.text)] as const])))
}

/**
 * The reads file's text: a first line holding the build that wrote it and the
 * checksum of the rest, then each group read (with a payload), with its
 * payload's checksum.
 */
export function serializeReads(contents: GroupSet, build: string, checksums: ReadonlyMap<ElementGroup, string> = checksumsOf(contents)): string {
  const groups = contents.groups.flatMap((g) => {
    const data = checksums.has(g) ? groupReadData(g) : null
    return data === null ? [] : [{ sha256: checksums.get(g)!, ...data }]
  })
  const body = JSON.stringify({ groups })
  return `${JSON.stringify({ kind: READS_KIND, version: CACHE_VERSION, build, sha256: sha256(body) })}\n${body}`
}

/**
 * The cache's groups, each taken as read from the reads file when an entry
 * names its payload's checksum and its time; with the names of those groups.
 * Anything amiss with the file (absent, damaged, another version, written by
 * another build) leaves the groups to be read from their payloads; `unused`
 * says why when it gave none.
 */
function withReads(groups: ElementGroup[], checksums: Record<string, string>, readsText: string, build: string): { groups: ElementGroup[]; fromReads: string[]; unused: string | null } {
  const none = (unused: string) => ({ groups, fromReads: [], unused })
  const newline = readsText.indexOf('\n')
  if (newline < 0) return none(NOT_JSON)
  let entries: (GroupReadData & { sha256: string })[]
  try {
    const head = JSON.parse(readsText.slice(0, newline))
    const body = readsText.slice(newline + 1)
    if (head?.kind !== READS_KIND || head.version !== CACHE_VERSION) return none('it is not a reads file of this version')
    if (head.build !== build) return none('another build wrote it (its payloads are read again after an upgrade)')
    if (head.sha256 !== sha256(body)) return none('it fails its checksum')
    entries = JSON.parse(body).groups
    if (!Array.isArray(entries)) return none('it is not a reads file of this version')
  } catch {
    return none(NOT_JSON)
  }
  const fromReads: string[] = []
  const taken = groups.map((g) => {
    const entry = entries.find((e) => e?.group === g.group && e.sha256 === checksums[g.group] && e.obtainedAtMs === g.obtainedAtMs)
    if (!entry || !Array.isArray(entry.rows) || entry.rows.length === 0 || !Array.isArray(entry.fields) || !Array.isArray(entry.refused) || !ELEMENT_FORMATS.includes(entry.format)) return g
    // Every set checked well formed, its date and name as any source's, and every refusal well formed: else the payload is read. SGP4 is
    // not run again: this build ran it on these very sets before writing them (the checksum line and the build identity say so), and
    // running it on the 12k catalogue made a start from the cache take ~230 ms instead of ~145.
    try {
      const read = withGroupRead(g, entry)
      if (!read.refused!.every((r) => typeof r?.reason === 'string' && (r.noradId === null || Number.isInteger(r.noradId)))) return g
      if (!read.elements!.every((e) => wellFormed(e) && recordRefusal(e, g.obtainedAtMs) === null)) return g
      fromReads.push(g.group)
      return read
    } catch {
      return g
    }
  })
  return { groups: taken, fromReads, unused: fromReads.length > 0 ? null : 'none of its groups matches a payload and time of the cache, or checks out' }
}

/** The numbers of an element set a reads file gives. */
const NUMBERS = ['noradId', 'epochMs', 'meanMotionDot', 'meanMotionDdot', 'bstar', 'ephemerisType', 'elementSetNo', 'inclinationDeg', 'raanDeg', 'eccentricity', 'argOfPericenterDeg', 'meanAnomalyDeg', 'meanMotionRevPerDay', 'revAtEpoch'] as const
/** Whether a set from a reads file has the shape of one: its numbers finite, its name and classification text. */
function wellFormed(e: ElementSet): boolean {
  return NUMBERS.every((k) => Number.isFinite(e[k])) && typeof e.name === 'string' && typeof e.classification === 'string'
}

const isString = (v: unknown): v is string => typeof v === 'string'
const isNullableString = (v: unknown): v is string | null => v === null || typeof v === 'string'

/** Checks the file's text field by field; a reason when anything is off. */
export function deserializeCache(text: string): { ok: true; cache: GroupSet; checksums: Record<string, string> } | { ok: false; reason: string } {
  let data: any
  try {
    data = JSON.parse(text)
  } catch {
    return { ok: false, reason: NOT_JSON }
  }
  if (data?.kind !== CACHE_KIND) return { ok: false, reason: 'it is not a sattrack cache file' }
  if (data.version !== CACHE_VERSION) return { ok: false, reason: `it has version ${data.version}, this build reads ${CACHE_VERSION}` }
  const obtainedAtMs = Date.parse(data.obtainedAt)
  if (!Number.isFinite(obtainedAtMs)) return { ok: false, reason: 'obtainedAt is not a date' }
  if (!isString(data.url)) return { ok: false, reason: 'url is missing' }
  if (!Array.isArray(data.groups) || data.groups.length === 0) return { ok: false, reason: 'it holds no groups' }
  const groups: ElementGroup[] = []
  const checksums: Record<string, string> = {}
  for (const g of data.groups) {
    const name = isString(g?.group) ? g.group : '?'
    if (!isString(g?.group) || !isString(g.payload) || !isString(g.sha256)) return { ok: false, reason: `group ${name} is incomplete` }
    if (!ELEMENT_FORMATS.includes(g.format)) return { ok: false, reason: `group ${name} has an unknown format` }
    const fetchedAtMs = Date.parse(g.fetchedAt)
    if (!Number.isFinite(fetchedAtMs)) return { ok: false, reason: `group ${name} has no fetch time` }
    if (!isNullableString(g.etag) || !isNullableString(g.lastModified)) return { ok: false, reason: `group ${name} has bad validators` }
    if (sha256(g.payload) !== g.sha256) return { ok: false, reason: `group ${name} fails its checksum` }
    checksums[g.group] = g.sha256
    groups.push({ group: g.group, source: 'cache', obtainedAtMs: fetchedAtMs, format: g.format, text: g.payload, etag: g.etag, lastModified: g.lastModified })
  }
  return { ok: true, cache: { source: 'cache', description: data.url, obtainedAtMs, datedBy: 'stamp', groups }, checksums }
}

/** What reading a file of the data dir gave (readDataFile). */
type DataFileRead =
  | { kind: 'text'; text: string }
  | { kind: 'absent' }
  | { kind: 'not-regular' }
  | { kind: 'too-large'; bytes: number }
  | { kind: 'unreadable'; code: string }

/**
 * The text of the cache or its reads file. Only a regular file no larger than
 * MAX_CACHE_BYTES is read: not a folder, a device, or a FIFO (whose reading
 * would wait for a writer, and the start with it).
 */
async function readDataFile(path: string): Promise<DataFileRead> {
  try {
    const info = await stat(path)
    if (!info.isFile()) return { kind: 'not-regular' }
    if (info.size > MAX_CACHE_BYTES) return { kind: 'too-large', bytes: info.size }
    return { kind: 'text', text: await Bun.file(path).text() }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException)?.code
    return code === 'ENOENT' || code === 'ENOTDIR' ? { kind: 'absent' } : { kind: 'unreadable', code: code ?? String(error) }
  }
}

/** Why a reads file that could not be read gave nothing (null: there is none). */
const READS_NOT_READ: Record<Exclude<DataFileRead['kind'], 'text'>, string | null> = {
  absent: null,
  'not-regular': 'it is not a regular file',
  'too-large': 'it is larger than a cache may be',
  unreadable: 'it cannot be read',
}

/** Reads the cache of a data dir (with the reads file `build` wrote). Absent is not an error; anything unreadable is `invalid` with a reason. */
export async function readCache(dataDir: string, build: string | null = buildIdentity()): Promise<CacheReadResult> {
  const path = join(dataDir, CACHE_FILE)
  const file = await readDataFile(path)
  switch (file.kind) {
    case 'absent':
      return { kind: 'absent' }
    case 'not-regular':
      return { kind: 'invalid', path, reason: 'it is not a regular file' }
    case 'too-large':
      return { kind: 'invalid', path, reason: `it is ${file.bytes} bytes, more than the ${MAX_CACHE_BYTES} a cache may hold` }
    case 'unreadable':
      return { kind: 'invalid', path, reason: `it cannot be read (${file.code})` }
  }
  const parsed = deserializeCache(file.text)
  if (!parsed.ok) return { kind: 'invalid', path, reason: parsed.reason }
  if (build === null) return { kind: 'ok', cache: parsed.cache, path, fromReads: [], readsUnused: null }
  const reads = await readDataFile(join(dataDir, READS_FILE))
  if (reads.kind !== 'text') return { kind: 'ok', cache: parsed.cache, path, fromReads: [], readsUnused: READS_NOT_READ[reads.kind] }
  const { groups, fromReads, unused } = withReads(parsed.cache.groups, parsed.checksums, reads.text, build)
  return { kind: 'ok', cache: { ...parsed.cache, groups }, path, fromReads, readsUnused: unused }
}

/**
 * What the reads file did for a start that took `cacheGroupsUsed` from the
 * cache: the groups of those it gave as read, and why it gave none of them
 * (null when it gave some, when the cache gave no group, or when there is no
 * reads file): the start then read their payloads again, and took longer.
 */
export function readsFileUse(cache: CacheReadResult, cacheGroupsUsed: readonly string[]): { cacheGroupsAsRead: string[]; readsUnused: string | null } {
  if (cache.kind !== 'ok') return { cacheGroupsAsRead: [], readsUnused: null }
  const cacheGroupsAsRead = cache.fromReads.filter((g) => cacheGroupsUsed.includes(g))
  if (cacheGroupsUsed.length === 0 || cacheGroupsAsRead.length > 0) return { cacheGroupsAsRead, readsUnused: null }
  return { cacheGroupsAsRead, readsUnused: cache.readsUnused ?? (cache.fromReads.length > 0 ? 'the groups it gave are not those taken from the cache' : null) }
}

/** The cache as a set to start from, described by its path (each group obtained when it was fetched or last confirmed). */
export function snapshotFromCache(cache: GroupSet, path: string): GroupSet {
  return { ...cache, source: 'cache', description: path, groups: cache.groups.map((g) => ({ ...g, source: 'cache' })) }
}

async function fsyncFolder(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Whether process `pid` runs on this machine. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException)?.code === 'EPERM'
  }
}

/** When process `pid` started (clock ticks since boot, /proc/PID/stat field 22), or null where there is no /proc. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
    return start && /^\d+$/.test(start) ? start : null
  } catch {
    return null
  }
}

/** This process as temporary file names give it: its PID and its start time (`x` where unknown). */
let writerToken: string | undefined
function ownToken(): string {
  writerToken ??= `${process.pid}.${processStart(process.pid) ?? 'x'}`
  return writerToken
}

/**
 * Why a temporary file is left over, or null when it may be a write in
 * progress. A write takes well under a second; the file is named with the
 * writer's PID and start time. It is left over when it is older than ten
 * minutes, or its name is not ours, or it is named with this process's PID
 * (this process writes one file at a time, and not at all before it starts
 * refreshing: at start any such file was left by an earlier process that had
 * the same PID, as in a container), or with a PID that no longer runs, or that
 * now runs a process started at another time (the PID was reused: after a
 * reboot, say). What is kept: a recent file of another process that runs now,
 * which may be another instance sharing the data dir, writing right now.
 * Removing a file that was in fact being written is harmless all the same: its
 * rename fails, the cache stays whole, and that writer reports it and writes
 * again after its next round.
 */
export function leftoverReason(name: string, mtimeMs: number, nowMs: number, own: string = ownToken(), isAlive = alive, startOf = processStart): string | null {
  if (nowMs - mtimeMs > STALE_TEMP_MS) return 'older than ten minutes'
  const [pidText, start] = name.slice(TEMP_PREFIX.length, -TEMP_SUFFIX.length).split('.')
  const pid = Number(pidText)
  if (!Number.isInteger(pid) || pid <= 0) return 'not named by a writer'
  if (pid === Number(own.split('.')[0])) return 'named with this process\'s PID'
  if (!isAlive(pid)) return 'its writer no longer runs'
  const now = startOf(pid)
  if (start && /^\d+$/.test(start) && now !== null && now !== start) return 'its PID now belongs to another process'
  return null
}

/**
 * Removes the temporary files that killed writers left behind (see
 * leftoverReason for the rule). Returns the names removed. Runs at start and
 * after every write.
 */
export async function removeStaleTemporaries(dataDir: string, nowMs: number): Promise<string[]> {
  const removed: string[] = []
  for (const name of await readdir(dataDir).catch(() => [] as string[])) {
    if (!name.startsWith(TEMP_PREFIX) || !name.endsWith(TEMP_SUFFIX)) continue
    const path = join(dataDir, name)
    const info = await stat(path).catch(() => null)
    if (!info?.isFile()) continue
    if (leftoverReason(name, info.mtimeMs, nowMs) === null) continue
    await unlink(path).then(
      () => removed.push(name),
      () => {},
    )
  }
  return removed
}

/** Writes `text` to `name` in the data dir atomically: a temporary file (named by this writer, `kind` told apart), flushed, then renamed over it. Throws on failure, after removing the temporary file. */
async function writeAtomically(dataDir: string, name: string, kind: string, text: string): Promise<void> {
  const temp = join(dataDir, `${TEMP_PREFIX}${ownToken()}.${kind}${crypto.randomUUID().slice(0, 8)}${TEMP_SUFFIX}`)
  try {
    const handle = await open(temp, 'w', 0o644)
    try {
      await handle.writeFile(text)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, join(dataDir, name))
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
}

/**
 * Writes the cache atomically: the new content goes to a temporary file in the
 * same folder, is flushed to disk, then renamed over the old file and the folder
 * entry flushed. Creates the data dir when needed. Throws on failure (after
 * removing its temporary file); the old cache is then still intact. The reads
 * file (of `build`, none outside a release build) is written first, the same
 * way; failing to write it is logged and only leaves the next start to read the
 * payloads.
 */
export async function writeCache(dataDir: string, contents: GroupSet, build: string | null = buildIdentity()): Promise<string> {
  await mkdir(dataDir, { recursive: true })
  const checksums = checksumsOf(contents)
  if (build !== null) {
    await writeAtomically(dataDir, READS_FILE, 'reads-', serializeReads(contents, build, checksums)).catch((error) =>
      log.warn("cannot write the cache's reads file; the next start reads the cache's payloads again (slower)", {
        path: join(dataDir, READS_FILE),
        error: error instanceof Error ? error.message : String(error),
      }),
    )
  }
  await writeAtomically(dataDir, CACHE_FILE, '', serializeCache(contents, checksums))
  await fsyncFolder(dataDir)
  await removeStaleTemporaries(dataDir, Date.now())
  return join(dataDir, CACHE_FILE)
}
