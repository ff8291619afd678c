/**
 * Prepared snapshots: a snapshot parsed and validated at build time, stored as
 * rows of element-set fields, so the executable starts without parsing and
 * validating ~12,000 TLEs (most of its start-up time otherwise). The file is
 * JSON: `kind`, `stamp`, `source`, `fields` (ElementSet field names, in the
 * order of each row), `groups` (`{group, rows}`), and what validation found
 * (`invalidByGroup`, `unreadableGroups`, `examples`); read back it is the same
 * set of groups (groups.ts), already read.
 */
import type { ElementSet } from './elements.ts'
import { type GroupSet, readGroups } from './groups.ts'

export const PREPARED_KIND = 'sattrack-prepared-snapshot/1'

/** Parses and validates every group of `snapshot` (the one reading step) and gives the prepared file's text. */
export function preparedText(snapshot: GroupSet): string {
  const read = readGroups(snapshot)
  const groups = snapshot.groups.map((g) => ({ group: g.group, elements: g.elements ?? [] }))
  const fields = [...new Set(groups.flatMap((g) => g.elements.flatMap((e) => Object.keys(e))))].sort()
  return JSON.stringify({
    kind: PREPARED_KIND,
    stamp: new Date(snapshot.obtainedAtMs).toISOString(),
    source: snapshot.description,
    fields,
    groups: groups.map(({ group, elements }) => ({
      group,
      rows: elements.map((e) => fields.map((f) => (e as unknown as Record<string, unknown>)[f] ?? null)),
    })),
    invalidByGroup: read.invalidByGroup,
    unreadableGroups: read.unreadableGroups,
    examples: read.examples,
  })
}

/** The embedded snapshot a prepared file describes, already read (no `text` to read again). */
export function snapshotFromPrepared(json: unknown, where: string): GroupSet {
  const prepared = json as {
    kind?: unknown
    stamp: string
    source: string
    fields: string[]
    groups: { group: string; rows: unknown[][] }[]
    invalidByGroup: Record<string, number>
    unreadableGroups: Record<string, string>
    examples: string[]
  }
  if (prepared?.kind !== PREPARED_KIND || !Array.isArray(prepared.groups) || !Array.isArray(prepared.fields)) {
    throw new Error(`${where} is not a prepared snapshot (${PREPARED_KIND}); rebuild it with make build`)
  }
  const elementOf = rowReader(prepared.fields)
  const obtainedAtMs = Date.parse(prepared.stamp)
  const groups = prepared.groups.map(({ group, rows }) => ({
    group,
    source: 'embedded' as const,
    obtainedAtMs,
    elements: rows.map(elementOf),
  }))
  return {
    source: 'embedded',
    obtainedAtMs,
    datedBy: 'stamp',
    description: prepared.source,
    groups,
    read: { invalidByGroup: prepared.invalidByGroup, unreadableGroups: prepared.unreadableGroups, examples: prepared.examples },
  }
}

/**
 * A row of the prepared file as an ElementSet. Every element set is made by
 * the same object literal, so all share one shape (several times faster to
 * make and to read than objects built key by key); a field the file does not
 * hold, or holds as null, is undefined (`tle`: null).
 */
export function rowReader(fields: readonly string[]): (row: unknown[]) => ElementSet {
  const column = (name: keyof ElementSet) => fields.indexOf(name)
  const at = (row: unknown[], i: number): any => (i < 0 || row[i] === null ? undefined : row[i])
  const [noradId, name, intlDesignator, classification, epochMs, meanMotionDot, meanMotionDdot, bstar, ephemerisType, elementSetNo] = (
    ['noradId', 'name', 'intlDesignator', 'classification', 'epochMs', 'meanMotionDot', 'meanMotionDdot', 'bstar', 'ephemerisType', 'elementSetNo'] as const
  ).map(column) as number[]
  const [inclinationDeg, raanDeg, eccentricity, argOfPericenterDeg, meanAnomalyDeg, meanMotionRevPerDay, revAtEpoch, tle, epochUs, sourceFormat] = (
    ['inclinationDeg', 'raanDeg', 'eccentricity', 'argOfPericenterDeg', 'meanAnomalyDeg', 'meanMotionRevPerDay', 'revAtEpoch', 'tle', 'epochUs', 'sourceFormat'] as const
  ).map(column) as number[]
  return (row) => ({
    noradId: at(row, noradId!),
    name: at(row, name!),
    intlDesignator: at(row, intlDesignator!),
    classification: at(row, classification!),
    epochMs: at(row, epochMs!),
    meanMotionDot: at(row, meanMotionDot!),
    meanMotionDdot: at(row, meanMotionDdot!),
    bstar: at(row, bstar!),
    ephemerisType: at(row, ephemerisType!),
    elementSetNo: at(row, elementSetNo!),
    inclinationDeg: at(row, inclinationDeg!),
    raanDeg: at(row, raanDeg!),
    eccentricity: at(row, eccentricity!),
    argOfPericenterDeg: at(row, argOfPericenterDeg!),
    meanAnomalyDeg: at(row, meanAnomalyDeg!),
    meanMotionRevPerDay: at(row, meanMotionRevPerDay!),
    revAtEpoch: at(row, revAtEpoch!),
    tle: at(row, tle!) ?? null,
    epochUs: at(row, epochUs!),
    sourceFormat: at(row, sourceFormat!),
  })
}
