/**
 * The data-dir cache: the payloads of the last successful refresh and their
 * metadata, in one file replaced atomically (temporary file, fsync, rename,
 * fsync of the folder), so a kill at any instant leaves the old file or the new
 * one, never a mix. Reading verifies everything and never throws.
 */
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { ELEMENT_FORMATS, type ElementFormat } from '../domain/catalog/formats.ts'
import type { ElementGroup, GroupSet } from '../domain/catalog/groups.ts'

/** The cache file inside the data dir. */
export const CACHE_FILE = 'catalog-cache.json'
export const CACHE_KIND = 'sattrack-cache'
const CACHE_VERSION = 1
const TEMP_PREFIX = `.${CACHE_FILE}.`
const TEMP_SUFFIX = '.tmp'
/** A temporary file older than this was left by a process that died while writing. */
const STALE_TEMP_MS = 10 * 60_000

/**
 * A group as the cache holds it: its payload (`text`, `format`) as it came from
 * upstream, when it was fetched or last confirmed (`obtainedAtMs`), its validators.
 */
export type CachedGroup = ElementGroup & { text: string; format: ElementFormat }

/**
 * What the cache holds: every group the service holds from upstream (the
 * groups of the last successful round, and groups refreshed by earlier rounds
 * or read from an earlier cache that it still serves unchanged, each with its
 * own fetch time), as a set of groups whose `description` is the endpoint.
 * Groups that came from the base snapshot and were never refreshed are not in
 * it: a start takes them from the base again.
 */
export type CacheContents = Omit<GroupSet, 'groups'> & { groups: CachedGroup[] }

export type CacheReadResult =
  | { kind: 'absent' }
  | { kind: 'ok'; cache: CacheContents; path: string }
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

/** The file's text: the payloads with their metadata and a checksum of each. */
export function serializeCache(contents: CacheContents): string {
  return JSON.stringify({
    kind: CACHE_KIND,
    version: CACHE_VERSION,
    obtainedAt: new Date(contents.obtainedAtMs).toISOString(),
    url: contents.description,
    groups: contents.groups.map((g) => ({
      group: g.group,
      format: g.format,
      fetchedAt: new Date(g.obtainedAtMs).toISOString(),
      etag: g.etag ?? null,
      lastModified: g.lastModified ?? null,
      sha256: sha256(g.text),
      payload: g.text,
    })),
  })
}

const isString = (v: unknown): v is string => typeof v === 'string'
const isNullableString = (v: unknown): v is string | null => v === null || typeof v === 'string'

/** Checks the file's text field by field; a reason when anything is off. */
export function deserializeCache(text: string): { ok: true; cache: CacheContents } | { ok: false; reason: string } {
  let data: any
  try {
    data = JSON.parse(text)
  } catch {
    return { ok: false, reason: 'it is not valid JSON (truncated or overwritten?)' }
  }
  if (data?.kind !== CACHE_KIND) return { ok: false, reason: 'it is not a sattrack cache file' }
  if (data.version !== CACHE_VERSION) return { ok: false, reason: `it has version ${data.version}, this build reads ${CACHE_VERSION}` }
  const obtainedAtMs = Date.parse(data.obtainedAt)
  if (!Number.isFinite(obtainedAtMs)) return { ok: false, reason: 'obtainedAt is not a date' }
  if (!isString(data.url)) return { ok: false, reason: 'url is missing' }
  if (!Array.isArray(data.groups) || data.groups.length === 0) return { ok: false, reason: 'it holds no groups' }
  const groups: CachedGroup[] = []
  for (const g of data.groups) {
    const name = isString(g?.group) ? g.group : '?'
    if (!isString(g?.group) || !isString(g.payload) || !isString(g.sha256)) return { ok: false, reason: `group ${name} is incomplete` }
    if (!ELEMENT_FORMATS.includes(g.format)) return { ok: false, reason: `group ${name} has an unknown format` }
    const fetchedAtMs = Date.parse(g.fetchedAt)
    if (!Number.isFinite(fetchedAtMs)) return { ok: false, reason: `group ${name} has no fetch time` }
    if (!isNullableString(g.etag) || !isNullableString(g.lastModified)) return { ok: false, reason: `group ${name} has bad validators` }
    if (sha256(g.payload) !== g.sha256) return { ok: false, reason: `group ${name} fails its checksum` }
    groups.push({ group: g.group, source: 'cache', obtainedAtMs: fetchedAtMs, format: g.format, text: g.payload, etag: g.etag, lastModified: g.lastModified })
  }
  return { ok: true, cache: { source: 'cache', description: data.url, obtainedAtMs, groups } }
}

/** Reads the cache of a data dir. Absent is not an error; anything unreadable is `invalid` with a reason. */
export async function readCache(dataDir: string): Promise<CacheReadResult> {
  const path = join(dataDir, CACHE_FILE)
  let text: string
  try {
    text = await Bun.file(path).text()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException)?.code
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' }
    return { kind: 'invalid', path, reason: `it cannot be read (${code ?? String(error)})` }
  }
  const parsed = deserializeCache(text)
  return parsed.ok ? { kind: 'ok', cache: parsed.cache, path } : { kind: 'invalid', path, reason: parsed.reason }
}

/** The cache as a set to start from, described by its path (each group obtained when it was fetched or last confirmed). */
export function snapshotFromCache(cache: CacheContents, path: string): CacheContents {
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

/**
 * Removes temporary files that a process killed while writing left behind: those
 * of a process that no longer runs, and any older than ten minutes (another
 * instance sharing the data dir may be writing its own right now). Returns the
 * names removed. Runs at start and after every write.
 */
export async function removeStaleTemporaries(dataDir: string, nowMs: number): Promise<string[]> {
  const removed: string[] = []
  for (const name of await readdir(dataDir).catch(() => [] as string[])) {
    if (!name.startsWith(TEMP_PREFIX) || !name.endsWith(TEMP_SUFFIX)) continue
    const pid = Number(name.slice(TEMP_PREFIX.length).split('.')[0])
    const path = join(dataDir, name)
    const info = await stat(path).catch(() => null)
    if (!info) continue
    const orphan = !Number.isInteger(pid) || pid <= 0 || (pid !== process.pid && !alive(pid))
    if (orphan || nowMs - info.mtimeMs > STALE_TEMP_MS) {
      await unlink(path).then(
        () => removed.push(name),
        () => {},
      )
    }
  }
  return removed
}

/**
 * Writes the cache atomically: the new content goes to a temporary file in the
 * same folder, is flushed to disk, then renamed over the old file and the folder
 * entry flushed. Creates the data dir when needed. Throws on failure (after
 * removing its temporary file); the old cache is then still intact.
 */
export async function writeCache(dataDir: string, contents: CacheContents): Promise<string> {
  await mkdir(dataDir, { recursive: true })
  const target = join(dataDir, CACHE_FILE)
  const temp = join(dataDir, `${TEMP_PREFIX}${process.pid}.${crypto.randomUUID().slice(0, 8)}${TEMP_SUFFIX}`)
  try {
    const handle = await open(temp, 'w', 0o644)
    try {
      await handle.writeFile(serializeCache(contents))
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, target)
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
  await fsyncFolder(dataDir)
  await removeStaleTemporaries(dataDir, Date.now())
  return target
}
