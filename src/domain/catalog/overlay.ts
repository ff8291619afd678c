/**
 * The one overlay rule, used by start-up, refresh and reload alike. Sources are
 * given as layers, older kinds first (the base snapshot, then the cache; the
 * catalogue held, then a refresh round or a reloaded file).
 *
 * - Group by group, the newest source wins: each group's satellites are those
 *   of the layer that obtained it last (a later layer winning a tie); a group
 *   only one layer holds comes from that layer, so no group any layer holds is
 *   lost.
 * - Satellite by satellite, the newest element set wins (supersedes(): a later
 *   epoch): a satellite of a winning group gets the newest set any layer holds
 *   for it, so an older set never replaces a newer one, whatever the date of
 *   its source says (a file dated later but holding older sets rolls nothing
 *   back; a file dated earlier still brings the newer sets it holds).
 * - A satellite whose set the winning layer did not take (it could not be read,
 *   or validation refused it) stays in the group with the set a losing layer
 *   holds for it there: bad data never removes what is held.
 *
 * Pure.
 */
import { buildCatalog, type Catalog, type CatalogOrigin, type GroupSource } from './catalog.ts'
import { type ElementSet, supersedes } from './elements.ts'
import type { ElementGroup, GroupSet } from './groups.ts'

/** One source's groups (read: each with its elements), and the source the catalogue is said to come from when it contributes. */
export type Layer = Pick<GroupSet, 'source' | 'groups'>

/** The index of the layer each group comes from, judged on obtained times only (nothing needs to be read). */
export function chooseNewest(layers: readonly { groups: readonly Pick<ElementGroup, 'group' | 'obtainedAtMs'>[] }[]): Map<string, number> {
  const chosen = new Map<string, { layer: number; obtainedAtMs: number }>()
  layers.forEach(({ groups }, layer) => {
    for (const { group, obtainedAtMs } of groups) {
      const before = chosen.get(group)
      if (!before || obtainedAtMs >= before.obtainedAtMs) chosen.set(group, { layer, obtainedAtMs })
    }
  })
  return new Map([...chosen].map(([group, { layer }]) => [group, layer]))
}

export interface Overlaid {
  /** The winning group of each name: its satellites with the newest set of each, and those kept for the winner's refusals. */
  groups: ElementGroup[]
  /** Where each group came from. */
  groupSources: Record<string, GroupSource>
  /** The index of the layer each group came from. */
  fromLayer: Record<string, number>
  /** The source of the last layer that gave a group: what the catalogue is said to come from. */
  source: GroupSource
  /** Satellites that kept a losing layer's set because the winner did not take its own, per group. */
  keptForRefused: Record<string, number>
  /** Satellites of a winning group whose own set was older than one another layer holds (the newer one was taken), per group. */
  keptNewer: Record<string, number>
}

/** Applies the rule to read layers (see the module comment). */
export function overlay(layers: readonly Layer[]): Overlaid {
  const winners = chooseNewest(layers)
  // The newest set of every satellite over all layers and groups.
  const newest = new Map<number, ElementSet>()
  for (const { groups } of layers) {
    for (const g of groups) {
      for (const e of g.elements ?? []) {
        const held = newest.get(e.noradId)
        if (!held || supersedes(e, held)) newest.set(e.noradId, e)
      }
    }
  }
  const groups: ElementGroup[] = []
  const groupSources: Record<string, GroupSource> = {}
  const keptForRefused: Record<string, number> = {}
  const keptNewer: Record<string, number> = {}
  const fromLayer: Record<string, number> = {}
  let top = -1
  for (const [name, index] of winners) {
    const winner = layers[index]!.groups.find((g) => g.group === name)!
    top = Math.max(top, index)
    groupSources[name] = winner.source
    fromLayer[name] = index
    const present = new Set<number>()
    const elements: ElementSet[] = []
    let newer = 0
    for (const e of winner.elements ?? []) {
      if (present.has(e.noradId)) continue
      present.add(e.noradId)
      const best = newest.get(e.noradId)!
      if (best !== e && supersedes(best, e)) newer += 1
      elements.push(supersedes(best, e) ? best : e)
    }
    // Satellites whose set the winner did not take keep their place, when another layer holds them in this group.
    const refusedIds = new Set((winner.refused ?? []).flatMap((r) => (r.noradId === null || present.has(r.noradId) ? [] : [r.noradId])))
    let kept = 0
    if (refusedIds.size > 0) {
      layers.forEach((layer, i) => {
        if (i === index) return
        for (const g of layer.groups) {
          if (g.group !== name) continue
          for (const e of g.elements ?? []) {
            if (!refusedIds.has(e.noradId) || present.has(e.noradId)) continue
            present.add(e.noradId)
            elements.push(newest.get(e.noradId)!)
            kept += 1
          }
        }
      })
    }
    if (kept > 0) keptForRefused[name] = kept
    if (newer > 0) keptNewer[name] = newer
    groups.push({ ...winner, elements })
  }
  return { groups, groupSources, fromLayer, source: layers[Math.max(0, top)]!.source, keptForRefused, keptNewer }
}

/**
 * The catalogue of overlaid groups, each group with its own time and source;
 * the catalogue is said to be obtained when its OLDEST group was (all it
 * serves is at least that fresh; the status lists every group's time).
 */
export function catalogOf(overlaid: Pick<Overlaid, 'groups' | 'source'>, nowMs: number): Catalog {
  return buildCatalog(
    overlaid.groups.map((g) => ({ group: g.group, elements: g.elements ?? [] })),
    originOf(overlaid.groups, overlaid.source, nowMs),
    nowMs,
  )
}

/** The origin of a catalogue of these groups (see catalogOf): each group's time and source, the oldest time the catalogue's. */
export function originOf(groups: readonly Pick<ElementGroup, 'group' | 'obtainedAtMs' | 'source'>[], source: GroupSource, nowMs: number): CatalogOrigin {
  const groupsObtainedAtMs: Record<string, number> = {}
  const groupSources: Record<string, GroupSource> = {}
  for (const g of groups) {
    groupsObtainedAtMs[g.group] = g.obtainedAtMs
    groupSources[g.group] = g.source
  }
  const times = Object.values(groupsObtainedAtMs)
  return { source, obtainedAtMs: times.length > 0 ? Math.min(...times) : nowMs, groupsObtainedAtMs, groupSources }
}

/** `origin` with `groups` (those the catalogue holds) dated `atMs`: confirmed unchanged upstream then (a 304); the catalogue's time is again its oldest group's. */
export function confirmedOrigin(origin: CatalogOrigin, held: readonly string[], groups: readonly string[], atMs: number): CatalogOrigin {
  const groupsObtainedAtMs: Record<string, number> = {}
  for (const group of held) groupsObtainedAtMs[group] = groups.includes(group) ? atMs : (origin.groupsObtainedAtMs?.[group] ?? origin.obtainedAtMs)
  const times = Object.values(groupsObtainedAtMs)
  return { ...origin, groupsObtainedAtMs, obtainedAtMs: times.length > 0 ? Math.min(...times) : origin.obtainedAtMs }
}

/**
 * The catalogue's groups as a layer: every satellite of each group with the
 * elements the catalogue chose for it, its group's time and source; so the
 * catalogue held competes with a new source by the same rule.
 */
export function layerOf(catalog: Catalog): Layer {
  const byGroup = new Map<string, ElementSet[]>(Object.keys(catalog.groupCounts).map((g) => [g, []]))
  for (const satellite of catalog.satellites) {
    for (const group of satellite.groups) byGroup.get(group)?.push(satellite.elements)
  }
  const { origin } = catalog
  return {
    source: origin.source,
    groups: [...byGroup].map(([group, elements]) => ({
      group,
      source: origin.groupSources?.[group] ?? origin.source,
      obtainedAtMs: origin.groupsObtainedAtMs?.[group] ?? origin.obtainedAtMs,
      elements,
    })),
  }
}

/** One log entry per element set a source did not take: whose, in which group, why, and whether the satellite stays in that group (with the set held, or another of the same payload). */
export interface RefusedSet {
  group: string
  noradId: number | null
  reason: string
  satelliteKept: boolean
}

/** The sets the groups did not take, judged against the catalogue that resulted. */
export function refusedSets(groups: readonly ElementGroup[], result: Catalog): RefusedSet[] {
  const out: RefusedSet[] = []
  for (const g of groups) {
    for (const r of g.refused ?? []) {
      const satelliteKept = r.noradId !== null && (result.get(r.noradId)?.groups.includes(g.group) ?? false)
      out.push({ group: g.group, noradId: r.noradId, reason: r.reason, satelliteKept })
    }
  }
  return out
}

/** How many refused sets are logged one line each; the rest are counted in one line. */
export const MAX_LOGGED_REFUSALS = 20
