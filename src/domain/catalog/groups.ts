/**
 * The one shape of the data path: a group of element sets, where it came from
 * and when it was obtained. Every source gives groups in this shape (the
 * embedded snapshot, `--snapshot`, the data-dir cache, a refresh round, a
 * reload); reading parses and validates them (validate.ts); the overlay
 * (overlay.ts) chooses, group by group, the newest; the catalogue is built
 * from the result. Pure: the sources are read by src/io/.
 */
import type { GroupSource } from './catalog.ts'
import type { ElementSet } from './elements.ts'
import { type ElementFormat, parseAnyElements, parseElements } from './formats.ts'
import { type Refusal, validateElementSets } from './validate.ts'

/** A group of element sets, where it came from and when it was obtained. */
export interface ElementGroup {
  /** The CelesTrak group name (`stations`), or a file's name. */
  group: string
  source: GroupSource
  /** When its data was obtained upstream (a snapshot's stamp, a fetch, a 304 confirming it), ms since 1970. */
  obtainedAtMs: number
  /** The payload as published, when at hand (absent for the prepared embedded snapshot and the catalogue held). */
  text?: string
  /** The payload's format when known; otherwise it is recognised from the text. */
  format?: ElementFormat
  /** The validators of the HTTP response it came in (refresh, cache), for a conditional request. */
  etag?: string | null
  lastModified?: string | null
  /** Its element sets once read and validated (see readGroups). */
  elements?: readonly ElementSet[]
  /** The element sets validation refused, with the reason of each. */
  refused?: readonly Refusal[]
}

/** What one source gave: its groups, and for people where it is and how it was dated. */
export interface GroupSet {
  source: GroupSource
  /** Where it came from, for people (a path, a URL). */
  description: string
  /** When its data was obtained: the newest of its groups' times, ms since 1970. */
  obtainedAtMs: number
  /** What `obtainedAtMs` was read from, for the log (a stamp when absent). */
  datedBy?: 'stamp' | 'newest epoch' | 'file time'
  groups: ElementGroup[]
  /** What reading found, once read (see readGroups). */
  read?: ReadReport
}

/** What reading a set's groups rejected. */
export interface ReadReport {
  /** Element sets rejected by parsing or validation, per group. */
  invalidByGroup: Record<string, number>
  /** Groups whose text could not be read at all (wrong format, not JSON, …), with the reason. */
  unreadableGroups: Record<string, string>
  /** The first few rejections, for the log. */
  examples: string[]
}

/** The same set with every group (and the set) dated `obtainedAtMs`. */
export function redate(set: GroupSet, obtainedAtMs: number, datedBy: GroupSet['datedBy']): GroupSet {
  return { ...set, obtainedAtMs, datedBy, groups: set.groups.map((g) => ({ ...g, obtainedAtMs })) }
}

/**
 * Reads every group of the set that is not read yet (TLE, OMM JSON or CSV),
 * validating each element set against the time its group was obtained;
 * invalid and refused sets are counted, not fatal. Entries with the same group
 * name become one group. Read once: the result is kept in the set.
 */
export function readGroups(set: GroupSet): ReadReport {
  if (set.read) return set.read
  const invalidByGroup: Record<string, number> = {}
  const unreadableGroups: Record<string, string> = {}
  const examples: string[] = []
  const merged = new Map<string, ElementGroup>()
  for (const entry of set.groups) {
    let group = entry
    if (!entry.elements) {
      const { group: name, text = '', format, obtainedAtMs } = entry
      const parsed = format ? parseElements(text, format) : parseAnyElements(text)
      if (!parsed.ok) {
        unreadableGroups[name] = parsed.reason
        if (examples.length < 3) examples.push(`${name}: ${parsed.reason}`)
        group = { ...entry, elements: [], refused: [] }
      } else {
        // Sets that parse but SGP4 cannot use, dated after their group was obtained, or with unprintable names.
        const { accepted, refused } = validateElementSets(parsed.elements, obtainedAtMs)
        const rejected = parsed.invalid.length + refused.length
        if (rejected > 0) invalidByGroup[name] = (invalidByGroup[name] ?? 0) + rejected
        const where = parsed.format === 'json' ? 'record' : 'line'
        for (const bad of parsed.invalid.slice(0, Math.max(0, 3 - examples.length))) examples.push(`${name} ${where} ${bad.line}: ${bad.reason}`)
        for (const bad of refused.slice(0, Math.max(0, 3 - examples.length))) examples.push(`${name} ${bad.noradId}: ${bad.reason}`)
        group = { ...entry, format: parsed.format, elements: accepted, refused }
      }
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

/** The newest element-set epoch of a read set, or null when it holds none. */
export function newestEpochMs(set: GroupSet): number | null {
  readGroups(set)
  let newest: number | null = null
  for (const { elements = [] } of set.groups) for (const e of elements) if (newest === null || e.epochMs > newest) newest = e.epochMs
  return newest
}

/** How many valid element sets a read set holds. */
export function elementCount(set: GroupSet): number {
  readGroups(set)
  return set.groups.reduce((n, g) => n + (g.elements?.length ?? 0), 0)
}
