/**
 * Snapshot files as data: the bundle `make` writes and the build embeds (JSON:
 * `stamp`, `source`, and `groups`, each group's payload as published), the
 * stamp of a CelesTrak snapshot folder, and a set of groups read into a
 * catalogue in one step (scripts, tests). Pure: reading files is
 * src/io/snapshot-files.ts (and src/io/embedded.ts, src/io/cache.ts).
 */
import type { Catalog, GroupSource } from './catalog.ts'
import { type GroupSet, type ReadReport, readGroups } from './groups.ts'
import { catalogOf, overlay } from './overlay.ts'

export class SnapshotError extends Error {}

/** A bundle's groups (`{stamp, source, groups: {name: payload}}`), obtained at its stamp. */
export function fromBundle(bundle: unknown, where: string, source: GroupSource = 'snapshot'): GroupSet {
  const data = bundle as { stamp?: unknown; source?: unknown; groups?: unknown } | null
  const obtainedAtMs = Date.parse(String(data?.stamp))
  if (!Number.isFinite(obtainedAtMs) || typeof data?.groups !== 'object' || data.groups === null || Array.isArray(data.groups)) {
    throw new SnapshotError(`${where} is not a snapshot bundle (needs stamp, source, groups)`)
  }
  const groups = Object.entries(data.groups as Record<string, unknown>).map(([group, text]) => ({ group, source, obtainedAtMs, text: String(text) }))
  return { source, obtainedAtMs, datedBy: 'stamp', description: String(data.source ?? where), groups }
}

/** The bundle's JSON text of a set of groups with their payloads. */
export function bundleText(stamp: string, source: string, groups: Record<string, string>): string {
  return JSON.stringify({ stamp, source, groups })
}

/** `2026-05-30T2250Z` (CelesTrak snapshot folder names) → ms, or null. */
export function parseFolderStamp(name: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})(\d{2})Z$/.exec(name)
  if (!m) return null
  const ms = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!)
  return Number.isFinite(ms) ? ms : null
}

/**
 * Reads every group of a set and builds the catalogue of it alone, said to
 * come from `source`; invalid element sets and unreadable groups are counted,
 * not fatal (the caller decides). Entries with the same group name add up to one group.
 */
export function catalogFromSnapshot(set: GroupSet, source: GroupSource, nowMs: number): ReadReport & { catalog: Catalog; groups: GroupSet['groups'] } {
  const read = readGroups(set)
  const groups = set.groups.map((g) => ({ ...g, source }))
  const catalog = catalogOf({ ...overlay([{ source, groups }]), source }, nowMs)
  return { catalog, groups: set.groups, ...read }
}
