/**
 * The instants an element set can support: positions are given only there.
 *
 * - **Element age.** Within `maxElementAgeMs` of the epoch (the policy; null:
 *   no limit). SGP4's error grows by kilometres a day in low orbits, so a
 *   position months from the epoch is fiction. Nor before the year of the
 *   satellite's launch (its international designator's; the only launch date
 *   element sets say for certain: revolution counts are reset, and docked
 *   vehicles carry their station's), unless the epoch itself is before it
 *   (then the designator is wrong, not the elements).
 * - **Decay.** Not at or after the first instant the orbit's lowest possible
 *   point is below FLOOR_KM (or SGP4's mean eccentricity leaves its range):
 *   once decayed, every later instant is refused. For near-earth records the
 *   lowest point is bounded in closed form from SGP4's secular mean elements
 *   (`lowestHeightBoundKm`); deep-space records with a perigee below
 *   DEEP_SPACE_WATCH_KM are watched by propagating them (`decayedAt`).
 * - **Plausibility.** Each position's height is checked by `heightRefusal`:
 *   at least FLOOR_KM and at most CEILING_FACTOR × the elements' apogee height
 *   + CEILING_MARGIN_KM (SGP4's periodic terms stay far inside that).
 *
 * Decay instants are found lazily per satellite and remembered, on a fixed grid
 * from the epoch, so an answer never depends on which instants were asked first.
 */
import { constants, type SatRec, sgp4 } from 'satellite.js'
import type { ElementSet } from '../catalog/elements.ts'
import { launchYearOf, objectIdOf } from '../catalog/omm.ts'
import { type RefusalCounts, RefusalIndex } from './refusal-index.ts'
import { seekResonance } from './resonance.ts'

export type { RefusalCounts } from './refusal-index.ts'

export interface ValidityPolicy {
  /** The longest time from an element set's epoch at which it gives positions, ms; null: no limit. */
  maxElementAgeMs: number | null
}

const DAY_MS = 86_400_000
export const DEFAULT_MAX_ELEMENT_AGE_MS = 30 * DAY_MS
export const DEFAULT_VALIDITY_POLICY: ValidityPolicy = { maxElementAgeMs: DEFAULT_MAX_ELEMENT_AGE_MS }
/** `--max-element-age off`: decay and plausibility still apply. */
export const NO_AGE_LIMIT: ValidityPolicy = { maxElementAgeMs: null }

/**
 * The decay floor, km. Below ~100 km a satellite re-enters within a revolution
 * (the Kármán line; re-entry interface is usually put at 120 km), and SGP4's
 * power-law atmosphere is not meant for it; 80 km is below every orbit that lasts.
 */
export const FLOOR_KM = 80
export const CEILING_FACTOR = 1.1
export const CEILING_MARGIN_KM = 200
/** Deep-space records (periods of 225 min or more) whose perigee at the epoch is below this are watched for decay. */
export const DEEP_SPACE_WATCH_KM = 1000

export type RefusalKind = 'element-age' | 'decayed' | 'sgp4' | 'implausible'

/** Why a satellite has no position at an instant. */
export interface Refusal {
  kind: RefusalKind
  reason: string
}

const EARTH_EQUATORIAL_KM = 6378.137
const SGP4_RADIUS_KM = constants.earthRadius
const J2 = constants.j2
const XKE = constants.xke
const MU_KM3_S2 = constants.mu
const MINUTE_MS = 60_000
/** The decay search's grid step near the floor, and far from it, minutes. */
const FINE_STEP_MIN = 60
const COARSE_STEP_MIN = 360
/** Above the floor by this much, the bound cannot reach the floor within a coarse step (checked against the fine grid in the tests). */
const COARSE_MARGIN_KM = 300
/** Further than this from the epoch (~200 years, beyond the API's range of instants) a record counts as clear of decay. */
const MAX_SPAN_MIN = 1e8
/** Decay instants are located to within this, minutes (a millisecond: the instants answers carry). */
const DECAY_TOLERANCE_MIN = 1 / 60_000
/** Deep-space decay watch: samples per orbit near the floor; a day's step while the mean perigee is DEEP_COARSE_MARGIN_KM above it. */
const DEEP_SAMPLES_PER_ORBIT = 32
const DEEP_COARSE_STEP_MIN = 1440
const DEEP_COARSE_MARGIN_KM = 500

const DECAY_BOUND = 1
const DECAY_ECCENTRICITY = 2
const DECAY_SGP4 = 3

/**
 * A lower bound on a near-earth record's geodetic height (km) at any point of
 * its orbit `tsince` minutes from the epoch, from SGP4's secular terms (drag
 * on the semi-major axis and eccentricity; the cc5 term's oscillation bounded
 * by its amplitude), the long-period eccentricity term and the short-period
 * radial terms; -Infinity where SGP4's mean eccentricity may leave [-0.001, 1)
 * (its error 1) or the semi-major axis has decayed. Geodetic height ≥
 * geocentric radius - the equatorial radius.
 *
 * `throughout`: a bound for every instant from the epoch to `tsince` (each
 * drag term taken at its worst, |coefficient|·|t|ⁿ), which never increases
 * with |tsince|.
 */
export function lowestHeightBoundKm(satrec: SatRec, tsince: number, throughout = false): number {
  const t = throughout ? Math.abs(tsince) : tsince
  const t2 = t * t
  const abs = throughout ? Math.abs : (x: number) => x
  let tempa = 1 - abs(satrec.cc1) * t
  const tempe = abs(satrec.bstar * satrec.cc4) * t
  let spread = 0
  if (satrec.isimp !== 1) {
    tempa -= abs(satrec.d2) * t2 + abs(satrec.d3) * t2 * t + abs(satrec.d4) * t2 * t2
    spread = Math.abs(satrec.bstar * satrec.cc5) * (1 + Math.abs(satrec.sinmao))
  }
  const ratio = XKE / satrec.no
  const am = Math.cbrt(ratio * ratio) * tempa * tempa
  const emHigh = satrec.ecco + (throughout ? tempe : -tempe) + spread
  const emLow = satrec.ecco - tempe - spread
  if (!(tempa > 0) || !(emHigh < 1) || !(emLow >= -0.001)) return Number.NEGATIVE_INFINITY
  const em = Math.max(1e-6, emHigh)
  const lp = 1 / (am * (1 - em * em))
  const e = em + Math.abs(lp * satrec.aycof)
  if (!(e < 1)) return Number.NEGATIVE_INFINITY
  const pl = am * (1 - e * e)
  const temp1 = (0.5 * J2) / pl
  const temp2 = temp1 / pl
  const radius = am * (1 - e) * (1 - 1.5 * temp2 * Math.abs(satrec.con41)) - 0.5 * temp1 * Math.abs(satrec.x1mth2)
  return radius * SGP4_RADIUS_KM - EARTH_EQUATORIAL_KM
}

/** The longest span from the epoch (minutes, to a minute) throughout which a near-earth record's bound stays at or above the floor. */
export function clearSpanMin(satrec: SatRec): number {
  const clear = (t: number) => lowestHeightBoundKm(satrec, t, true) >= FLOOR_KM
  if (!clear(0)) return 0
  let lo = 0
  let hi = FINE_STEP_MIN
  while (clear(hi)) {
    lo = hi
    hi *= 2
    if (hi > MAX_SPAN_MIN) return MAX_SPAN_MIN
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) / 2
    if (clear(mid)) lo = mid
    else hi = mid
  }
  return Math.floor(lo)
}

/** The apogee height (km above the equatorial radius) of an element set's mean orbit. */
export function apogeeHeightKm(elements: ElementSet): number {
  const n = (elements.meanMotionRevPerDay * 2 * Math.PI) / 86_400
  const a = Math.cbrt(MU_KM3_S2 / (n * n))
  return a * (1 + elements.eccentricity) - EARTH_EQUATORIAL_KM
}

/** The highest plausible height of a position from these elements, km. */
export function heightCeilingKm(elements: ElementSet): number {
  return CEILING_FACTOR * Math.max(0, apogeeHeightKm(elements)) + CEILING_MARGIN_KM
}

/**
 * An age past the limit `limitMs` for a refusal, in the limit's unit (days, or
 * hours or seconds for a limit said in them: 0.042 days past a 1-hour limit
 * reads as within it): `days`, or with as many more decimals (up to 4) as it
 * takes not to read as the limit itself ("30.0417 days" past a limit of 30
 * days, not "30 days"); closer still, "more than 30 days".
 */
function pastLimit(ms: number, limitMs: number): string {
  const [unitMs, unit] = limitMs % DAY_MS === 0 ? [DAY_MS, 'days'] : limitMs % 3_600_000 === 0 ? [3_600_000, 'hours'] : [1000, 's']
  const first = (x: number) => (x >= 10 || x <= -10 ? x.toFixed(0) : x.toFixed(1))
  let shown = first(ms / unitMs)
  for (let digits = 1; digits <= 4 && Math.abs(Number(shown)) * unitMs <= limitMs; digits++) shown = (ms / unitMs).toFixed(digits)
  return Math.abs(Number(shown)) * unitMs <= limitMs ? `more than ${describeLimit(limitMs)}` : `${shown} ${unit}`
}

/**
 * The start of the year of a satellite's launch (ms), as its international
 * designator says; -Infinity when it has none, or when its epoch is before
 * that year (the designator is then wrong, not the elements).
 */
export function launchYearStartMs(elements: Pick<ElementSet, 'intlDesignator' | 'epochMs'>): number {
  const year = launchYearOf(elements.intlDesignator ?? '')
  const startMs = year === null ? Number.NEGATIVE_INFINITY : Date.UTC(year, 0, 1)
  return startMs <= elements.epochMs ? startMs : Number.NEGATIVE_INFINITY
}

/** "30 days", "12 hours": a limit as people say it. */
export function describeLimit(ms: number): string {
  if (ms % DAY_MS === 0) return `${ms / DAY_MS} day${ms === DAY_MS ? '' : 's'}`
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} hour${ms === 3_600_000 ? '' : 's'}`
  return `${ms / 1000} s`
}

/**
 * The validity rules of one catalogue under one policy: per satellite (by
 * index), the age window and the height ceiling, and the decay instant once it
 * has been looked for.
 */
export class Validity {
  readonly policy: ValidityPolicy
  private readonly elements: readonly ElementSet[]
  /** Each element set's epoch, ms and µs (read on every position: typed arrays, not each set's object). */
  private readonly epochMs: Float64Array
  private readonly epochUs: Float64Array
  private readonly fromMs: Float64Array
  private readonly toMs: Float64Array
  private readonly ceilingKm: Float64Array
  /** The last grid point (minutes from the epoch) known to be clear of decay; NaN: not looked at yet; Infinity: never decays. */
  private readonly clearToMin: Float64Array
  /** The decay instant (ms) once found, else Infinity. */
  private readonly decayMs: Float64Array
  private readonly decayKind: Uint8Array
  /** The latest start of a launch year that bounds a satellite's positions (launchYearStartMs); -Infinity: none does. */
  readonly latestLaunchYearStartMs: number
  /** The last counts `countRefusals` made, and the stretch of time they hold for. */
  private lastCounts: { fromMs: number; untilMs: number; counts: RefusalCounts } | undefined

  constructor(elements: readonly ElementSet[], policy: ValidityPolicy) {
    this.policy = policy
    this.elements = elements
    const n = elements.length
    this.epochMs = new Float64Array(n)
    this.epochUs = new Float64Array(n)
    this.fromMs = new Float64Array(n)
    this.toMs = new Float64Array(n)
    this.ceilingKm = new Float64Array(n)
    this.clearToMin = new Float64Array(n).fill(Number.NaN)
    this.decayMs = new Float64Array(n).fill(Number.POSITIVE_INFINITY)
    this.decayKind = new Uint8Array(n)
    const age = policy.maxElementAgeMs ?? Number.POSITIVE_INFINITY
    let latestLaunchMs = Number.NEGATIVE_INFINITY
    for (let i = 0; i < n; i++) {
      const e = elements[i]!
      this.epochMs[i] = e.epochMs
      this.epochUs[i] = e.epochUs ?? e.epochMs * 1000
      const launchMs = launchYearStartMs(e)
      if (launchMs > latestLaunchMs) latestLaunchMs = launchMs
      this.fromMs[i] = Math.max(e.epochMs - age, launchMs)
      this.toMs[i] = e.epochMs + age
      this.ceilingKm[i] = heightCeilingKm(e)
    }
    this.latestLaunchYearStartMs = latestLaunchMs
  }

  /** The stretch of time within the age limit of satellite `i`'s epoch and not before its launch year, ms since 1970 (±Infinity: no limit). */
  ageWindowOf(i: number): { fromMs: number; toMs: number } {
    return { fromMs: this.fromMs[i]!, toMs: this.toMs[i]! }
  }

  /** The highest plausible height of satellite `i`'s positions, km (`heightCeilingKm` of its elements). */
  heightCeilingAt(i: number): number {
    return this.ceilingKm[i]!
  }

  /** Minutes from satellite `i`'s epoch to an instant: position.ts's `minutesSinceEpoch` of its elements, the same arithmetic. */
  minutesSinceEpoch(i: number, instantMs: number): number {
    return (instantMs * 1000 - this.epochUs[i]!) / 60_000_000
  }

  /** Whether satellite `i`'s elements are within the age limit at the instant. */
  inAgeWindow(i: number, instantMs: number): boolean {
    return instantMs >= this.fromMs[i]! && instantMs <= this.toMs[i]!
  }

  /** Why satellite `i` (SGP4 record `satrec`) has no position at the instant by age or decay, or null. */
  refusalAt(i: number, satrec: SatRec, instantMs: number): Refusal | null {
    // Decay first: once decayed (within the age limit, where the elements can tell), every later instant says so.
    const decayMs = this.decayedWithin(i, satrec, instantMs)
    if (decayMs === null) return this.inAgeWindow(i, instantMs) ? null : this.ageRefusal(i, instantMs)
    const why =
      this.decayKind[i] === DECAY_ECCENTRICITY
        ? "SGP4's mean eccentricity leaves its range"
        : this.decayKind[i] === DECAY_SGP4
          ? `SGP4 gives no position or one below ${FLOOR_KM} km`
          : `the lowest point of its orbit is below ${FLOOR_KM} km`
    return { kind: 'decayed', reason: `decayed at ${new Date(decayMs).toISOString()} (${why}); no later positions` }
  }

  /** A refusal when a position's height is below the floor or above the ceiling, else null. */
  heightRefusal(i: number, heightKm: number): Refusal | null {
    if (this.plausibleHeight(i, heightKm)) return null
    const below = heightKm < FLOOR_KM
    const bound = below ? FLOOR_KM : this.ceilingKm[i]!
    // Whole km, unless the height would then read as the bound it missed (79.9999 km is not "80 km, below the 80 km floor").
    let decimals = 0
    while (decimals < 6 && heightKm.toFixed(decimals) === bound.toFixed(decimals)) decimals++
    const height = `SGP4 gives a height of ${heightKm.toFixed(decimals)} km`
    if (below) return { kind: 'implausible', reason: `${height}, below the ${FLOOR_KM} km floor` }
    return {
      kind: 'implausible',
      reason: `${height}, above the highest plausible for these elements (${bound.toFixed(decimals)} km: apogee height ${apogeeHeightKm(this.elements[i]!).toFixed(0)} km + 10 % + 200 km)`,
    }
  }

  /** Whether a height is within satellite `i`'s plausible range (the test of `heightRefusal`, without the message). */
  plausibleHeight(i: number, heightKm: number): boolean {
    return heightKm >= FLOOR_KM && heightKm <= this.ceilingKm[i]!
  }

  private ageRefusal(i: number, instantMs: number): Refusal {
    const e = this.elements[i]!
    const launchMs = launchYearStartMs(e)
    if (instantMs < launchMs) {
      const year = new Date(launchMs).getUTCFullYear()
      return {
        kind: 'element-age',
        reason: `the instant is before ${year}, the year of its launch (international designator ${objectIdOf(e.intlDesignator)}); positions are given from ${new Date(launchMs).toISOString()}`,
      }
    }
    const limitMs = this.policy.maxElementAgeMs!
    const limit = describeLimit(limitMs)
    const epoch = new Date(e.epochMs).toISOString()
    const offset = instantMs - e.epochMs
    const how = offset >= 0 ? `the elements are ${pastLimit(offset, limitMs)} old at this instant` : `the instant is ${pastLimit(-offset, limitMs)} before the elements' epoch`
    return {
      kind: 'element-age',
      reason: `${how} (epoch ${epoch}); positions are given within ${limit} of the epoch (--max-element-age)`,
    }
  }

  /**
   * The decay instant of satellite `i` when it is at or before `instantMs` and
   * within the age limit of its epoch, else null: the decay the rules say. One
   * SGP4's drag predicts further on is an extrapolation the elements cannot
   * support (months-old elements would have most of a constellation that keeps
   * its orbit "decayed"): there the age limit refuses, saying so. With no age
   * limit, every decay found.
   */
  decayedWithin(i: number, satrec: SatRec, instantMs: number): number | null {
    return this.decayedBy(i, satrec, Math.min(instantMs, this.toMs[i]!))
  }

  /**
   * The decay instant of satellite `i` when it is at or before `instantMs`,
   * else null, whatever the age limit. Looks further along the satellite's grid only as far as asked.
   */
  decayedBy(i: number, satrec: SatRec, instantMs: number): number | null {
    const epochMs = this.epochMs[i]!
    if (instantMs < epochMs) return null
    if (this.decayMs[i]! <= instantMs) return this.decayMs[i]!
    let clear = this.clearToMin[i]!
    const untilMin = (instantMs - epochMs) / MINUTE_MS
    if (clear >= untilMin) return null
    const deep = satrec.method === 'd'
    if (Number.isNaN(clear)) {
      // Where the search starts: for near-earth records, as far as the bound holds throughout (usually years).
      clear = deep ? 0 : clearSpanMin(satrec)
      if (deep && perigeeHeightKm(satrec) >= DEEP_SPACE_WATCH_KM) clear = Number.POSITIVE_INFINITY
      else if (clear >= MAX_SPAN_MIN) clear = Number.POSITIVE_INFINITY
      else if (!this.clearAt(satrec, epochMs, clear)) return this.found(i, epochMs, clear, satrec) <= instantMs ? this.decayMs[i]! : null
      this.clearToMin[i] = clear
      if (clear >= untilMin) return null
    }
    const fineStep = deep ? (2 * Math.PI) / satrec.no / DEEP_SAMPLES_PER_ORBIT : FINE_STEP_MIN
    while (clear < untilMin) {
      const step = deep
        ? meanPerigeeHeightKm(satrec, epochMs, clear) > FLOOR_KM + DEEP_COARSE_MARGIN_KM
          ? DEEP_COARSE_STEP_MIN
          : fineStep
        : nearEarthStepMin(satrec, clear)
      const next = clear + step
      if (!this.clearAt(satrec, epochMs, next)) {
        // The first instant that is not clear, to DECAY_TOLERANCE_MIN, between `clear` (clear) and `next` (not).
        let lo = clear
        let hi = next
        while (hi - lo > DECAY_TOLERANCE_MIN) {
          const mid = (lo + hi) / 2
          if (this.clearAt(satrec, epochMs, mid)) lo = mid
          else hi = mid
        }
        this.clearToMin[i] = clear
        return this.found(i, epochMs, hi, satrec) <= instantMs ? this.decayMs[i]! : null
      }
      clear = next
    }
    this.clearToMin[i] = clear
    return null
  }

  private found(i: number, epochMs: number, atMin: number, satrec: SatRec): number {
    this.decayMs[i] = epochMs + Math.round(atMin * MINUTE_MS)
    if (satrec.method === 'd') this.decayKind[i] = DECAY_SGP4
    else this.decayKind[i] = lowestHeightBoundKm(satrec, atMin) === Number.NEGATIVE_INFINITY ? DECAY_ECCENTRICITY : DECAY_BOUND
    return this.decayMs[i]!
  }

  /** Whether the record is clear of decay `tsince` minutes from its epoch. */
  private clearAt(satrec: SatRec, epochMs: number, tsince: number): boolean {
    if (satrec.method !== 'd') return lowestHeightBoundKm(satrec, tsince) >= FLOOR_KM
    const pv = deepSgp4(satrec, epochMs, tsince)
    if (satrec.error !== 0 || !pv || typeof pv.position !== 'object') return false
    const p = pv.position
    return Math.sqrt(p.x * p.x + p.y * p.y + p.z * p.z) - EARTH_EQUATORIAL_KM >= FLOOR_KM
  }

  /**
   * How many satellites have no position at the instant because they have
   * decayed, and how many (not decayed) because of their elements' age: the
   * counts of `countRefusalsOneByOne`, from a RefusalIndex (refusal-index.ts)
   * in O(log n), so that an answer at a one-off instant (every /nearby with
   * `time`) does not go through the whole catalogue. The index is made again,
   * REFUSAL_INDEX_AHEAD_MS further, when a later instant than it covers comes.
   */
  countRefusals(instantMs: number, satrecAt: (i: number) => SatRec): RefusalCounts {
    if (this.refusals === undefined || instantMs > this.refusals.horizonMs) {
      const horizonMs = Math.max(instantMs, this.refusals?.horizonMs ?? Number.NEGATIVE_INFINITY) + REFUSAL_INDEX_AHEAD_MS
      this.refusals = RefusalIndex.upTo(this, this.elements.length, horizonMs, satrecAt)
    }
    return this.refusals.counts(instantMs)
  }

  private refusals: RefusalIndex | undefined

  /** The counts of `countRefusals` for some satellites only (catalogue indices): as refusalAt decides (decay first, then age), without its messages. */
  countRefusalsAmong(indices: readonly number[], instantMs: number, satrecAt: (i: number) => SatRec): RefusalCounts {
    let elementAge = 0
    let decayed = 0
    for (const i of indices) {
      if (this.decayedWithin(i, satrecAt(i), instantMs) !== null) decayed++
      else if (!this.inAgeWindow(i, instantMs)) elementAge++
    }
    return { elementAge, decayed }
  }

  /**
   * The decay searches `countRefusals(instantMs)` would run at once, as work
   * in slices: each step takes one satellite's search at most a year further
   * (a month for deep-space records)
   * (memoised, so the counts then cost what they cost near the epochs), or
   * undefined when there is none to run. With no age limit, decades from the
   * epochs the searches of the whole catalogue take seconds (2099: ~4 s), which
   * a request must not hold the event loop for; with one, they end at its end.
   */
  prepareDecays(instantMs: number, satrecAt: (i: number) => SatRec): Generator<void, void> | undefined {
    if (this.refusals !== undefined && instantMs <= this.refusals.horizonMs) return undefined
    const horizonMs = instantMs + REFUSAL_INDEX_AHEAD_MS
    // Searched as far as the horizon (or the end of the age limit: no decay is said beyond it), or its decay found (a later ask
    // finds it again at once): nothing left to do for satellite i.
    const reach = (i: number) => Math.min(horizonMs, this.toMs[i]!)
    const done = (i: number) => {
      const clear = this.clearToMin[i]!
      return reach(i) < this.epochMs[i]! || Number.isFinite(this.decayMs[i]!) || (!Number.isNaN(clear) && this.epochMs[i]! + clear * MINUTE_MS >= reach(i))
    }
    const pending: number[] = []
    for (let i = 0; i < this.elements.length; i++) if (!done(i)) pending.push(i)
    if (pending.length === 0) return undefined
    const validity = this
    return (function* () {
      for (const i of pending) {
        const satrec = satrecAt(i)
        // A deep-space record near the floor is propagated many times an orbit: a month of it is a step.
        const stepMs = satrec.method === 'd' ? MONTH_MS : YEAR_MS
        while (!done(i)) {
          const clear = validity.clearToMin[i]!
          const fromMs = validity.epochMs[i]! + (Number.isNaN(clear) ? 0 : clear * MINUTE_MS)
          validity.decayedBy(i, satrec, Math.min(reach(i), fromMs + stepMs))
          yield
        }
      }
    })()
  }

  /**
   * The counts of `countRefusals`, the plain way: every satellite asked as
   * refusalAt decides (decay first, then age). The reference the index is
   * tested against. The counts hold from the instant until the next age limit,
   * epoch, decay or end of a known-clear span: remembered for that stretch.
   */
  countRefusalsOneByOne(instantMs: number, satrecAt: (i: number) => SatRec): RefusalCounts {
    const last = this.lastCounts
    if (last !== undefined && instantMs >= last.fromMs && instantMs < last.untilMs) return last.counts
    let elementAge = 0
    let decayed = 0
    let untilMs = Number.POSITIVE_INFINITY
    for (let i = 0; i < this.elements.length; i++) {
      // As refusalAt decides: decay first, then age.
      const epochMs = this.elements[i]!.epochMs
      if (instantMs >= epochMs) {
        if (this.decayedWithin(i, satrecAt(i), instantMs) !== null) {
          decayed++ // and for every later instant
          continue
        }
        // Clear of decay up to the end of the span looked at (at least as far as the instant, or the age limit's end:
        // past it no decay is said, and the age refusal holds for every later instant).
        if (instantMs <= this.toMs[i]!) untilMs = Math.min(untilMs, epochMs + this.clearToMin[i]! * MINUTE_MS, this.decayMs[i]!)
      } else untilMs = Math.min(untilMs, epochMs)
      const fromMs = this.fromMs[i]!
      const toMs = this.toMs[i]!
      if (instantMs < fromMs) {
        elementAge++
        untilMs = Math.min(untilMs, fromMs)
      } else if (instantMs > toMs) elementAge++ // until it decays (above)
      else untilMs = Math.min(untilMs, toMs + 1)
    }
    const counts = { elementAge, decayed }
    this.lastCounts = { fromMs: instantMs, untilMs, counts }
    return counts
  }
}

const YEAR_MS = 365.25 * DAY_MS
const MONTH_MS = 30 * DAY_MS

/** How far past the latest instant asked `countRefusals` looks for decays, so that nearby instants find them known. */
const REFUSAL_INDEX_AHEAD_MS = 30 * DAY_MS

/**
 * The decay search's next step for a near-earth record at `tsince` (minutes):
 * a quarter of the time the bound, falling at its rate over the last fine step,
 * would take to reach the floor (so a drag that speeds up fourfold is still
 * caught), from FINE_STEP_MIN up to COARSE_STEP_MIN; the coarse step far above
 * the floor. Checked against a plain hourly scan of the whole catalogue in the tests.
 */
function nearEarthStepMin(satrec: SatRec, tsince: number): number {
  const here = lowestHeightBoundKm(satrec, tsince)
  const marginKm = here - FLOOR_KM
  if (marginKm > COARSE_MARGIN_KM) return COARSE_STEP_MIN
  const fallKmPerMin = (lowestHeightBoundKm(satrec, Math.max(0, tsince - FINE_STEP_MIN)) - here) / FINE_STEP_MIN
  if (!(fallKmPerMin > 0)) return FINE_STEP_MIN
  return Math.min(COARSE_STEP_MIN, Math.max(FINE_STEP_MIN, (0.25 * marginKm) / fallKmPerMin))
}

/** The perigee height of SGP4's mean elements `tsince` minutes from the epoch, km (-Infinity where SGP4 fails). */
function meanPerigeeHeightKm(satrec: SatRec, epochMs: number, tsince: number): number {
  const pv = deepSgp4(satrec, epochMs, tsince)
  if (satrec.error !== 0 || !pv || typeof pv.position !== 'object') return Number.NEGATIVE_INFINITY
  const { am, em } = pv.meanElements
  return am * (1 - em) * SGP4_RADIUS_KM - EARTH_EQUATORIAL_KM
}

/** SGP4 for a deep-space record, its resonance integrator started from the nearest checkpoint (see resonance.ts). */
function deepSgp4(satrec: SatRec, epochMs: number, tsince: number) {
  seekResonance(satrec, epochMs + tsince * MINUTE_MS)
  return sgp4(satrec, tsince)
}

/** A record's perigee height at its epoch, km (SGP4's un-Kozai'd mean motion). */
function perigeeHeightKm(satrec: SatRec): number {
  const ratio = XKE / satrec.no
  return Math.cbrt(ratio * ratio) * (1 - satrec.ecco) * SGP4_RADIUS_KM - EARTH_EQUATORIAL_KM
}
