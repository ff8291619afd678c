/**
 * The catalogue a start uses. The base is `--snapshot` when given, else the
 * embedded snapshot. The data-dir cache competes with the base by when the data
 * was obtained, group by group: each group comes from whichever of the two
 * obtained it later (the base's stamp; the time the cache's payload for that
 * group was fetched or last confirmed), a tie going to the cache; a group only
 * one of them holds comes from that one. So nothing either holds is lost: a
 * cache written by a refresh of a few groups adds to the base, it does not
 * replace it.
 *
 * Obtained times more than a day ahead of this machine's clock are not
 * believed: such a cache is ignored (it would otherwise win for ever), and such a
 * base is dated by the time it was read instead. A time read from files (no
 * stamp) is never later than the clock.
 */
import { type Catalog, catalogOfSorted, type GroupSource } from './catalog.ts'
import { elementCount, type GroupSet, type ReadReport, readGroups } from './groups.ts'
import { catalogOf, chooseNewest, type Layer, originOf, overlay, type RefusedSet, refusedSets } from './overlay.ts'

/** How far ahead of this machine's clock an obtained time may be (clocks of two machines differ) and still be believed. */
export const CLOCK_SKEW_MS = 86_400_000

export type BaseSource = 'embedded' | 'snapshot'
/** Which input of a start a group came from. */
export type GroupOrigin = 'base' | 'cache'

export interface StartInputs {
  /** `--snapshot` when given, else the embedded snapshot. */
  base: { source: BaseSource; snapshot: GroupSet }
  /** The data-dir cache (each group with its own fetch time), or null. */
  cache: GroupSet | null
  nowMs: number
}

export interface StartWarning {
  message: string
  fields: Record<string, unknown>
}

export interface StartPlan {
  catalog: Catalog
  /** Where each group of the catalogue came from. */
  groupSources: Record<string, GroupOrigin>
  /** The cache's groups in the catalogue (their payloads make the first refresh conditional). */
  cacheGroupsUsed: string[]
  /** When the base's data was obtained, as used. */
  baseObtainedAtMs: number
  /** How the base was dated, as used. */
  baseDatedBy: GroupSet['datedBy']
  /** Why the cache was given but not used at all (a damaged payload, a time in the future), or null. */
  cacheIgnored: string | null
  /** Anything else worth a warning in the log. */
  warnings: StartWarning[]
  /** Element sets rejected by validation, per group, in the groups used. */
  invalidByGroup: Record<string, number>
  /** Groups of the base that could not be read at all, with the reason. */
  unreadableGroups: Record<string, string>
  /** The first few rejections, for the log. */
  examples: string[]
  /** Each element set of the groups used that was not taken, with whether its satellite stays. */
  refused: RefusedSet[]
}

export type StartResult = { ok: true; plan: StartPlan } | { ok: false; error: string; examples?: string[] }

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * A snapshot (start or reload) as dated for the overlay and for validation,
 * before it is read: a stamp more than a day ahead of this machine's clock is
 * not believed, nor is a file time ahead of it; such a snapshot is dated by the
 * time it is read (with a warning for a stamp). Never by its element sets'
 * epochs: a set cannot vouch for its own date. A set already read (the
 * prepared embedded snapshot) keeps what reading found.
 */
export function believableDate(set: GroupSet, nowMs: number, what: string): { set: GroupSet; warning: StartWarning | null } {
  const fromFiles = set.datedBy === 'file time'
  const limit = fromFiles ? nowMs : nowMs + CLOCK_SKEW_MS
  if (set.groups.every((g) => g.obtainedAtMs <= limit) && set.obtainedAtMs <= limit) return { set, warning: null }
  const warning = fromFiles
    ? null
    : {
        message: `the ${what} says its data was obtained in the future; dated by the time it was read instead`,
        fields: { path: set.description, stamp: iso(set.obtainedAtMs), now: iso(nowMs) },
      }
  const groups = set.groups.map((g) => (g.obtainedAtMs > limit ? { ...g, obtainedAtMs: nowMs } : g))
  const datedBy = fromFiles ? set.datedBy : 'time read'
  return { set: { ...set, datedBy, obtainedAtMs: Math.max(...groups.map((g) => g.obtainedAtMs)), groups }, warning }
}

/** Why a cache's times cannot be believed, or null. */
function futureTimeReason(cache: GroupSet, nowMs: number): string | null {
  const latest = Math.max(cache.obtainedAtMs, ...cache.groups.map((g) => g.obtainedAtMs))
  if (latest <= nowMs + CLOCK_SKEW_MS) return null
  return `it says its data was obtained at ${iso(latest)}, more than a day after now (${iso(nowMs)}): this machine's clock or the file is wrong`
}

/** Why a cache cannot be used although its file is sound (a payload that is not what it says, or empty), or null. */
function unusableCacheReason(cache: GroupSet, read: ReadReport): string | null {
  const [unreadable] = Object.entries(read.unreadableGroups)
  if (unreadable) return `group ${unreadable[0]}: ${unreadable[1]}`
  const empty = cache.groups.find((g) => (g.elements?.length ?? 0) === 0)
  return empty ? `group ${empty.group} holds no valid element sets` : null
}

/**
 * Builds the start catalogue from the base and the cache (see the module
 * comment) with the overlay rule (overlay.ts). Fails only when the base is
 * `--snapshot` and holds no valid element set, or when nothing at all holds
 * one; a cache that cannot be used is reported in `cacheIgnored` and left out.
 */
export function planStart({ base, cache, nowMs }: StartInputs): StartResult {
  const warnings: StartWarning[] = []
  const dated = believableDate(base.snapshot, nowMs, base.source === 'snapshot' ? '--snapshot' : 'embedded snapshot')
  if (dated.warning) warnings.push(dated.warning)
  const baseSet = dated.set
  // Validated against the date as believed (a stamp from the future cannot let in sets from the future).
  const baseRead = readGroups(baseSet)
  if (base.source === 'snapshot' && elementCount(baseSet) === 0) {
    return { ok: false, error: `no valid element sets in ${baseSet.description}`, examples: baseRead.examples }
  }
  const baseMs = baseSet.obtainedAtMs
  // A base group holding nothing valid competes with nothing.
  const baseLayer: Layer = { source: base.source, groups: baseSet.groups.filter((g) => (g.elements?.length ?? 0) > 0).map((g) => ({ ...g, source: base.source })) }

  let cacheIgnored = cache ? futureTimeReason(cache, nowMs) : null
  let cacheLayer: Layer | null = null
  let cacheRead: ReadReport | null = null
  if (cache && cacheIgnored === null) {
    const wins = chooseNewest([baseLayer, cache])
    // Only read when it gives something; it must then be whole.
    if ([...wins.values()].includes(1)) {
      cacheRead = readGroups(cache)
      cacheIgnored = unusableCacheReason(cache, cacheRead)
      if (cacheIgnored === null) cacheLayer = { source: 'cache', groups: cache.groups.map((g) => ({ ...g, source: 'cache' })) }
      else cacheRead = null
    }
  }

  const { catalog, sources } = cacheLayer || !baseSet.sorted ? overlaid([baseLayer, ...(cacheLayer ? [cacheLayer] : [])], nowMs) : prepared(baseLayer, baseSet.sorted, nowMs)
  if (catalog.size === 0) {
    return { ok: false, error: `no valid element sets in ${baseSet.description}${cache ? ' or the data-dir cache' : ''}`, examples: baseRead.examples }
  }
  const groupSources: Record<string, GroupOrigin> = {}
  for (const [group, source] of Object.entries(sources)) groupSources[group] = source === 'cache' ? 'cache' : 'base'
  // Base groups with nothing valid are still reported as the base's.
  for (const g of baseSet.groups) groupSources[g.group] ??= 'base'
  const cacheGroupsUsed = Object.keys(groupSources).filter((g) => groupSources[g] === 'cache')

  const invalidByGroup: Record<string, number> = {}
  for (const [read, source] of [[baseRead, 'base'], [cacheRead, 'cache']] as const) {
    for (const [group, count] of Object.entries(read?.invalidByGroup ?? {})) if (groupSources[group] === source) invalidByGroup[group] = count
  }
  /** A read's examples (each starts with its group's name) of the groups taken from that source. */
  const examplesFrom = (read: ReadReport | null | undefined, source: 'base' | 'cache') =>
    (read?.examples ?? []).filter((example) => Object.keys(groupSources).some((group) => groupSources[group] === source && (example.startsWith(`${group} `) || example.startsWith(`${group}:`))))
  const usedGroups = [...baseSet.groups.filter((g) => groupSources[g.group] === 'base'), ...(cacheLayer?.groups.filter((g) => groupSources[g.group] === 'cache') ?? [])]
  return {
    ok: true,
    plan: {
      catalog,
      groupSources,
      cacheGroupsUsed,
      baseObtainedAtMs: baseMs,
      baseDatedBy: baseSet.datedBy ?? 'stamp',
      cacheIgnored,
      warnings,
      invalidByGroup,
      unreadableGroups: baseRead.unreadableGroups,
      // Those of the groups counted above: the ones each source gave the catalogue.
      examples: [...examplesFrom(baseRead, 'base'), ...examplesFrom(cacheRead, 'cache')].slice(0, 3),
      refused: refusedSets(usedGroups, catalog),
    },
  }
}

/** The catalogue of the layers by the overlay rule, and where each of its groups came from. */
function overlaid(layers: Layer[], nowMs: number): { catalog: Catalog; sources: Record<string, GroupSource> } {
  const result = overlay(layers)
  return { catalog: catalogOf(result, nowMs), sources: result.groupSources }
}

/**
 * The catalogue of a base alone whose satellites were chosen at build time (a
 * prepared snapshot): the one the overlay rule makes of it (prepared.test.ts),
 * without choosing again.
 */
function prepared(base: Layer, sorted: GroupSet['sorted'] & {}, nowMs: number): { catalog: Catalog; sources: Record<string, GroupSource> } {
  const groups = base.groups.map((g) => g.group)
  return {
    catalog: catalogOfSorted(sorted, originOf(base.groups, base.source, nowMs), nowMs, groups),
    sources: Object.fromEntries(groups.map((g) => [g, base.source])),
  }
}

/** The fields of the `catalogue loaded` log line: what was chosen, and what the base and the cache offered. */
export function startLogFields({ base, cache }: StartInputs, plan: StartPlan): Record<string, unknown> {
  const { catalog } = plan
  const from = (source: GroupOrigin) => Object.keys(plan.groupSources).filter((g) => plan.groupSources[g] === source)
  return {
    source: catalog.origin.source,
    obtainedAt: iso(catalog.origin.obtainedAtMs),
    satellites: catalog.size,
    groups: catalog.groupCounts,
    candidates: [
      { source: base.source, from: base.snapshot.description, obtainedAt: iso(plan.baseObtainedAtMs), datedBy: plan.baseDatedBy, groupsUsed: from('base') },
      ...(cache
        ? [{ source: 'cache', from: cache.description, obtainedAt: iso(cache.obtainedAtMs), groupsUsed: from('cache'), ...(plan.cacheIgnored ? { ignored: plan.cacheIgnored } : {}) }]
        : []),
    ],
  }
}
