/** Snapshots: the one embedded at build time and the ones `--snapshot` points at. */
import { readdir, stat } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import { buildCatalog, type Catalog, type CatalogOrigin } from './catalog.ts'
import { parseTleText } from './elements.ts'

/** The raw text of every group of a snapshot, and when the data was obtained. */
export interface SnapshotData {
  /** When the data was taken from upstream, ms since 1970. */
  stampMs: number
  /** Where it came from, for people (a URL, a folder). */
  description: string
  groups: { group: string; text: string }[]
}

/** The bundle format `make snapshot` writes and the build embeds. */
export interface SnapshotBundle {
  stamp: string
  source: string
  groups: Record<string, string>
}

export class SnapshotError extends Error {}

export function fromBundle(bundle: SnapshotBundle, where: string): SnapshotData {
  const stampMs = Date.parse(bundle?.stamp)
  if (!Number.isFinite(stampMs) || typeof bundle.groups !== 'object' || bundle.groups === null) {
    throw new SnapshotError(`${where} is not a snapshot bundle (needs stamp, source, groups)`)
  }
  const groups = Object.entries(bundle.groups).map(([group, text]) => ({ group, text: String(text) }))
  return { stampMs, description: String(bundle.source ?? where), groups }
}

/** `2026-05-30T2250Z` (CelesTrak snapshot folder names) → ms, or null. */
export function parseFolderStamp(name: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})(\d{2})Z$/.exec(name)
  if (!m) return null
  const ms = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!)
  return Number.isFinite(ms) ? ms : null
}

const ELEMENT_FILE_EXTENSIONS = new Set(['.tle', '.txt', '.3le'])

/**
 * Reads `--snapshot PATH`: a bundle (`snapshot.json`), one element file (its
 * name is the group), or a folder of `<group>.tle` files (a folder named like
 * `2026-05-30T2250Z` gives the stamp, otherwise the newest file time does).
 */
export async function loadSnapshotPath(path: string): Promise<SnapshotData> {
  let info
  try {
    info = await stat(path)
  } catch {
    throw new SnapshotError(`snapshot ${path} does not exist or cannot be read`)
  }
  if (info.isFile()) {
    if (extname(path) === '.json') return fromBundle(await Bun.file(path).json(), path)
    return {
      stampMs: info.mtimeMs,
      description: path,
      groups: [{ group: basename(path, extname(path)), text: await Bun.file(path).text() }],
    }
  }
  const names = (await readdir(path)).filter((n) => ELEMENT_FILE_EXTENSIONS.has(extname(n))).sort()
  if (names.length === 0) {
    const bundle = join(path, 'snapshot.json')
    if (await Bun.file(bundle).exists()) return fromBundle(await Bun.file(bundle).json(), bundle)
    throw new SnapshotError(`snapshot folder ${path} holds no <group>.tle files`)
  }
  const groups = []
  let newestMtime = 0
  for (const name of names) {
    const file = join(path, name)
    newestMtime = Math.max(newestMtime, (await stat(file)).mtimeMs)
    groups.push({ group: basename(name, extname(name)), text: await Bun.file(file).text() })
  }
  return { stampMs: parseFolderStamp(basename(path)) ?? newestMtime, description: path, groups }
}

export interface LoadReport {
  catalog: Catalog
  /** Element sets rejected by validation, per group. */
  invalidByGroup: Record<string, number>
  /** The first few rejections, for the log. */
  examples: string[]
}

/** Parses every group of a snapshot and builds the catalogue; invalid element sets are counted, not fatal. */
export function catalogFromSnapshot(snapshot: SnapshotData, source: CatalogOrigin['source'], nowMs: number): LoadReport {
  const invalidByGroup: Record<string, number> = {}
  const examples: string[] = []
  const groups = snapshot.groups.map(({ group, text }) => {
    const { elements, invalid } = parseTleText(text)
    if (invalid.length > 0) invalidByGroup[group] = invalid.length
    for (const bad of invalid.slice(0, 3 - examples.length)) examples.push(`${group} line ${bad.line}: ${bad.reason}`)
    return { group, elements }
  })
  const catalog = buildCatalog(groups, { source, obtainedAtMs: snapshot.stampMs }, nowMs)
  return { catalog, invalidByGroup, examples }
}
