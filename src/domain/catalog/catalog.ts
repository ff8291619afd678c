/** The catalogue: an immutable set of satellites built from groups of element sets. */
import { json2satrec, type SatRec, twoline2satrec } from 'satellite.js'
import { compactSatrec } from './compact-satrec.ts'
import { ommRecordOf } from './omm.ts'
import { type ElementSet, type OrbitalParams, orbitClass, orbitalParams, supersedes } from './elements.ts'
import { isResonant, registerResonance } from '../orbit/resonance.ts'
import { DEFAULT_VALIDITY_POLICY, Validity, type ValidityPolicy } from '../orbit/validity.ts'

export interface Satellite {
  readonly noradId: number
  readonly name: string
  /** Upstream groups the satellite was loaded from: sorted, no duplicates. Shared with other satellites: never modified. */
  readonly groups: string[]
  readonly elements: ElementSet
  /** The element set's epoch, ms since 1970 (`elements.epochMs`, kept on the satellite: read for every position shown). */
  readonly epochMs: number
  /** The element set's epoch as ISO 8601 with milliseconds. */
  readonly epoch: string
  readonly orbitalParams: OrbitalParams
  /** Shared with other satellites, as `groups`: never modified. */
  readonly labels: string[]
}

/** Where a group's data came from. */
export type GroupSource = 'embedded' | 'snapshot' | 'cache' | 'refresh'

/** Where a catalogue came from and when its data was obtained. */
export interface CatalogOrigin {
  /** The source of the newest layer that gave it a group (see overlay.ts). */
  source: GroupSource
  /**
   * When the data was obtained upstream (a snapshot's stamp, a fetch time), ms
   * since 1970; when groups were obtained at different times, the newest of them.
   */
  obtainedAtMs: number
  /** When each group's data was obtained, when they differ; absent: `obtainedAtMs` for every group. */
  groupsObtainedAtMs?: Readonly<Record<string, number>>
  /** Where each group came from, when they differ; absent: `source` for every group. */
  groupSources?: Readonly<Record<string, GroupSource>>
}

/** The key of the catalogue's epochs in ascending order (`derived`). */
const SORTED_EPOCHS = Symbol('sorted epochs')

export class Catalog {
  /** Every satellite, ordered by noradId ascending. */
  readonly satellites: readonly Satellite[]
  /** Satellite count per group, groups sorted by name. */
  readonly groupCounts: Readonly<Record<string, number>>
  readonly origin: CatalogOrigin
  readonly loadedAtMs: number
  private versionHash: string | undefined
  /** The satellites' catalog numbers, in their order (ascending): found by binary search. */
  private readonly ids: Int32Array
  /** SGP4 records, created on first use (most of the cost of a catalogue). */
  private readonly satrecs: (SatRec | undefined)[]
  private resonant: SatRec[] | undefined
  private readonly derivedValues = new Map<symbol, unknown>()
  private readonly policy: ValidityPolicy
  private validityRules: Validity | undefined

  constructor(
    satellites: Satellite[],
    groupCounts: Record<string, number>,
    origin: CatalogOrigin,
    loadedAtMs: number,
    policy: ValidityPolicy = DEFAULT_VALIDITY_POLICY,
    ids?: Int32Array,
  ) {
    this.satellites = satellites
    this.groupCounts = groupCounts
    this.origin = origin
    this.loadedAtMs = loadedAtMs
    this.ids = ids ?? Int32Array.from(satellites, (s) => s.noradId)
    this.satrecs = new Array(satellites.length)
    this.policy = policy
  }

  /**
   * Which instants each satellite's elements support (element age, decay,
   * plausible heights): see validity.ts. Made on first use, so a catalogue
   * replaced at once by `withPolicy` (start-up, refresh, reload) never makes one.
   */
  get validity(): Validity {
    this.validityRules ??= new Validity(
      this.satellites.map((s) => s.elements),
      this.policy,
    )
    return this.validityRules
  }

  /** The same satellites under another validity policy (the service's --max-element-age): this catalogue when the policy is the same. */
  withPolicy(policy: ValidityPolicy): Catalog {
    if (policy.maxElementAgeMs === this.policy.maxElementAgeMs) return this
    return new Catalog(this.satellites as Satellite[], this.groupCounts as Record<string, number>, this.origin, this.loadedAtMs, policy, this.ids)
  }

  /**
   * The same satellites, obtained at other times (a refresh round whose every group answered
   * 304 confirms them now): the same content and version, so the same ETags.
   */
  withOrigin(origin: CatalogOrigin): Catalog {
    const next = new Catalog(this.satellites as Satellite[], this.groupCounts as Record<string, number>, origin, this.loadedAtMs, this.policy, this.ids)
    next.versionHash = this.versionHash
    return next
  }

  /** Changes whenever the content changes; used for ETags and caches. Hashed on first use, not at start. */
  get version(): string {
    this.versionHash ??= contentHash(this.satellites)
    return this.versionHash
  }

  get size(): number {
    return this.satellites.length
  }

  get(noradId: number): Satellite | undefined {
    const i = this.indexOf(noradId)
    return i === undefined ? undefined : this.satellites[i]
  }

  /** Where the satellite is in `satellites`, if the catalogue has it. */
  indexOf(noradId: number): number | undefined {
    const ids = this.ids
    let low = 0
    let high = ids.length - 1
    while (low <= high) {
      const mid = (low + high) >>> 1
      const id = ids[mid]!
      if (id === noradId) return mid
      if (id < noradId) low = mid + 1
      else high = mid - 1
    }
    return undefined
  }

  /** The SGP4 record of the satellite at `index` in `satellites`. */
  satrecAt(index: number): SatRec {
    let rec = this.satrecs[index]
    if (rec === undefined) {
      rec = createSatrec(this.satellites[index]!.elements)
      registerResonance(rec) // checkpoints for SGP4's resonance integrator (see resonance.ts)
      this.satrecs[index] = rec
    }
    return rec
  }

  /** The records with resonance checkpoints (geosynchronous and half-day orbits: ~570 of the 12k), found on first use. */
  get resonantSatrecs(): readonly SatRec[] {
    this.resonant ??= this.satellites.map((_, i) => this.satrecAt(i)).filter(isResonant)
    return this.resonant
  }

  /**
   * A value derived from this catalogue alone, made by `make` on first use and
   * kept with the catalogue (so it goes with it when a new one replaces it):
   * the indices and tables that speed-ups build. `key` names the value; each
   * module that derives one owns its key.
   */
  derived<T>(key: symbol, make: (catalog: Catalog) => T): T {
    if (this.derivedValues.has(key)) return this.derivedValues.get(key) as T
    const value = make(this)
    this.derivedValues.set(key, value)
    return value
  }

  satrecOf(satellite: Satellite): SatRec {
    return this.satrecAt(this.indexOf(satellite.noradId)!)
  }

  /** Oldest and newest element epochs and the median element age at `nowMs`. */
  epochStats(nowMs: number): { oldestMs: number; newestMs: number; medianAgeDays: number } | null {
    const epochs = this.sortedEpochsMs()
    if (epochs.length === 0) return null
    return { oldestMs: epochs[0]!, newestMs: epochs.at(-1)!, medianAgeDays: (nowMs - this.medianEpochMs()!) / 86_400_000 }
  }

  /** The median of the element sets' epochs, ms since 1970; null for an empty catalogue. */
  medianEpochMs(): number | null {
    const epochs = this.sortedEpochsMs()
    if (epochs.length === 0) return null
    const mid = epochs.length >> 1
    return epochs.length % 2 ? epochs[mid]! : (epochs[mid - 1]! + epochs[mid]!) / 2
  }

  /** Every element set's epoch, ms, ascending (made once per catalogue). */
  private sortedEpochsMs(): Float64Array {
    return this.derived(SORTED_EPOCHS, () => Float64Array.from(this.satellites, (s) => s.elements.epochMs).sort())
  }
}

/**
 * The SGP4 record of an element set. A set read from a TLE is initialised from
 * its lines, exactly as published; one read from OMM from its values, which
 * carry more precision than the TLE form (the epoch to the microsecond).
 */
export function createSatrec(elements: ElementSet): SatRec {
  return compactSatrec(fullSatrec(elements))
}

/** The record as satellite.js makes it, every field included. */
export function fullSatrec(elements: ElementSet): SatRec {
  if (elements.tle && elements.sourceFormat !== 'omm') return twoline2satrec(elements.tle.line1, elements.tle.line2)
  const epochUs = elements.epochUs ?? elements.epochMs * 1000
  const wholeMs = Math.floor(epochUs / 1000)
  // json2satrec reads the epoch through Date, which keeps whole milliseconds.
  const omm = { ...ommRecordOf(elements), EPOCH: new Date(wholeMs).toISOString() }
  const satrec = json2satrec(omm as Parameters<typeof json2satrec>[0])

  // Add back the sub-millisecond part: propagation measures time from jdsatepoch.
  // (The deep-space terms computed at initialisation move by far less than that.)
  satrec.jdsatepoch += (epochUs - wholeMs * 1000) / 86_400_000_000
  return satrec
}


/**
 * Merges groups into one catalogue. A satellite found in several groups is one
 * entry carrying all of them; where the groups hold different element sets for
 * it, the newest epoch wins (the first seen on a tie).
 */
export function buildCatalog(groups: readonly { group: string; elements: readonly ElementSet[] }[], origin: CatalogOrigin, loadedAtMs: number): Catalog {
  const chosen = new Map<number, { elements: ElementSet; groups: string[] }>()
  for (const { group, elements } of groups) {
    for (const el of elements) {
      const entry = chosen.get(el.noradId)
      if (!entry) chosen.set(el.noradId, { elements: el, groups: [group] })
      else {
        if (!entry.groups.includes(group)) entry.groups.push(group)
        // Newest epoch wins; on a tie, a real name beats one made from the catalog number (2LE files have none).
        if (supersedes(el, entry.elements)) entry.elements = el
      }
    }
  }
  // Satellites with the same groups share one array: a handful of distinct ones instead of one per satellite.
  const sharedGroups = sharedLists()
  // Catalog numbers are below 2^31 (Alpha-5 ends at 339,999): a typed array sorts them numerically, fast.
  const ids = Int32Array.from(chosen.keys()).sort()
  const sorted = Array.from(ids, (id): SortedSatellite => {
    const { elements, groups } = chosen.get(id)!
    return { elements, groups: sharedGroups(groups.length > 1 ? groups.sort() : groups) }
  })
  return catalogOfSorted(sorted, origin, loadedAtMs, groups.map((g) => g.group))
}

/** A satellite of a catalogue to be made: its element set and the groups it is in (sorted; one array shared by the satellites of the same groups). */
export interface SortedSatellite {
  elements: ElementSet
  groups: string[]
}

/**
 * The catalogue of satellites already chosen: one entry per satellite, ordered
 * by catalog number (as buildCatalog chooses them, or as a prepared snapshot
 * holds them). `groupNames`: groups to count even when no satellite is in them.
 */
export function catalogOfSorted(sorted: readonly SortedSatellite[], origin: CatalogOrigin, loadedAtMs: number, groupNames: readonly string[] = []): Catalog {
  const counts: Record<string, number> = {}
  for (const name of groupNames) counts[name] = 0
  const satellites = sorted.map(({ elements, groups }, i): Satellite => {
    if (i > 0 && !(elements.noradId > sorted[i - 1]!.elements.noradId)) throw new Error(`satellites out of order: ${elements.noradId} after ${sorted[i - 1]!.elements.noradId}`)
    for (const g of groups) counts[g] = (counts[g] ?? 0) + 1
    return new CatalogSatellite(elements, groups)
  })
  const groupCounts = Object.fromEntries(Object.keys(counts).sort().map((g) => [g, counts[g]!]))
  return new Catalog(satellites, groupCounts, origin, loadedAtMs)
}

/** Satellites of the same orbit class share one list of labels. */
const LABELS = { LEO: ['LEO'], MEO: ['MEO'], GEO: ['GEO'], HEO: ['HEO'] } as const

/**
 * A satellite of a catalogue. What is derived from its element set (orbital
 * parameters, labels, epoch text) is made when first asked for: most satellites
 * are never shown, and a start that made them all took ~15 ms. What every
 * answer listing it reads (name, epoch, labels) is kept on the satellite
 * itself once made: /nearby lists hundreds of satellites scattered over the
 * catalogue, and reaching each one's element set and orbital parameters too
 * cost more than making its entry.
 */
class CatalogSatellite implements Satellite {
  readonly noradId: number
  readonly name: string
  readonly epochMs: number
  #orbitalParams: OrbitalParams | undefined
  #epoch: string | undefined
  #labels: string[] | undefined

  constructor(
    readonly elements: ElementSet,
    readonly groups: string[],
  ) {
    this.noradId = elements.noradId
    this.name = elements.name
    this.epochMs = elements.epochMs
  }

  get orbitalParams(): OrbitalParams {
    this.#orbitalParams ??= orbitalParams(this.elements)
    return this.#orbitalParams
  }

  get labels(): string[] {
    this.#labels ??= LABELS[orbitClass(this.orbitalParams)] as unknown as string[]
    return this.#labels
  }

  get epoch(): string {
    this.#epoch ??= new Date(this.elements.epochMs).toISOString()
    return this.#epoch
  }
}

function sharedLists(): (items: string[]) => string[] {
  const seen = new Map<string, string[]>()
  return (items) => {
    const key = items.length === 1 ? items[0]! : items.join('\n')
    let list = seen.get(key)
    if (!list) seen.set(key, (list = items))
    return list
  }
}

/** A short hash of what a client can see of the catalogue (ids, names, groups, elements). */
function contentHash(satellites: readonly Satellite[]): string {
  const hasher = new Bun.CryptoHasher('sha1')
  for (const s of satellites) {
    const e = s.elements
    hasher.update(`${s.noradId}|${s.name}|${s.groups.join(',')}|${e.epochMs}|${e.tle?.line1}|${e.tle?.line2}|${e.meanMotionRevPerDay}|${e.eccentricity}|${e.inclinationDeg}|${e.raanDeg}|${e.argOfPericenterDeg}|${e.meanAnomalyDeg}|${e.bstar}\n`)
  }
  return hasher.digest('hex').slice(0, 20)
}
