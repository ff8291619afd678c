/**
 * The one overlay rule, used by start-up, refresh and reload alike: for each
 * group, the newest source wins. Sources are given as layers, older kinds
 * first (the base snapshot, then the cache; the catalogue held, then a refresh
 * round or a reloaded file); each group comes from the layer that obtained it
 * last, a later layer winning a tie; a group only one layer holds comes from
 * that layer, so nothing any layer holds is lost. A satellite whose element set
 * the winning layer refused keeps the set a losing layer holds for it in that
 * group: a refused set never replaces a good one. Pure.
 */
import { buildCatalog, type Catalog, type GroupSource } from './catalog.ts'
import type { ElementSet } from './elements.ts'
import type { ElementGroup } from './groups.ts'

/** One source's groups (read: each with its elements), and the source the catalogue is said to come from when it contributes. */
export interface Layer {
  source: GroupSource
  groups: readonly ElementGroup[]
}

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
  /** The winning group of each name, with the sets kept from losers for the winner's refusals added to its elements. */
  groups: ElementGroup[]
  /** Where each group came from. */
  groupSources: Record<string, GroupSource>
  /** The index of the layer each group came from. */
  fromLayer: Record<string, number>
  /** The source of the last layer that gave a group: what the catalogue is said to come from. */
  source: GroupSource
  /** Satellites that kept a losing layer's set because the winner refused its own, per group. */
  keptForRefused: Record<string, number>
}

/** Applies the rule to read layers (see the module comment). */
export function overlay(layers: readonly Layer[]): Overlaid {
  const winners = chooseNewest(layers)
  const groups: ElementGroup[] = []
  const groupSources: Record<string, GroupSource> = {}
  const keptForRefused: Record<string, number> = {}
  const fromLayer: Record<string, number> = {}
  let top = -1
  for (const [name, index] of winners) {
    const winner = layers[index]!.groups.find((g) => g.group === name)!
    top = Math.max(top, index)
    groupSources[name] = winner.source
    fromLayer[name] = index
    const refusedIds = new Set((winner.refused ?? []).map((r) => r.noradId))
    const present = new Set((winner.elements ?? []).map((e) => e.noradId))
    const kept: ElementSet[] = []
    if (refusedIds.size > 0) {
      // The newest other layer holding the satellite in this group gives its set.
      for (let i = layers.length - 1; i >= 0; i--) {
        if (i === index) continue
        for (const g of layers[i]!.groups) {
          if (g.group !== name) continue
          for (const e of g.elements ?? []) {
            if (refusedIds.has(e.noradId) && !present.has(e.noradId)) {
              kept.push(e)
              present.add(e.noradId)
            }
          }
        }
      }
    }
    if (kept.length > 0) keptForRefused[name] = kept.length
    groups.push(kept.length > 0 ? { ...winner, elements: [...(winner.elements ?? []), ...kept] } : winner)
  }
  return { groups, groupSources, fromLayer, source: layers[Math.max(0, top)]!.source, keptForRefused }
}

/** The catalogue of overlaid groups: obtained when its newest group was, each group with its own time and source. */
export function catalogOf(overlaid: Pick<Overlaid, 'groups' | 'source'>, nowMs: number): Catalog {
  const groupsObtainedAtMs: Record<string, number> = {}
  const groupSources: Record<string, GroupSource> = {}
  for (const g of overlaid.groups) {
    groupsObtainedAtMs[g.group] = g.obtainedAtMs
    groupSources[g.group] = g.source
  }
  const times = Object.values(groupsObtainedAtMs)
  return buildCatalog(
    overlaid.groups.map((g) => ({ group: g.group, elements: g.elements ?? [] })),
    { source: overlaid.source, obtainedAtMs: times.length > 0 ? Math.max(...times) : nowMs, groupsObtainedAtMs, groupSources },
    nowMs,
  )
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
