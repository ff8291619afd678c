/**
 * Reads `--snapshot PATH` from disk (a bundle, one element file, a folder of
 * them, a copied data-dir cache) into a snapshot: the I/O side of
 * src/catalog/snapshot.ts.
 */
import { readdir, stat } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import { formatOfFileName } from '../catalog/formats.ts'
import { fromBundle, newestEpochMs, parseFolderStamp, parseSnapshot, SnapshotError, type SnapshotBundle, type SnapshotData } from '../catalog/snapshot.ts'
import { CACHE_KIND, deserializeCache, snapshotFromCache } from './cache.ts'

/** A JSON text that is an object (a bundle) rather than an array (OMM). */
function looksLikeBundle(text: string): boolean {
  return text.trimStart().startsWith('{')
}

async function bundleFile(path: string, text: string): Promise<SnapshotData> {
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
    return snapshotFromCache(cache.cache, path)
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
export async function loadSnapshotPath(path: string): Promise<SnapshotData> {
  let info
  try {
    info = await stat(path)
  } catch {
    throw new SnapshotError(`snapshot ${path} does not exist or cannot be read`)
  }
  if (info.isFile()) {
    const text = await Bun.file(path).text()
    if (extname(path).toLowerCase() === '.json' && looksLikeBundle(text)) return bundleFile(path, text)
    return datedByContent({ stampMs: info.mtimeMs, description: path, groups: [{ group: basename(path, extname(path)), text }] }, info.mtimeMs)
  }
  const names = (await readdir(path)).filter((n) => formatOfFileName(n) !== null).sort()
  const groups: SnapshotData['groups'] = []
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
    groups.push({ group: basename(name, extname(name)), text })
  }
  if (groups.length === 0) {
    const bundle = bundles.find((b) => basename(b) === 'snapshot.json') ?? bundles[0]
    if (bundle) return bundleFile(bundle, await Bun.file(bundle).text())
    throw new SnapshotError(`snapshot folder ${path} holds no <group>.tle, <group>.json or <group>.csv files`)
  }
  const stampMs = parseFolderStamp(basename(path))
  if (stampMs !== null) return { stampMs, datedBy: 'stamp', description: path, groups }
  return datedByContent({ stampMs: newestMtime, description: path, groups }, newestMtime)
}

/**
 * Dates a snapshot that carries no stamp by its content: the newest element-set
 * epoch in it (the data cannot have been obtained before that), never later than
 * the files' modification time (a file cannot hold data obtained after it was
 * written). File times alone say nothing: `cp -r` makes old data look new.
 * Parses the snapshot (once: the result is kept in `parsed`).
 */
function datedByContent(snapshot: SnapshotData, newestMtimeMs: number): SnapshotData {
  const newest = newestEpochMs(parseSnapshot(snapshot))
  if (newest === null) return { ...snapshot, stampMs: newestMtimeMs, datedBy: 'file time' }
  return { ...snapshot, stampMs: Math.min(newest, newestMtimeMs), datedBy: newest <= newestMtimeMs ? 'newest epoch' : 'file time' }
}

