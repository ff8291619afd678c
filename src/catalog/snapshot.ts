/**
 * Snapshots as data: groups of element-set texts with when they were obtained,
 * parsed and validated into a catalogue. Pure: reading them from disk is
 * src/io/snapshot-files.ts (and src/io/embedded.ts, src/io/cache.ts).
 */
import { buildCatalog, type Catalog, type CatalogOrigin } from './catalog.ts'
import type { ElementSet } from './elements.ts'
import { type ElementFormat, parseAnyElements, parseElements } from './formats.ts'
import { validateElementSets } from './validate.ts'

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
