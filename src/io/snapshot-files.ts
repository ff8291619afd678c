/**
 * Reads `--snapshot PATH` from disk (a bundle, one element file, a folder of
 * them, a copied data-dir cache) into a snapshot: the I/O side of
 * src/domain/catalog/snapshot.ts.
 */
import { readdir, stat } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import { formatOfFileName } from '../domain/catalog/formats.ts'
import type { GroupSet } from '../domain/catalog/groups.ts'
import { fromBundle, parseFolderStamp, SnapshotError } from '../domain/catalog/snapshot.ts'
import { CACHE_KIND, deserializeCache, snapshotFromCache } from './cache.ts'

/** A JSON text that is an object (a bundle) rather than an array (OMM). */
function looksLikeBundle(text: string): boolean {
  return text.trimStart().startsWith('{')
}

async function bundleFile(path: string, text: string): Promise<GroupSet> {
  let bundle: unknown
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
 * `stations.csv` (OMM CSV)), a folder of such files, or a data-dir cache file
 * (`catalog-cache.json`). When its data was obtained: a folder named like
 * `2026-05-30T2250Z`, a bundle's or a cache's stamp says it; otherwise each
 * file is dated by when it was last written (its modification time; the
 * start and a reload never believe one later than the clock). Never by the
 * element sets' epochs: a set in a file cannot vouch for the file's date, and
 * an older set never replaces a newer one anyway (overlay.ts). Nothing is
 * parsed here.
 */
export async function loadSnapshotPath(path: string): Promise<GroupSet> {
  let info
  try {
    info = await stat(path)
  } catch {
    throw new SnapshotError(`snapshot ${path} does not exist or cannot be read`)
  }
  if (info.isFile()) {
    const text = await Bun.file(path)
      .text()
      .catch(() => {
        throw new SnapshotError(`snapshot ${path} is a file that cannot be read`)
      })
    if (extname(path).toLowerCase() === '.json' && looksLikeBundle(text)) return bundleFile(path, text)
    const group = { group: basename(path, extname(path)), source: 'snapshot' as const, obtainedAtMs: info.mtimeMs, text }
    return { source: 'snapshot', obtainedAtMs: info.mtimeMs, datedBy: 'file time', description: path, groups: [group] }
  }
  // A device, a socket, a pipe (`--snapshot /dev/null`): neither a file nor a folder.
  if (!info.isDirectory()) throw new SnapshotError(`snapshot ${path} is neither a file nor a folder`)
  const listed = await readdir(path).catch(() => {
    throw new SnapshotError(`snapshot ${path} is a folder that cannot be read`)
  })
  const names = listed.filter((n) => formatOfFileName(n) !== null).sort()
  const files: { group: string; text: string; mtimeMs: number }[] = []
  const bundles: string[] = []
  for (const name of names) {
    const file = join(path, name)
    const fileInfo = await stat(file).catch(() => null)
    if (!fileInfo?.isFile()) continue
    const text = await Bun.file(file).text()
    if (formatOfFileName(name) === 'json' && looksLikeBundle(text)) {
      bundles.push(file)
      continue
    }
    // The content decides the format; the extension only picks the files.
    files.push({ group: basename(name, extname(name)), text, mtimeMs: fileInfo.mtimeMs })
  }
  if (files.length === 0) {
    const bundle = bundles.find((b) => basename(b) === 'snapshot.json') ?? bundles[0]
    if (bundle) return bundleFile(bundle, await Bun.file(bundle).text())
    throw new SnapshotError(`snapshot folder ${path} holds no <group>.tle, <group>.json or <group>.csv files`)
  }
  const stampMs = parseFolderStamp(basename(path))
  const groups = files.map(({ group, text, mtimeMs }) => ({ group, text, source: 'snapshot' as const, obtainedAtMs: stampMs ?? mtimeMs }))
  const obtainedAtMs = Math.max(...groups.map((g) => g.obtainedAtMs))
  return { source: 'snapshot', obtainedAtMs, datedBy: stampMs !== null ? 'stamp' : 'file time', description: path, groups }
}
