/**
 * Prepared snapshots: a snapshot parsed and validated at build time, stored as
 * rows of element-set fields, so the executable starts without parsing and
 * validating ~12,000 TLEs (most of its start-up time otherwise).
 */
import type { ElementSet } from './elements.ts'
import { catalogFromSnapshot, type SnapshotData } from './snapshot.ts'

export const PREPARED_KIND = 'sattrack-prepared-snapshot/1'

export interface PreparedSnapshot {
  kind: typeof PREPARED_KIND
  stamp: string
  source: string
  /** ElementSet field names, in the order of each row. */
  fields: string[]
  groups: { group: string; rows: unknown[][] }[]
  /** What validation found at build time, for the start-up log. */
  invalidByGroup: Record<string, number>
  unreadableGroups: Record<string, string>
  examples: string[]
}

/** Parses and validates every group of `snapshot` into a prepared snapshot. */
export function prepareSnapshot(snapshot: SnapshotData): PreparedSnapshot {
  const report = catalogFromSnapshot(snapshot, 'embedded', snapshot.stampMs)
  const groups = report.parsedGroups
  const fields = [...new Set(groups.flatMap((g) => g.elements.flatMap((e) => Object.keys(e))))].sort()
  return {
    kind: PREPARED_KIND,
    stamp: new Date(snapshot.stampMs).toISOString(),
    source: snapshot.description,
    fields,
    groups: groups.map(({ group, elements }) => ({
      group,
      rows: elements.map((e) => fields.map((f) => (e as unknown as Record<string, unknown>)[f] ?? null)),
    })),
    invalidByGroup: report.invalidByGroup,
    unreadableGroups: report.unreadableGroups,
    examples: report.examples,
  }
}

/** The snapshot a prepared file describes, already parsed (no `text` to read again). */
export function snapshotFromPrepared(prepared: PreparedSnapshot, where: string): SnapshotData {
  if (prepared?.kind !== PREPARED_KIND || !Array.isArray(prepared.groups) || !Array.isArray(prepared.fields)) {
    throw new Error(`${where} is not a prepared snapshot (${PREPARED_KIND}); rebuild it with make build`)
  }
  const { fields } = prepared
  const groups = prepared.groups.map(({ group, rows }) => ({
    group,
    elements: rows.map((row) => {
      const element: Record<string, unknown> = {}
      for (let i = 0; i < fields.length; i++) if (row[i] !== null) element[fields[i]!] = row[i]
      element.tle ??= null
      return element as unknown as ElementSet
    }),
  }))
  return {
    stampMs: Date.parse(prepared.stamp),
    description: prepared.source,
    groups: [],
    parsed: {
      groups,
      invalidByGroup: prepared.invalidByGroup,
      unreadableGroups: prepared.unreadableGroups,
      examples: prepared.examples,
    },
  }
}
