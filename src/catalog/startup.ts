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
 * base is dated by its newest element-set epoch instead.
 */
import { buildCatalog, type Catalog, type GroupElements } from './catalog.ts'
import { elementCount, newestEpochMs, type ParsedGroups, parseSnapshot, type SnapshotData } from './snapshot.ts'

/** How far ahead of this machine's clock an obtained time may be (clocks of two machines differ) and still be believed. */
export const CLOCK_SKEW_MS = 86_400_000

export type BaseSource = 'embedded' | 'snapshot'
export type GroupSource = 'base' | 'cache'

export interface StartInputs {
  /** `--snapshot` when given, else the embedded snapshot. */
  base: { source: BaseSource; snapshot: SnapshotData }
  /** The data-dir cache as a snapshot (snapshotFromCache: each group with its own fetch time), or null. */
  cache: SnapshotData | null
  nowMs: number
}

export interface StartWarning {
  message: string
  fields: Record<string, unknown>
}

export interface StartPlan {
  catalog: Catalog
  /** Where each group of the catalogue came from. */
  groupSources: Record<string, GroupSource>
  /** The cache's groups in the catalogue (their payloads make the first refresh conditional). */
  cacheGroupsUsed: string[]
  /** When the base's data was obtained, as used. */
  baseObtainedAtMs: number
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
}

export type StartResult = { ok: true; plan: StartPlan } | { ok: false; error: string }

const iso = (ms: number) => new Date(ms).toISOString()

/** Valid element sets per group name. */
function countsByGroup(parsed: ParsedGroups): Map<string, number> {
  const counts = new Map<string, number>()
  for (const { group, elements } of parsed.groups) counts.set(group, (counts.get(group) ?? 0) + elements.length)
  return counts
}

/** Why a cache's times cannot be believed, or null. */
function futureTimeReason(cache: SnapshotData, nowMs: number): string | null {
  const latest = Math.max(cache.stampMs, ...cache.groups.map((g) => g.obtainedAtMs ?? cache.stampMs))
  if (latest <= nowMs + CLOCK_SKEW_MS) return null
  return `it says its data was obtained at ${iso(latest)}, more than a day after now (${iso(nowMs)}): this machine's clock or the file is wrong`
}

/** Why a cache cannot be used although its file is sound (a payload that is not what it says, or empty), or null. */
function unusableCacheReason(parsed: ParsedGroups): string | null {
  const [unreadable] = Object.entries(parsed.unreadableGroups)
  if (unreadable) return `group ${unreadable[0]}: ${unreadable[1]}`
  const empty = [...countsByGroup(parsed)].find(([, count]) => count === 0)
  return empty ? `group ${empty[0]} holds no valid element sets` : null
}

/**
 * Builds the start catalogue from the base and the cache (see the module
 * comment). Fails only when the base is `--snapshot` and holds no valid element
 * set, or when nothing at all holds one; a cache that cannot be used is
 * reported in `cacheIgnored` and left out.
 */
export function planStart({ base, cache, nowMs }: StartInputs): StartResult {
  const warnings: StartWarning[] = []
  const baseParsed = parseSnapshot(base.snapshot)
  if (base.source === 'snapshot' && elementCount(baseParsed) === 0) {
    return { ok: false, error: `no valid element sets in ${base.snapshot.description}` }
  }
  let baseMs = base.snapshot.stampMs
  if (baseMs > nowMs + CLOCK_SKEW_MS) {
    const dated = Math.min(newestEpochMs(baseParsed) ?? nowMs, nowMs)
    warnings.push({
      message: `the ${base.source === 'snapshot' ? '--snapshot' : 'embedded snapshot'} says its data was obtained in the future; dated by its newest element set instead`,
      fields: { path: base.snapshot.description, stamp: iso(baseMs), now: iso(nowMs), datedAt: iso(dated) },
    })
    baseMs = dated
  }
  const baseCounts = countsByGroup(baseParsed)
  // All groups of the base share its date (a copied cache given as --snapshot included): one source, one date.
  const baseTimes = new Map(baseParsed.groups.map(({ group }) => [group, baseMs]))

  let cacheIgnored = cache ? futureTimeReason(cache, nowMs) : null
  const cacheTimes = new Map<string, number>()
  if (cache && cacheIgnored === null) {
    for (const { group, obtainedAtMs } of cache.groups) cacheTimes.set(group, Math.max(cacheTimes.get(group) ?? -Infinity, obtainedAtMs ?? cache.stampMs))
  }
  /** The cache wins a group it has when the base lacks it (or holds nothing valid for it) or obtained it no later. */
  const cacheWins = (group: string) =>
    cacheTimes.has(group) && (!baseTimes.has(group) || (baseCounts.get(group) ?? 0) === 0 || cacheTimes.get(group)! >= baseTimes.get(group)!)

  let cacheParsed: ParsedGroups | null = null
  if (cache && [...cacheTimes.keys()].some(cacheWins)) {
    // Only parsed when it gives something; it must then be whole.
    cacheParsed = parseSnapshot(cache)
    cacheIgnored = unusableCacheReason(cacheParsed)
    if (cacheIgnored !== null) {
      cacheParsed = null
      cacheTimes.clear()
    }
  }

  const groupSources: Record<string, GroupSource> = {}
  for (const group of [...baseTimes.keys(), ...cacheTimes.keys()]) groupSources[group] ??= cacheWins(group) ? 'cache' : 'base'
  const groups: GroupElements[] = [
    ...baseParsed.groups.filter((g) => groupSources[g.group] === 'base'),
    ...(cacheParsed?.groups.filter((g) => groupSources[g.group] === 'cache') ?? []),
  ]
  const times = Object.fromEntries(
    Object.entries(groupSources).map(([group, source]) => [group, (source === 'cache' ? cacheTimes : baseTimes).get(group)!]),
  )
  const cacheGroupsUsed = Object.keys(groupSources).filter((g) => groupSources[g] === 'cache')
  const catalog = buildCatalog(
    groups,
    {
      source: cacheGroupsUsed.length > 0 ? 'cache' : base.source,
      obtainedAtMs: Math.max(...Object.values(times)),
      groupsObtainedAtMs: times,
    },
    nowMs,
  )
  if (catalog.size === 0) {
    return { ok: false, error: `no valid element sets in ${base.snapshot.description}${cache ? ' or the data-dir cache' : ''}` }
  }

  const invalidByGroup: Record<string, number> = {}
  for (const [parsed, source] of [[baseParsed, 'base'], [cacheParsed, 'cache']] as const) {
    for (const [group, count] of Object.entries(parsed?.invalidByGroup ?? {})) if (groupSources[group] === source) invalidByGroup[group] = count
  }
  return {
    ok: true,
    plan: {
      catalog,
      groupSources,
      cacheGroupsUsed,
      baseObtainedAtMs: baseMs,
      cacheIgnored,
      warnings,
      invalidByGroup,
      unreadableGroups: baseParsed.unreadableGroups,
      examples: [...baseParsed.examples, ...(cacheParsed?.examples ?? [])].slice(0, 3),
    },
  }
}

/** The fields of the `catalogue loaded` log line: what was chosen, and what the base and the cache offered. */
export function startLogFields({ base, cache }: StartInputs, plan: StartPlan): Record<string, unknown> {
  const { catalog } = plan
  const from = (source: GroupSource) => Object.keys(plan.groupSources).filter((g) => plan.groupSources[g] === source)
  return {
    source: catalog.origin.source,
    obtainedAt: iso(catalog.origin.obtainedAtMs),
    satellites: catalog.size,
    groups: catalog.groupCounts,
    candidates: [
      { source: base.source, from: base.snapshot.description, obtainedAt: iso(plan.baseObtainedAtMs), datedBy: base.snapshot.datedBy ?? 'stamp', groupsUsed: from('base') },
      ...(cache
        ? [{ source: 'cache', from: cache.description, obtainedAt: iso(cache.stampMs), groupsUsed: from('cache'), ...(plan.cacheIgnored ? { ignored: plan.cacheIgnored } : {}) }]
        : []),
    ],
  }
}
