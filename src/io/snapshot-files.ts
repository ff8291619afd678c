/**
 * Reads `--snapshot PATH` from disk (a bundle, one element file, a folder of
 * them, a copied data-dir cache) into a snapshot: the I/O side of
 * src/domain/catalog/snapshot.ts.
 */
import { readdir, stat } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import { formatOfFileName } from '../domain/catalog/formats.ts'
import { type GroupSet, newestEpochMs, redate } from '../domain/catalog/groups.ts'
import { fromBundle, parseFolderStamp, SnapshotError, type SnapshotBundle } from '../domain/catalog/snapshot.ts'
import { CACHE_KIND, deserializeCache, snapshotFromCache } from './cache.ts'

/** A JSON text that is an object (a bundle) rather than an array (OMM). */
function looksLikeBundle(text: string): boolean {
  return text.trimStart().startsWith('{')
}

async function bundleFile(path: string, text: string): Promise<GroupSet> {
  let bundle: SnapshotBundle
  try {
    bundle = JSON.parse(text)
  } catch {
    throw new SnapshotError(`${path} is not valid JSON`)
  }
  if ((bundle as unknown as { kind?: unknown })?.kind === CACHE_KIND) {
    // A data-dir cache copied from another install.
    const cache = deserializeCache(text)
    if (!cache.ok) throw new SnapshotError(`${path} is a damaged cache: ${cache.reason}`)
    return { ...snapshotFromCache(cache.cache, path), source: 'snapshot', groups: cache.cache.groups.map((g) => ({ ...g, source: 'snapshot' })) }
  }
  return fromBundle(bundle, path)
}

/**
 * Reads `--snapshot PATH`: a bundle (`snapshot.json`), one element file in any
 * format (its name is the group: `stations.tle`, `stations.json` (OMM JSON),
 * `stations.csv` (OMM CSV)), a folder of such files (a folder named like
 * `2026-05-30T2250Z` gives the stamp), or a data-dir cache file
 * (`catalog-cache.json`). A file or folder without a stamp is dated by its
 * newest element-set epoch (see datedByContent).
 */
export async function loadSnapshotPath(path: string): Promise<GroupSet> {
  let info
  try {
    info = await stat(path)
  } catch {
    throw new SnapshotError(`snapshot ${path} does not exist or cannot be read`)
  }
  if (info.isFile()) {
    const text = await Bun.file(path).text()
    if (extname(path).toLowerCase() === '.json' && looksLikeBundle(text)) return bundleFile(path, text)
    const group = { group: basename(path, extname(path)), source: 'snapshot' as const, obtainedAtMs: info.mtimeMs, text }
    return datedByContent({ source: 'snapshot', obtainedAtMs: info.mtimeMs, description: path, groups: [group] }, info.mtimeMs)
  }
  const names = (await readdir(path)).filter((n) => formatOfFileName(n) !== null).sort()
  const texts: { group: string; text: string }[] = []
  const bundles: string[] = []
  let newestMtime = 0
  for (const name of names) {
    const file = join(path, name)
    const text = await Bun.file(file).text()
    if (formatOfFileName(name) === 'json' && looksLikeBundle(text)) {
      bundles.push(file)
      continue
    }
    newestMtime = Math.max(newestMtime, (await stat(file)).mtimeMs)
    // The content decides the format; the extension only picks the files.
    texts.push({ group: basename(name, extname(name)), text })
  }
  if (texts.length === 0) {
    const bundle = bundles.find((b) => basename(b) === 'snapshot.json') ?? bundles[0]
    if (bundle) return bundleFile(bundle, await Bun.file(bundle).text())
    throw new SnapshotError(`snapshot folder ${path} holds no <group>.tle, <group>.json or <group>.csv files`)
  }
  const stampMs = parseFolderStamp(basename(path))
  const obtainedAtMs = stampMs ?? newestMtime
  const set: GroupSet = { source: 'snapshot', obtainedAtMs, description: path, groups: texts.map((t) => ({ ...t, source: 'snapshot', obtainedAtMs })) }
  return stampMs !== null ? { ...set, datedBy: 'stamp' } : datedByContent(set, newestMtime)
}

/**
 * Dates a snapshot that carries no stamp by its content: the newest element-set
 * epoch in it (the data cannot have been obtained before that), never later than
 * the files' modification time (a file cannot hold data obtained after it was
 * written). File times alone say nothing: `cp -r` makes old data look new.
 * Reads the snapshot (once: the result is kept).
 */
function datedByContent(snapshot: GroupSet, newestMtimeMs: number): GroupSet {
  const newest = newestEpochMs(snapshot)
  const dated = newest === null ? redate(snapshot, newestMtimeMs, 'file time') : redate(snapshot, Math.min(newest, newestMtimeMs), newest <= newestMtimeMs ? 'newest epoch' : 'file time')
  // Read once, against the file time; kept.
  return { ...dated, read: snapshot.read }
}

