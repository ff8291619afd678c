/** Snapshots: the one embedded at build time and the ones `--snapshot` points at (TLE, OMM JSON or CSV). */
import { readdir, stat } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import { buildCatalog, type Catalog, type CatalogOrigin } from './catalog.ts'
import type { ElementSet } from './elements.ts'
import { type ElementFormat, formatOfFileName, parseAnyElements, parseElements } from './formats.ts'
import { validateElementSets } from './validate.ts'
import { CACHE_KIND, deserializeCache, snapshotFromCache } from './persist.ts'

/** The raw text of every group of a snapshot, and when the data was obtained. */
export interface SnapshotData {
  /** When the data was taken from upstream, ms since 1970. */
  stampMs: number
  /** What `stampMs` was read from, for the log; a stamp (folder name, bundle, cache) when absent. */
  datedBy?: 'stamp' | 'newest epoch' | 'file time'
  /** Where it came from, for people (a URL, a folder). */
  description: string
  /**
   * One entry per file or payload; `format` when it is known, otherwise it is
   * recognised from the text; `obtainedAtMs` when the group was obtained at
   * its own time (a cache's groups), else `stampMs` holds for it.
   */
  groups: { group: string; text: string; format?: ElementFormat; obtainedAtMs?: number }[]
  /**
   * The groups already parsed and validated (a prepared snapshot, or one read
   * once already: see parseSnapshot); `groups` is then not read again.
   */
  parsed?: ParsedGroups
}

/** Element sets per group after parsing, and what validation rejected. */
export interface ParsedGroups {
  groups: { group: string; elements: ElementSet[] }[]
  invalidByGroup: Record<string, number>
  unreadableGroups: Record<string, string>
  examples: string[]
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
  return { stampMs, datedBy: 'stamp', description: String(bundle.source ?? where), groups }
}

/** `2026-05-30T2250Z` (CelesTrak snapshot folder names) → ms, or null. */
export function parseFolderStamp(name: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})(\d{2})Z$/.exec(name)
  if (!m) return null
  const ms = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!)
  return Number.isFinite(ms) ? ms : null
}

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

/** The newest element-set epoch of parsed groups, or null when they hold none. */
export function newestEpochMs(parsed: ParsedGroups): number | null {
  let newest: number | null = null
  for (const { elements } of parsed.groups) for (const e of elements) if (newest === null || e.epochMs > newest) newest = e.epochMs
  return newest
}

/** How many valid element sets parsed groups hold. */
export function elementCount(parsed: ParsedGroups): number {
  return parsed.groups.reduce((n, g) => n + g.elements.length, 0)
}

export interface LoadReport {
  catalog: Catalog
  /** The element sets of each group as parsed (before merging into the catalogue). */
  parsedGroups: ParsedGroups['groups']
  /** Element sets rejected by validation, per group. */
  invalidByGroup: Record<string, number>
  /** Groups whose text could not be read at all (wrong format, not JSON, …), with the reason. */
  unreadableGroups: Record<string, string>
  /** The first few rejections, for the log. */
  examples: string[]
}

/**
 * Parses every group of a snapshot and builds the catalogue; invalid element
 * sets and unreadable groups are counted, not fatal (the caller decides).
 * Several entries with the same group name add up to one group.
 */
export function catalogFromSnapshot(snapshot: SnapshotData, source: CatalogOrigin['source'], nowMs: number): LoadReport {
  const parsed = parseSnapshot(snapshot)
  const catalog = buildCatalog(parsed.groups, { source, obtainedAtMs: snapshot.stampMs }, nowMs)
  return {
    catalog,
    parsedGroups: parsed.groups,
    invalidByGroup: parsed.invalidByGroup,
    unreadableGroups: parsed.unreadableGroups,
    examples: parsed.examples,
  }
}

/** The snapshot's groups parsed and validated; parsed once, then kept in `snapshot.parsed`. */
export function parseSnapshot(snapshot: SnapshotData): ParsedGroups {
  snapshot.parsed ??= parseGroups(snapshot)
  return snapshot.parsed
}

/** Parses every group's text (TLE, OMM JSON or CSV); invalid element sets are counted, not fatal. */
function parseGroups(snapshot: SnapshotData): ParsedGroups {
  const invalidByGroup: Record<string, number> = {}
  const unreadableGroups: Record<string, string> = {}
  const examples: string[] = []
  const groups = snapshot.groups.map(({ group, text, format, obtainedAtMs }): { group: string; elements: ElementSet[] } => {
    const parsed = format ? parseElements(text, format) : parseAnyElements(text)
    if (!parsed.ok) {
      unreadableGroups[group] = parsed.reason
      if (examples.length < 3) examples.push(`${group}: ${parsed.reason}`)
      return { group, elements: [] }
    }
    // Sets that parse but SGP4 cannot use, dated after their group was obtained, or with unprintable names.
    const { accepted, refused } = validateElementSets(parsed.elements, obtainedAtMs ?? snapshot.stampMs)
    const rejected = parsed.invalid.length + refused.length
    if (rejected > 0) invalidByGroup[group] = (invalidByGroup[group] ?? 0) + rejected
    const where = parsed.format === 'json' ? 'record' : 'line'
    for (const bad of parsed.invalid.slice(0, Math.max(0, 3 - examples.length))) {
      examples.push(`${group} ${where} ${bad.line}: ${bad.reason}`)
    }
    for (const bad of refused.slice(0, Math.max(0, 3 - examples.length))) examples.push(`${group} ${bad.noradId}: ${bad.reason}`)
    return { group, elements: accepted }
  })
  return { groups, invalidByGroup, unreadableGroups, examples }
}
