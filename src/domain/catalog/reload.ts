/**
 * Reloading `--snapshot` without a restart (SIGHUP): the file read again
 * competes with the catalogue held by the same overlay rule as at start and on
 * a refresh (for each group the newest source wins; for each satellite the
 * newest element set), so a newer file replaces the groups it is newer for and
 * nothing else is lost, and no satellite's set goes back to an older one. A file
 * with no valid element set changes nothing; a file that brings nothing new
 * swaps nothing. A group of the file is not taken, and keeps what it had, when
 * its file ends inside an element set (cut short: copied in part, or read while
 * being written) or it holds fewer than half the satellites the group has, as a
 * refresh refuses such payloads. Pure: src/main.ts reads the file and swaps.
 */
import type { Catalog } from './catalog.ts'
import type { ElementSet } from './elements.ts'
import { describeRefusal, type ElementGroup, elementCount, endsCutShort, type GroupSet, readGroups } from './groups.ts'
import { catalogOf, chooseNewest, layerOf, overlay, type RefusedSet, refusedSets } from './overlay.ts'
import { believableDate, type StartWarning } from './startup.ts'

export interface ReloadChanges {
  /** Groups the file gave: it obtained them later than the catalogue held them, or the catalogue had none. */
  groupsReplaced: string[]
  /**
   * Every other group the catalogue holds or the file names, kept as it was: held data obtained
   * later or the same, or a file with no valid set for it (unreadable, empty) or none at all.
   */
  groupsKept: string[]
  satellitesBefore: number
  satellitesAfter: number
  /** Catalog numbers that came or went, whose element set changed, and whose groups changed. */
  added: number
  removed: number
  elementsChanged: number
  groupsChanged: number
  /** Satellites of the file whose set was older than the one held: the held one stays. */
  olderSetsIgnored: number
  /** When the file was obtained (its stamp, or when it was written): not the time of the data held. */
  fileObtainedAt: string
}

export type ReloadPlan =
  | { ok: false; error: string; unreadableGroups: Record<string, string>; examples: string[] }
  /** `catalog` null: the file brings nothing new (nothing to swap). */
  | {
      ok: true
      catalog: Catalog | null
      changes: ReloadChanges
      warning: StartWarning | null
      invalidByGroup: Record<string, number>
      /** Files of the folder that could not be read at all: their groups are left as they are. */
      unreadableGroups: Record<string, string>
      /** Groups the file would have replaced, not taken (cut short, or shrunk by more than half), with the reason: they are left as they are. */
      refusedGroups: Record<string, string>
      /** The first few element sets refused, of the groups taken. */
      examples: string[]
      /** Each element set of the file not taken, with whether its satellite stays in its group. */
      refused: RefusedSet[]
    }

/** Whether two element sets say the same (a file read again gives new objects for the same sets). */
function sameElements(a: ElementSet, b: ElementSet): boolean {
  if (a === b) return true
  return a.epochMs === b.epochMs && a.name === b.name && a.tle?.line1 === b.tle?.line1 && a.tle?.line2 === b.tle?.line2 && a.meanMotionRevPerDay === b.meanMotionRevPerDay && a.eccentricity === b.eccentricity
}

/**
 * Why a group of the file that would replace the one held is not taken, or
 * null: its file ends inside an element set, or it holds fewer than half the
 * satellites of the group held (`heldCount`).
 */
function refusedGroupReason(g: ElementGroup, heldCount: number | undefined): string | null {
  if (endsCutShort(g)) return 'its file ends inside an element set (cut short?)'
  const count = new Set(g.elements!.map((e) => e.noradId)).size
  return heldCount !== undefined && count < heldCount / 2 ? `${count} satellites, fewer than half of the ${heldCount} it holds` : null
}

export function planReload(current: Catalog, file: GroupSet, nowMs: number): ReloadPlan {
  const { set, warning } = believableDate(file, nowMs, '--snapshot')
  const read = readGroups(set)
  if (elementCount(set) === 0) return { ok: false, error: `no valid element sets in ${file.description}`, unreadableGroups: read.unreadableGroups, examples: read.examples }
  const heldLayer = layerOf(current)
  // A group of the file holding nothing valid competes with nothing; nor does one it would replace the held one with, refused.
  const valid = set.groups.filter((g) => (g.elements?.length ?? 0) > 0).map((g) => ({ ...g, source: 'snapshot' as const }))
  const wins = chooseNewest([heldLayer, { groups: valid }])
  const refusedGroups: Record<string, string> = {}
  for (const g of valid) {
    const reason = wins.get(g.group) === 1 ? refusedGroupReason(g, current.groupCounts[g.group]) : null
    if (reason !== null) refusedGroups[g.group] = reason
  }
  const groups = valid.filter((g) => !(g.group in refusedGroups))
  const overlaid = overlay([heldLayer, { source: 'snapshot', groups }])
  // A group the file wins replaces the one held when it is new, obtained later, or holds other satellites.
  const held = heldLayer.groups
  const differs = (g: (typeof groups)[number]) => {
    const before = held.find((h) => h.group === g.group)
    if (!before || before.obtainedAtMs !== g.obtainedAtMs || before.elements!.length !== g.elements!.length) return true
    const ids = new Set(before.elements!.map((e) => e.noradId))
    return g.elements!.some((e) => !ids.has(e.noradId))
  }
  const groupsReplaced = groups.filter((g) => overlaid.fromLayer[g.group] === 1 && differs(g)).map((g) => g.group)
  // Every group the catalogue goes on holding as it was: those held (a file that could not be read leaves its group
  // as it was) and those of the file, less the replaced ones.
  const everyGroup = [...new Set([...held.map((h) => h.group), ...groups.map((g) => g.group)])].sort()
  const groupsKept = everyGroup.filter((g) => !groupsReplaced.includes(g))
  const next = catalogOf(overlaid, nowMs)
  let added = 0
  let elementsChanged = 0
  let groupsChanged = 0
  for (const s of next.satellites) {
    const before = current.get(s.noradId)
    if (!before) added += 1
    else {
      if (!sameElements(before.elements, s.elements)) elementsChanged += 1
      if (before.groups.join() !== s.groups.join()) groupsChanged += 1
    }
  }
  const removed = current.satellites.filter((s) => !next.get(s.noradId)).length
  const unchanged = added === 0 && removed === 0 && elementsChanged === 0 && groupsChanged === 0
  // The file's groups as read, less those not taken: their refused sets are the reload's to report.
  const considered = set.groups.filter((g) => !(g.group in refusedGroups))
  const changes: ReloadChanges = {
    // Nothing is swapped when no satellite changes: then no group is replaced either.
    groupsReplaced: unchanged ? [] : groupsReplaced,
    groupsKept: unchanged ? everyGroup : groupsKept,
    satellitesBefore: current.size,
    satellitesAfter: next.size,
    added,
    removed,
    elementsChanged,
    groupsChanged,
    olderSetsIgnored: Object.entries(overlaid.keptNewer).reduce((n, [g, count]) => n + (overlaid.fromLayer[g] === 1 ? count : 0), 0),
    fileObtainedAt: new Date(set.obtainedAtMs).toISOString(),
  }
  return {
    ok: true,
    catalog: unchanged ? null : next,
    changes,
    warning,
    invalidByGroup: Object.fromEntries(Object.entries(read.invalidByGroup).filter(([g]) => !(g in refusedGroups))),
    unreadableGroups: read.unreadableGroups,
    refusedGroups,
    examples: considered.flatMap((g) => (g.refused ?? []).map((r) => describeRefusal(g.group, r))).slice(0, 3),
    refused: refusedSets(considered, unchanged ? current : next),
  }
}
