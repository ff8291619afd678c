/**
 * The one shape of the data path, and its one reading step. Every source gives
 * groups of element sets in this shape (the embedded snapshot, `--snapshot`,
 * the data-dir cache, a refresh round, a reload, `make snapshot`); readGroup
 * parses and validates each the same way (validate.ts); the overlay
 * (overlay.ts) chooses, group by group, the newest, and satellite by satellite
 * the newest element set; the catalogue is built from the result. Pure: the
 * sources are read by src/io/.
 */
import type { GroupSource, SortedSatellite } from './catalog.ts'
import type { ElementSet } from './elements.ts'
import { type ElementFormat, endsInsideElementSet, parseAnyElements, parseElements } from './formats.ts'
import { type Refusal, validateElementSets } from './validate.ts'

/** A group of element sets, where it came from and when it was obtained. */
export interface ElementGroup {
  /** The CelesTrak group name (`stations`), or a file's name. */
  group: string
  source: GroupSource
  /** When its data was obtained upstream (a snapshot's stamp, a file's time, a fetch, a 304 confirming it), ms since 1970. */
  obtainedAtMs: number
  /** The payload as published, when at hand (absent for the prepared embedded snapshot and the catalogue held). */
  text?: string
  /** The payload's format when known; otherwise it is recognised from the text. */
  format?: ElementFormat
  /** The validators of the HTTP response it came in (refresh, cache), for a conditional request. */
  etag?: string | null
  lastModified?: string | null
  /** Its element sets once read and validated (see readGroup): one per satellite. */
  elements?: readonly ElementSet[]
  /** The element sets not taken: those that could not be read and those validation refused, with the reason of each. */
  refused?: readonly Refusal[]
}

/** What one source gave: its groups, and for people where it is and how it was dated. */
export interface GroupSet {
  source: GroupSource
  /** Where it came from, for people (a path, a URL). */
  description: string
  /** When its data was obtained: the newest of its groups' times, ms since 1970. */
  obtainedAtMs: number
  /**
   * What `obtainedAtMs` was read from, for the log: a stamp (a stamped folder's
   * name, a bundle's or a cache's), the files' modification time, or the time
   * they were read (a time that lay ahead of the clock). Never the element sets'
   * own epochs: data cannot date itself.
   */
  datedBy?: 'stamp' | 'file time' | 'time read'
  groups: ElementGroup[]
  /** What reading found, once read (see readGroups). */
  read?: ReadReport
  /**
   * The catalogue its groups make by themselves, when made already (a prepared
   * snapshot, prepared.ts): every satellite once, ordered by catalog number.
   */
  sorted?: readonly SortedSatellite[]
}

/** What reading a set's groups rejected. */
export interface ReadReport {
  /** Element sets rejected by parsing or validation, per group. */
  invalidByGroup: Record<string, number>
  /** Groups whose text could not be read at all (wrong format, not JSON, too many satellites…), with the reason. */
  unreadableGroups: Record<string, string>
  /** The first few rejections, for the log. */
  examples: string[]
}

export type GroupRead =
  | { ok: true; group: ElementGroup }
  /** `wrongFormat`: the text is not the format expected (or none); `overLimit`: it holds more satellites than allowed. */
  | { ok: false; reason: string; wrongFormat: boolean; overLimit: boolean }

export interface ReadLimits {
  /** The most satellites a group may hold: reading stops past it, and the group is refused. */
  maxSatellites?: number
}

/**
 * The one reading step: parses a group's payload (its format, or the one its
 * text shows), one set per satellite (a repeated satellite keeps its newest
 * set, as it is read), and validates each set against the time the group was
 * obtained. Sets that cannot be read, or that validation refuses, are listed in
 * `refused` (with their catalog number when they say it), never fatal. A group
 * already read is given back as it is.
 */
export function readGroup(entry: ElementGroup, { maxSatellites }: ReadLimits = {}): GroupRead {
  if (entry.elements) return { ok: true, group: entry }
  const text = entry.text ?? ''
  const parsed = entry.format ? parseElements(text, entry.format, maxSatellites) : parseAnyElements(text, maxSatellites)
  if (!parsed.ok) return { ok: false, reason: parsed.reason, wrongFormat: parsed.wrongFormat ?? false, overLimit: false }
  if (parsed.overLimit) {
    return { ok: false, reason: `it holds more than ${maxSatellites} satellites (the rest was not read)`, wrongFormat: false, overLimit: true }
  }
  const where = parsed.format === 'json' ? 'record' : 'line'
  const unreadable: Refusal[] = parsed.invalid.map((bad) => ({ noradId: bad.noradId ?? null, reason: `${where} ${bad.line}: ${bad.reason}`, line: bad.line }))
  // Sets that parse but SGP4 cannot use, dated after their group was obtained, or with unprintable names.
  const { accepted, refused } = validateElementSets(parsed.elements, entry.obtainedAtMs)
  return { ok: true, group: { ...entry, format: parsed.format, elements: accepted, refused: [...unreadable, ...refused] } }
}

/** Whether a group read from its payload ends inside an element set (its last set unreadable, or a TLE text ending on a name): a payload cut short. */
export function endsCutShort(g: ElementGroup): boolean {
  if (g.text === undefined || g.format === undefined) return false
  return endsInsideElementSet(g.text, g.format, (g.refused ?? []).flatMap((r) => (r.line === undefined ? [] : [{ line: r.line }])))
}

/** A refusal for people: `stations 25544: its epoch … is more than a day after …`. */
export function describeRefusal(group: string, refusal: Refusal): string {
  return refusal.noradId === null ? `${group} ${refusal.reason}` : `${group} ${refusal.noradId}: ${refusal.reason}`
}

/** The same set with every group (and the set) dated `obtainedAtMs`. */
export function redate(set: GroupSet, obtainedAtMs: number, datedBy: GroupSet['datedBy']): GroupSet {
  return { ...set, obtainedAtMs, datedBy, groups: set.groups.map((g) => ({ ...g, obtainedAtMs })) }
}

/**
 * Reads every group of the set that is not read yet (readGroup); invalid and
 * refused sets are counted, not fatal, and a group that cannot be read at all
 * is reported and holds nothing. Entries with the same group name become one
 * group. Read once: the result is kept in the set.
 */
export function readGroups(set: GroupSet, limits: ReadLimits = {}): ReadReport {
  if (set.read) return set.read
  const invalidByGroup: Record<string, number> = {}
  const unreadableGroups: Record<string, string> = {}
  const examples: string[] = []
  const merged = new Map<string, ElementGroup>()
  for (const entry of set.groups) {
    const read = readGroup(entry, limits)
    let group: ElementGroup
    if (!read.ok) {
      unreadableGroups[entry.group] = read.reason
      if (examples.length < 3) examples.push(`${entry.group}: ${read.reason}`)
      group = { ...entry, elements: [], refused: [] }
    } else {
      group = read.group
      const refused = group.refused ?? []
      if (refused.length > 0) invalidByGroup[group.group] = (invalidByGroup[group.group] ?? 0) + refused.length
      for (const r of refused.slice(0, Math.max(0, 3 - examples.length))) examples.push(describeRefusal(group.group, r))
    }
    const before = merged.get(group.group)
    merged.set(
      group.group,
      before
        ? {
            ...before,
            obtainedAtMs: Math.max(before.obtainedAtMs, group.obtainedAtMs),
            elements: [...before.elements!, ...group.elements!],
            refused: [...(before.refused ?? []), ...(group.refused ?? [])],
          }
        : group,
    )
  }
  set.groups = [...merged.values()]
  set.read = { invalidByGroup, unreadableGroups, examples }
  return set.read
}

/** How many valid element sets a read set holds. */
export function elementCount(set: GroupSet): number {
  readGroups(set)
  return set.groups.reduce((n, g) => n + (g.elements?.length ?? 0), 0)
}
