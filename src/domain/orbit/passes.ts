/**
 * Passes of one satellite over an observer: when it rises above an elevation
 * threshold, culminates and sets, and when during a pass it can be seen.
 *
 * Method: the elevation is sampled on a grid whose step follows the orbit
 * (`scanStepMs`); a change of side between two samples brackets a crossing,
 * which Brent's root finder pins down to a few milliseconds. A pass too short
 * to hold a sample shows as a local maximum of the sampled elevation below the
 * threshold (and a dip as a local minimum above it): its extremum is found with
 * Brent's minimiser (golden section with parabolic steps) and tested too. The
 * culmination is the highest such extremum of the pass. Visibility (sunlit and
 * the Sun at or below -6° at the observer, the API's rule) is decided at the
 * same samples and its changes refined by bisection.
 *
 * Time is in ms since 1970 (UTC) throughout; the searched time is [startMs, endMs].
 * Pure: the caller passes the catalogue, the satellite's index in it and the instants.
 */
import { ecfToEci, geodeticToEcf, type SatRec } from 'satellite.js'
import type { Catalog } from '../catalog/catalog.ts'
import { apparentMagnitude, phaseAngleRad, roundMagnitude } from './magnitude.ts'
import { positionAt, siderealTimeRad, type Vector3 } from './position.ts'
import { rangeRateKmS } from './radio.ts'
import { CIVIL_TWILIGHT_DEG, isSunlit, KM_PER_AU, type LookAngles, lookAngles, type Observer, sunAltitudeDeg, sunPositionAu, toGeodeticRad } from './sky.ts'
import { bisectChange } from '../search/bisect.ts'
import { brentMaximum } from '../search/brent-maximum.ts'
import { brentRoot } from '../search/brent-root.ts'

export interface PassQuery {
  observer: Observer
  /** Start and end of the searched time, ms since 1970. */
  startMs: number
  endMs: number
  /** The elevation a pass is above, degrees (the horizon is 0). */
  minElevationDeg: number
  /**
   * The satellite's standard magnitude and the faintest magnitude counted as
   * visible: with it, visibility also needs the magnitude at or below the limit,
   * and the culmination and the brightest moment carry magnitudes. Without it,
   * visible means sunlit in a dark sky and no magnitudes are given.
   */
  brightness?: { standardMagnitude: number; magnitudeLimit: number }
}

/** Where the satellite is in the observer's sky at an instant (ms since 1970), and how fast its range grows (km/s, see radio.ts). */
export interface SkyPoint extends LookAngles {
  instantMs: number
  rangeRateKmS: number
}

export interface TimeSpan {
  fromMs: number
  toMs: number
}

/** A sky point with the satellite's estimated apparent magnitude there: null when it is in the Earth's shadow (or no brightness was asked for). */
export interface BrightnessPoint extends SkyPoint {
  magnitude: number | null
}

/** One stretch of time in which the satellite is at or above the threshold. */
export interface Pass {
  /** The upward crossing of the threshold; null when the satellite was above it already where the searched time (or its positions) began. */
  rise: SkyPoint | null
  /** The highest point of the pass within the searched time. */
  culmination: BrightnessPoint
  /**
   * With `brightness` in the query: the brightest moment among those in which the satellite is sunlit while the
   * Sun is at or below -6° at the observer (when the pass is visible, its brightest visible moment); null when there is none.
   */
  brightest: (SkyPoint & { magnitude: number }) | null
  /** The downward crossing; null when the satellite is still above the threshold where the searched time (or its positions) ends. */
  set: SkyPoint | null
  /** The stretch above the threshold within the searched time: from the rise (or the start) to the set (or the end). */
  startMs: number
  endMs: number
  /** The parts of the pass in which the satellite is sunlit and the Sun is at or below -6° at the observer, in order. */
  visible: TimeSpan[]
}

/**
 * Whether a pass begins where the satellite's positions begin inside the time
 * searched from `fromMs` (no rise, and later than that start): the element-age
 * limit, a decay or an implausible height cut it, not the searched time.
 */
export function beginsWithPositions(pass: Pass, fromMs: number): boolean {
  return pass.rise === null && pass.startMs > fromMs
}

/** Whether a pass ends where the satellite's positions end inside the time searched up to `toMs` (no set, and earlier than that end). */
export function endsWithPositions(pass: Pass, toMs: number): boolean {
  return pass.set === null && pass.endMs < toMs
}

/** A part of the searched time in which the satellite has no position (see position.ts), with the reason at its start. */
export interface NoPositionSpan extends TimeSpan {
  reason: string
}

export interface PassSearch {
  /** In time order. */
  passes: Pass[]
  /** Found on the grid and their edges refined to the millisecond (POSITION_EDGE_MS); empty when every sample had a position. */
  noPosition: NoPositionSpan[]
  /** Whether the satellite has a position anywhere in the searched time. */
  anyPosition: boolean
  /** The grid step used, ms. */
  stepMs: number
}

/** Samples per orbit, counted at the angular rate of the perigee (one every 2.4° of orbit there). */
const SAMPLES_PER_ORBIT = 150
const MIN_STEP_MS = 5_000
/** The Earth's rotation moves even a geostationary satellite across the sky: sample at least this often. */
const MAX_STEP_MS = 300_000
/** Crossings and culminations are located to within this (the instants reported are whole milliseconds). */
const ROOT_TOLERANCE_MS = 2
/** Within a stretch sunlit in a dark sky, the magnitude is compared with the limit this often (then bisected). */
const BRIGHTNESS_STEP_MS = 5_000
/** Changes of visibility are located to within this. */
const EDGE_TOLERANCE_MS = 20
/**
 * Where positions end or begin (the age limit, a decay: instants known to the
 * millisecond) is located to the millisecond: a stretch without positions
 * starts at the first millisecond without one.
 */
const POSITION_EDGE_MS = 1

/** The highest value of `f` between `a` and `b`, to ROOT_TOLERANCE_MS. */
const peak = (f: (t: number) => number, a: number, b: number) => brentMaximum(f, a, b, ROOT_TOLERANCE_MS)

/**
 * The grid step for a satellite: 1/150 of its period, shortened by the ratio of
 * the perigee's angular rate to the mean motion, so an eccentric orbit is
 * sampled as finely at perigee as a circular one everywhere (ISS 37 s, NOAA 20
 * 41 s, Molniya-like Arktika-M 31 s, geosynchronous 5 min). The elevation seen
 * from the ground changes on no shorter time scale than the satellite's own
 * motion; a pass shorter than a step is still found (see the module comment).
 */
export function scanStepMs(satrec: SatRec): number {
  const periodMs = ((2 * Math.PI) / satrec.no) * 60_000
  const e = Math.min(Math.max(satrec.ecco, 0), 0.99)
  const perigeeRateRatio = Math.sqrt((1 + e) / (1 - e) ** 3)
  const step = Math.round(periodMs / SAMPLES_PER_ORBIT / perigeeRateRatio)
  return Number.isFinite(step) ? Math.min(MAX_STEP_MS, Math.max(MIN_STEP_MS, step)) : MIN_STEP_MS
}

/** A sample of the satellite's state as the observer sees it. */
interface Sample {
  /** Whole ms since 1970. */
  t: number
  look: LookAngles
  eciKm: Vector3
  velocityKmS: Vector3
  gmstRad: number
}
type Sampled = { ok: true; sample: Sample } | { ok: false; t: number; reason: string }

export function findPasses(catalog: Catalog, index: number, query: PassQuery): PassSearch {
  const satrec = catalog.satrecAt(index)
  const { observer, minElevationDeg } = query
  const startMs = Math.round(query.startMs)
  const endMs = Math.max(startMs, Math.round(query.endMs))
  const stepMs = scanStepMs(satrec)

  const sampleAt = (time: number): Sampled => {
    const t = Math.round(time)
    const instant = new Date(t)
    const gmstRad = siderealTimeRad(instant)
    const position = positionAt(catalog, index, instant, gmstRad, satrec)
    if (!position.ok) return { ok: false, t, reason: position.reason }
    const eciKm = position.state.eciKm
    return { ok: true, sample: { t, look: lookAngles(observer, eciKm, gmstRad), eciKm, velocityKmS: position.state.velocityKmS, gmstRad } }
  }
  /** Degrees above the elevation threshold (negative below it); far below where there is no position. */
  const aboveThresholdAt = (time: number): { degrees: number; sampled: Sampled } => {
    const sampled = sampleAt(time)
    return { degrees: sampled.ok ? sampled.sample.look.elevationDeg - minElevationDeg : -1e9, sampled }
  }

  // 1. The grid, split into runs of samples that have a position.
  const runs: Sample[][] = []
  const noPosition: NoPositionSpan[] = []
  let run: Sample[] = []
  let previous: Sampled | undefined
  for (let time = startMs; ; time = Math.min(time + stepMs, endMs)) {
    const current = sampleAt(time)
    if (current.ok) {
      if (previous && !previous.ok) {
        // Positions begin between the two samples.
        const edge = bisectChange((t) => !sampleAt(t).ok, previous.t, current.sample.t, POSITION_EDGE_MS)
        noPosition.at(-1)!.toMs = edge.lastBefore
        const first = sampleAt(edge.firstAfter)
        if (first.ok && first.sample.t < current.sample.t) run.push(first.sample)
      }
      run.push(current.sample)
    } else {
      if (!previous || previous.ok) {
        let fromMs = current.t
        let { reason } = current
        if (previous?.ok) {
          // Positions end between the two samples: the stretch starts, with its reason there, at the first millisecond without one.
          const edge = bisectChange((t) => sampleAt(t).ok, previous.sample.t, current.t, POSITION_EDGE_MS)
          const last = sampleAt(edge.lastBefore)
          if (last.ok && last.sample.t > previous.sample.t) run.push(last.sample)
          fromMs = edge.firstAfter
          const first = sampleAt(fromMs)
          if (!first.ok) reason = first.reason
        }
        if (run.length) runs.push(run)
        run = []
        noPosition.push({ fromMs, toMs: current.t, reason })
      } else {
        noPosition.at(-1)!.toMs = current.t
      }
    }
    previous = current
    if (time >= endMs) break
  }
  if (run.length) runs.push(run)

  const observerEcfKm = geodeticToEcf(toGeodeticRad(observer))
  const skyPoint = (s: Sample): SkyPoint => ({
    instantMs: s.t,
    azimuthDeg: s.look.azimuthDeg,
    elevationDeg: s.look.elevationDeg,
    rangeKm: s.look.rangeKm,
    rangeRateKmS: rangeRateKmS(observerEcfKm, s.eciKm, s.velocityKmS, s.gmstRad),
  })
  const passes = runs.flatMap((samples) => passesInRun(samples, minElevationDeg, aboveThresholdAt, observer, query.brightness, skyPoint))
  return { passes, noPosition, anyPosition: runs.length > 0, stepMs }
}

type AboveThresholdAt = (time: number) => { degrees: number; sampled: Sampled }

/** The passes within one run of samples that all have a position. */
function passesInRun(
  samples: Sample[],
  minElevationDeg: number,
  aboveThresholdAt: AboveThresholdAt,
  observer: Observer,
  brightness: PassQuery['brightness'],
  skyPoint: (s: Sample) => SkyPoint,
): Pass[] {
  const f = (s: Sample) => s.look.elevationDeg - minElevationDeg
  const value = (t: number) => aboveThresholdAt(t).degrees
  /** The sample at `t`; in the unlikely case of a gap in positions shorter than the grid step, the run's nearest sample. */
  const sampleOf = (t: number): Sample => {
    const sampled = aboveThresholdAt(t).sampled
    if (sampled.ok) return sampled.sample
    const k = Math.min(firstIndexAfter(samples, t), samples.length - 1)
    return k > 0 && t - samples[k - 1]!.t < samples[k]!.t - t ? samples[k - 1]! : samples[k]!
  }
  const root = (a: Sample, b: Sample) => sampleOf(brentRoot(value, a.t, b.t, f(a), f(b), ROOT_TOLERANCE_MS))
  const n = samples.length

  // 2. Crossings: a change of side between neighbours, or a pass (or a dip) hidden between samples.
  const crossings: { kind: 'rise' | 'set'; at: Sample }[] = []
  for (let i = 0; i + 1 < n; i++) {
    const a = samples[i]!
    const b = samples[i + 1]!
    if (f(a) < 0 && f(b) >= 0) crossings.push({ kind: 'rise', at: root(a, b) })
    else if (f(a) >= 0 && f(b) < 0) crossings.push({ kind: 'set', at: root(a, b) })
  }
  for (let i = 0; i < n; i++) {
    const here = f(samples[i]!)
    const before = i > 0 ? f(samples[i - 1]!) : undefined
    const after = i + 1 < n ? f(samples[i + 1]!) : undefined
    if (before === undefined && after === undefined) continue
    const lo = samples[Math.max(0, i - 1)]!
    const hi = samples[Math.min(n - 1, i + 1)]!
    const sameSide = (v: number | undefined) => v === undefined || v < 0 === here < 0
    if (!sameSide(before) || !sameSide(after)) continue
    // A local extremum of the samples (ties go to the first of equal neighbours, so no bracket is searched twice).
    if (here < 0 && (before === undefined || here > before) && (after === undefined || here >= after)) {
      const top = peak(value, lo.t, hi.t)
      if (top.value >= 0) {
        const peak = sampleOf(top.t)
        crossings.push({ kind: 'rise', at: root(lo, peak) }, { kind: 'set', at: root(peak, hi) })
      }
    } else if (here >= 0 && (before === undefined || here < before) && (after === undefined || here <= after)) {
      const bottom = peak((t) => -value(t), lo.t, hi.t)
      if (-bottom.value < 0) {
        const trough = sampleOf(bottom.t)
        crossings.push({ kind: 'set', at: root(lo, trough) }, { kind: 'rise', at: root(trough, hi) })
      }
    }
  }
  crossings.sort((a, b) => a.at.t - b.at.t)

  // 3. Stretches above the threshold; the ends of the run close those still open.
  const passes: Pass[] = []
  let rise: Sample | null = null
  let start: Sample | null = f(samples[0]!) >= 0 ? samples[0]! : null
  for (const crossing of crossings) {
    if (crossing.kind === 'rise') {
      rise = crossing.at
      start = crossing.at
    } else if (start) {
      passes.push(passOf(start, rise, crossing.at, crossing.at))
      start = null
      rise = null
    }
  }
  if (start) passes.push(passOf(start, rise, samples[n - 1]!, null))
  return passes

  function passOf(first: Sample, rise: Sample | null, last: Sample, set: Sample | null): Pass {
    // The pass's samples: its ends and the grid points between them.
    const points = [first, ...samples.slice(firstIndexAfter(samples, first.t), firstIndexAfter(samples, last.t - 1)), last]
    if (last.t === first.t) points.pop()
    const culmination = culminationOf(points, rise !== null, set !== null)
    return {
      rise: rise && skyPoint(rise),
      culmination: {
        ...skyPoint(culmination),
        magnitude: brightness && sunlitAt(culmination) ? roundMagnitude(magnitudeOf(culmination, brightness.standardMagnitude)) : null,
      },
      brightest: brightness ? brightestOf(points, brightness.standardMagnitude) : null,
      set: set && skyPoint(set),
      startMs: first.t,
      endMs: last.t,
      visible: visibleSpans(points),
    }
  }

  /** The highest point among the pass's points and the maxima bracketed by them. */
  function culminationOf(points: Sample[], rises: boolean, sets: boolean): Sample {
    const m = points.length
    let best: { t: number; value: number } = { t: points[0]!.t, value: f(points[0]!) }
    const consider = (t: number, v: number) => {
      if (v > best.value) best = { t, value: v }
    }
    if (!rises) consider(points[0]!.t, f(points[0]!))
    if (!sets) consider(points[m - 1]!.t, f(points[m - 1]!))
    if (m === 2) {
      const top = peak(value, points[0]!.t, points[1]!.t)
      consider(top.t, top.value)
    }
    for (let k = 0; k < m && m > 2; k++) {
      const here = f(points[k]!)
      const before = k > 0 ? f(points[k - 1]!) : -Infinity
      const after = k + 1 < m ? f(points[k + 1]!) : -Infinity
      consider(points[k]!.t, here)
      if (here > before && here >= after) {
        const top = peak(value, points[Math.max(0, k - 1)]!.t, points[Math.min(m - 1, k + 1)]!.t)
        consider(top.t, top.value)
      }
    }
    return sampleOf(best.t)
  }

  function sunlitAt(s: Sample): boolean {
    return isSunlit(s.eciKm, sunPositionAu(new Date(s.t)))
  }
  function darkAt(s: Sample): boolean {
    return sunAltitudeDeg(observer, sunPositionAu(new Date(s.t)), s.gmstRad) <= CIVIL_TWILIGHT_DEG
  }

  /** Where, between the pass's points, the satellite is sunlit (and, with `brightness`, no fainter than the limit) and the observer's sky dark enough. */
  function visibleSpans(points: Sample[]): TimeSpan[] {
    const lit = spansWhere(points, sunlitAt, sampleOf)
    const dark = spansWhere(points, darkAt, sampleOf)
    const seen = intersectSpans(lit, dark)
    const visible = brightness ? seen.flatMap((span) => brightSpans(span, brightness.standardMagnitude, brightness.magnitudeLimit)) : seen
    return visible.filter((span) => span.toMs > span.fromMs)
  }

  /**
   * The parts of a stretch (sunlit in a dark sky) in which the magnitude is at
   * or below the limit. The magnitude changes with range and phase angle on a
   * scale of minutes, but it can dip below the limit between two grid samples
   * (rising while the satellite approaches, cut by the shadow): it is sampled
   * every BRIGHTNESS_STEP_MS across the stretch and its changes bisected.
   */
  function brightSpans(span: TimeSpan, standardMag: number, limit: number): TimeSpan[] {
    const samples: Sample[] = []
    for (let t = span.fromMs; t < span.toMs; t += BRIGHTNESS_STEP_MS) samples.push(sampleOf(t))
    samples.push(sampleOf(span.toMs))
    // Decided on the magnitude as answers give it (roundMagnitude), so `brightest` at or below the limit means visible.
    return spansWhere(samples, (s) => roundMagnitude(magnitudeOf(s, standardMag)) <= limit, sampleOf)
  }

  /**
   * The brightest moment of the pass while it is sunlit in a dark sky: the
   * brightest of the pass's points (and the stretches' ends) inside those
   * stretches, refined between its neighbours by Brent's minimiser.
   */
  function brightestOf(points: Sample[], standardMag: number): (SkyPoint & { magnitude: number }) | null {
    const spans = intersectSpans(spansWhere(points, sunlitAt, sampleOf), spansWhere(points, darkAt, sampleOf))
    let best: { s: Sample; magnitude: number } | null = null
    for (const span of spans) {
      const inside = points.filter((p) => p.t > span.fromMs && p.t < span.toMs)
      const candidates = [sampleOf(span.fromMs), ...inside, sampleOf(span.toMs)].filter((c) => c.t >= span.fromMs && c.t <= span.toMs && sunlitAt(c))
      if (candidates.length === 0) continue
      const magnitudes = candidates.map((c) => magnitudeOf(c, standardMag))
      let k = 0
      for (let j = 1; j < candidates.length; j++) if (magnitudes[j]! < magnitudes[k]!) k = j
      let here = { s: candidates[k]!, magnitude: magnitudes[k]! }
      const lo = candidates[Math.max(0, k - 1)]!.t
      const hi = candidates[Math.min(candidates.length - 1, k + 1)]!.t
      if (hi - lo > 2 * ROOT_TOLERANCE_MS) {
        // The magnitude where the satellite is sunlit; +Infinity where it is not (never chosen).
        const top = peak((t) => {
          const s = sampleOf(t)
          return sunlitAt(s) ? -magnitudeOf(s, standardMag) : Number.NEGATIVE_INFINITY
        }, lo, hi)
        if (-top.value < here.magnitude) {
          const s = sampleOf(top.t)
          here = { s, magnitude: magnitudeOf(s, standardMag) }
        }
      }
      if (!best || here.magnitude < best.magnitude) best = here
    }
    return best && { ...skyPoint(best.s), magnitude: roundMagnitude(best.magnitude) }
  }

  /** The estimated apparent magnitude at a sample (whether or not it is sunlit). */
  function magnitudeOf(s: Sample, standardMag: number): number {
    const observerKm = ecfToEci(geodeticToEcf(toGeodeticRad(observer)), s.gmstRad)
    const sunAu = sunPositionAu(new Date(s.t))
    const sunKm = { x: sunAu.x * KM_PER_AU, y: sunAu.y * KM_PER_AU, z: sunAu.z * KM_PER_AU }
    return apparentMagnitude(standardMag, s.look.rangeKm, phaseAngleRad(s.eciKm, observerKm, sunKm))
  }
}

/** The index of the first sample later than `t` (samples in time order). */
function firstIndexAfter(samples: Sample[], t: number): number {
  let lo = 0
  let hi = samples.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (samples[mid]!.t > t) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** The spans of [first, last point] in which `holds` is true, its changes between points refined by bisection. */
function spansWhere(points: Sample[], holds: (s: Sample) => boolean, sampleOf: (t: number) => Sample): TimeSpan[] {
  const spans: TimeSpan[] = []
  let from: number | null = null
  let previous: { s: Sample; value: boolean } | null = null
  for (const s of points) {
    const value = holds(s)
    if (previous && value !== previous.value) {
      const edge = bisectChange((t) => holds(sampleOf(t)) === previous!.value, previous.s.t, s.t, EDGE_TOLERANCE_MS)
      if (value) from = edge.firstAfter
      else {
        spans.push({ fromMs: from!, toMs: edge.lastBefore })
        from = null
      }
    } else if (!previous && value) {
      from = s.t
    }
    previous = { s, value }
  }
  if (from !== null && previous) spans.push({ fromMs: from, toMs: previous.s.t })
  return spans
}

/** The common parts of two ordered lists of disjoint spans. */
export function intersectSpans(a: TimeSpan[], b: TimeSpan[]): TimeSpan[] {
  const out: TimeSpan[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    const fromMs = Math.max(a[i]!.fromMs, b[j]!.fromMs)
    const toMs = Math.min(a[i]!.toMs, b[j]!.toMs)
    if (fromMs <= toMs) out.push({ fromMs, toMs })
    if (a[i]!.toMs < b[j]!.toMs) i++
    else j++
  }
  return out
}
