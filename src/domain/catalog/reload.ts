/**
 * Reloading `--snapshot` without a restart (SIGHUP): the file read again
 * competes with the catalogue held by the same overlay rule as at start and on
 * a refresh (for each group the newest source wins), so a newer file replaces
 * the groups it is newer for and nothing else is lost. A file with no valid
 * element set changes nothing. Pure: src/main.ts reads the file and swaps.
 */
import type { Catalog } from './catalog.ts'
import type { ElementSet } from './elements.ts'
import { elementCount, type GroupSet } from './groups.ts'
import { catalogOf, layerOf, overlay } from './overlay.ts'
import { believableDate, type StartWarning } from './startup.ts'

export interface ReloadChanges {
  /** Groups the file gave (it obtained them later than the catalogue held). */
  groupsReplaced: string[]
  /** Groups the file holds that the catalogue keeps (held data obtained later). */
  groupsKept: string[]
  satellitesBefore: number
  satellitesAfter: number
  /** Catalog numbers that came or went, and those whose element set changed. */
  added: number
  removed: number
  elementsChanged: number
  obtainedAt: string
}

export type ReloadPlan =
  | { ok: false; error: string }
  /** `catalog` null: nothing in the file is newer than what is held. */
  | { ok: true; catalog: Catalog | null; changes: ReloadChanges; warning: StartWarning | null; invalidByGroup: Record<string, number>; examples: string[] }

/** Whether two element sets say the same (a file read again gives new objects for the same sets). */
function sameElements(a: ElementSet, b: ElementSet): boolean {
  if (a === b) return true
  return a.epochMs === b.epochMs && a.name === b.name && a.tle?.line1 === b.tle?.line1 && a.tle?.line2 === b.tle?.line2 && a.meanMotionRevPerDay === b.meanMotionRevPerDay && a.eccentricity === b.eccentricity
}

export function planReload(current: Catalog, file: GroupSet, nowMs: number): ReloadPlan {
  if (elementCount(file) === 0) return { ok: false, error: `no valid element sets in ${file.description}` }
  const { set, warning } = believableDate(file, nowMs, '--snapshot')
  // A group of the file holding nothing valid competes with nothing.
  const groups = set.groups.filter((g) => (g.elements?.length ?? 0) > 0).map((g) => ({ ...g, source: 'snapshot' as const }))
  const overlaid = overlay([layerOf(current), { source: 'snapshot', groups }])
  const names = new Set(groups.map((g) => g.group))
  const groupsReplaced = [...names].filter((g) => overlaid.fromLayer[g] === 1)
  const groupsKept = [...names].filter((g) => !groupsReplaced.includes(g))
  const read = set.read ?? { invalidByGroup: {}, examples: [] }
  const base = { warning, invalidByGroup: read.invalidByGroup, examples: read.examples }
  const changes = (next: Catalog): ReloadChanges => {
    let added = 0
    let elementsChanged = 0
    for (const s of next.satellites) {
      const before = current.get(s.noradId)
      if (!before) added += 1
      else if (!sameElements(before.elements, s.elements)) elementsChanged += 1
    }
    const removed = current.satellites.filter((s) => !next.get(s.noradId)).length
    return {
      groupsReplaced,
      groupsKept,
      satellitesBefore: current.size,
      satellitesAfter: next.size,
      added,
      removed,
      elementsChanged,
      obtainedAt: new Date(set.obtainedAtMs).toISOString(),
    }
  }
  if (groupsReplaced.length === 0) return { ok: true, catalog: null, changes: changes(current), ...base }
  const catalog = catalogOf(overlaid, nowMs)
  return { ok: true, catalog, changes: changes(catalog), ...base }
}
