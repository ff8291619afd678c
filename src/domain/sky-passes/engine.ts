/**
 * Passes of many satellites over one observer, fast: the same passes as the
 * plain loop (reference.ts: `findPasses` over the whole searched time for every
 * satellite), found by searching only where a pass can be.
 *
 * First every satellite is classified (steps 1 and 2), and the caller told how
 * many will be searched (`admit`: it may refuse a search too costly by throwing);
 * then, per satellite:
 * 1. Validity (validity.ts): no position anywhere in the searched time (the
 *    elements' age, decay) → listed as such; a decay inside the searched time,
 *    or SGP4 possibly below the floor in the part of it before the elements'
 *    epoch (run back that far: mayFailBeforeEpoch) → the whole time is
 *    searched as the plain loop does; the age limit inside it → steps 2 to 5
 *    on the part inside the limit, and the search of step 5 also around each
 *    instant where the limit cuts the searched time, which finds there the
 *    same edge of `noPosition` as the plain loop (its span then runs to the
 *    end of the searched time, or from its start, since every instant beyond
 *    the limit is refused by age).
 * 2. Visible-only: a near-earth satellite that cannot look as bright as the
 *    limit from anywhere it can be (brightness-bound.ts) is skipped.
 * 3. A coarse scan that jumps ahead by how fast the satellite can climb towards
 *    the observer finds the stretches where it may be above the threshold: from
 *    the mean elements for near-earth satellites (mean-scan.ts, no
 *    propagation), from SGP4 states otherwise (state-scan.ts).
 *    Visible-only: the scan looks only within the range at which the satellite
 *    can be bright enough (its magnitude at full phase).
 * 4. Visible-only: stretches that cannot hold a visible moment (no dark sky,
 *    below the threshold, in the umbra, too faint: screen.ts) are dropped; the
 *    satellites with a stretch left are scanned again without the range cap,
 *    and the stretches holding those (whole passes) are searched.
 * 5. `findPasses` itself runs on each remaining stretch, widened by two grid
 *    steps and aligned to the grid the whole-time search would use
 *    (startMs + k·step), so it sees the same samples around every pass and
 *    finds the same passes, to the bit. A stretch whose search meets an
 *    instant without a position (SGP4 giving an implausible height) sends the
 *    satellite to the whole-time search, so such edges are found as there
 *    (any other instant without a position than the age limit's, for a
 *    satellite cut by it).
 */
import type { Catalog } from '../catalog/catalog.ts'
import { standardMagnitudes } from '../orbit/magnitude.ts'
import { findPasses, scanStepMs, type TimeSpan } from '../orbit/passes.ts'
import { BrightnessBound } from './brightness-bound.ts'
import { meetsAny, possiblyDark } from './darkness.ts'
import { meanScan } from './mean-scan.ts'
import { byStart, type SkyPass, type SkyPassesQuery, type SkyPassesResult } from './reference.ts'
import { mayBeVisible } from './screen.ts'
import { rangeReachRad, siteOf } from './site.ts'
import { FLOOR_KM, lowestHeightBoundKm } from '../orbit/validity.ts'
import { minutesSinceEpoch } from '../orbit/resonance.ts'
import { positionAt, siderealTimeRad } from '../orbit/position.ts'
import type { NoPositionSpan } from '../orbit/passes.ts'
import { constants, type SatRec } from 'satellite.js'
import { stateScan } from './state-scan.ts'

/** Grid steps added on each side of a stretch before it is searched. */
const WIDEN_STEPS = 2
/** What phase 1 decides for each satellite. */
const NO_POSITION = 0
const WHOLE_TIME = 1
const TOO_FAINT = 2
const SCAN = 3
/** The age limit inside the searched time (no decay): scanned and searched on the part inside it, and searched around the cut. */
const CLIPPED = 4
/** Satellites classified between yields. */
const PLAN_SLICE = 200

/** How many satellites a search will look at, told before the searches start (the caller may refuse by throwing). */
export interface SkyPassesPlan {
  /** Satellites with a position somewhere in the searched time. */
  withPosition: number
  /** Of those, the ones that will be scanned and searched (visible-only: those that can be bright enough). */
  candidates: number
}

/** What the engine did, for tests and benchmarks. */
export interface SkyPassesStats {
  satellites: number
  withoutPosition: number
  /** Searched over the whole time (a decay inside it, or a position missing near a pass other than at the age limit). */
  wholeTime: number
  /** Scanned and searched on the part of the time inside the age limit (which cuts it). */
  clipped: number
  /** Visible-only: skipped as never bright enough. */
  tooFaint: number
  /** Stretches found by the scans, screened out (visible-only), and searched. */
  stretches: number
  screenedOut: number
  searched: number
}

export interface SkyPassesAnswer extends SkyPassesResult {
  /** Why the satellites in `withoutPosition` have none: the elements' age or a decay before the searched time. */
  leftOut: { elementAge: number; decayed: number }
  stats: SkyPassesStats
}

/** The catalogue-wide search: yields between satellites (a few ms at most between yields); returns what findSkyPassesPlain returns, and more. */
export function* findSkyPasses(catalog: Catalog, query: SkyPassesQuery & { admit?: (plan: SkyPassesPlan) => void }): Generator<void, SkyPassesAnswer> {
  const startMs = Math.round(query.startMs)
  const endMs = Math.max(startMs, Math.round(query.endMs))
  const site = siteOf(query.observer, query.minElevationDeg, startMs)
  const standards = standardMagnitudes(catalog)
  const dark = query.visibleOnly ? possiblyDark(query.observer, startMs, endMs) : [{ fromMs: startMs, toMs: endMs }]
  const bound = query.visibleOnly ? new BrightnessBound(site) : null
  const validity = catalog.validity
  const stats: SkyPassesStats = { satellites: query.indices.length, withoutPosition: 0, wholeTime: 0, clipped: 0, tooFaint: 0, stretches: 0, screenedOut: 0, searched: 0 }
  const answer: SkyPassesAnswer = { passes: [], withoutPosition: [], noPosition: [], leftOut: { elementAge: 0, decayed: 0 }, stats }
  const passQuery = (from: number, to: number, index: number) => ({
    observer: query.observer,
    startMs: from,
    endMs: to,
    minElevationDeg: query.minElevationDeg,
    brightness: { standardMagnitude: standards[index]!, magnitudeLimit: query.magnitudeLimit },
  })
  const keep = (index: number, passes: readonly SkyPass['pass'][]) => {
    for (const pass of passes) if (!query.visibleOnly || pass.visible.length > 0) answer.passes.push({ index, pass })
  }
  const wholeTime = (index: number) => {
    stats.wholeTime++
    const search = findPasses(catalog, index, passQuery(startMs, endMs, index))
    if (!search.anyPosition) {
      answer.withoutPosition.push(index)
      stats.withoutPosition++
    } else if (search.noPosition.length > 0) answer.noPosition.push({ index, spans: search.noPosition })
    keep(index, search.passes)
  }

  // Phase 1, per satellite: validity over the searched time, then (visible-only) the brightness bound.
  const n = query.indices.length
  const plan = new Uint8Array(n)
  const caps = new Float64Array(n).fill(Math.PI)
  let candidates = 0
  for (let k = 0; k < n; k++) {
    const index = query.indices[k]!
    const satrec = catalog.satrecAt(index)
    const age = validity.ageWindowOf(index)
    const decayMs = age.toMs < startMs || age.fromMs > endMs ? null : validity.decayedWithin(index, satrec, endMs)
    const cut = age.fromMs > startMs || age.toMs < endMs
    if (age.toMs < startMs || age.fromMs > endMs) {
      plan[k] = NO_POSITION
      // Decay first, as every refusal says it (validity.ts refusalAt, /nearby's leftOut): decayed by the start, within the age limit.
      if (validity.decayedWithin(index, satrec, startMs) !== null) answer.leftOut.decayed++
      else answer.leftOut.elementAge++
    } else if (decayMs !== null && decayMs <= startMs) {
      plan[k] = NO_POSITION
      answer.leftOut.decayed++
    } else if (decayMs !== null || mayFailBeforeEpoch(satrec, startMs)) {
      plan[k] = WHOLE_TIME
      candidates++
    } else if (bound) {
      // Never bright enough; and the range beyond which it is too faint even at full phase.
      // (Visible needs the magnitude rounded to 0.01 at or below the limit: below limit + 0.005.)
      const target = query.magnitudeLimit + 0.01 - standards[index]!
      const capRad = rangeReachRad(site, lowestRadiusKm(satrec, startMs, endMs), brightEnoughRangeKm(target))
      const faint = capRad < 0 || (satrec.method === 'n' && !bound.mayReachOf(satrec, validity.heightCeilingAt(index), startMs, endMs, target))
      // One cut by the age limit is searched around the cut all the same (the plain loop lists its span without positions there).
      plan[k] = cut ? CLIPPED : faint ? TOO_FAINT : SCAN
      caps[k] = faint ? -1 : capRad
      // Never bright enough: not scanned (if cut, only searched around the cut), nor counted as a candidate.
      if (faint) stats.tooFaint++
      else candidates++
    } else {
      plan[k] = cut ? CLIPPED : SCAN
      candidates++
    }
    if (k % PLAN_SLICE === PLAN_SLICE - 1) yield
  }
  query.admit?.({ withPosition: n - answer.leftOut.elementAge - answer.leftOut.decayed, candidates })

  // Phase 2: the searches.
  const stretches: TimeSpan[] = []
  for (let k = 0; k < n; k++) {
    const index = query.indices[k]!
    const satrec = catalog.satrecAt(index)
    if (plan[k] === NO_POSITION) {
      answer.withoutPosition.push(index)
      stats.withoutPosition++
      continue
    }
    if (plan[k] === TOO_FAINT) continue
    if (plan[k] === WHOLE_TIME) {
      wholeTime(index)
      yield
      continue
    }
    const capRad = caps[k]!
    // The part of the time to scan: inside the age limit, for a satellite it cuts.
    const clipped = plan[k] === CLIPPED
    const age = validity.ageWindowOf(index)
    const fromMs = clipped ? Math.max(startMs, age.fromMs) : startMs
    const toMs = clipped ? Math.min(endMs, age.toMs) : endMs
    if (clipped) stats.clipped++
    // 3. Where it may be above the threshold (and, visible-only, within that range); nowhere when never bright enough.
    stretches.length = 0
    if (capRad >= 0 && !meanScan(satrec, site, fromMs, toMs, stretches, capRad)) stateScan(catalog, index, site, fromMs, toMs, stretches, capRad)
    stats.stretches += stretches.length
    // 4. Where it may be visible.
    const kept = query.visibleOnly
      ? stretches.filter((s) => {
          const may =
            meetsAny(dark, s.fromMs, s.toMs) &&
            mayBeVisible(
              { catalog, index, site, minElevationDeg: query.minElevationDeg, standardMagnitude: standards[index]!, magnitudeLimit: query.magnitudeLimit, dark },
              s.fromMs,
              s.toMs,
            )
          if (!may) stats.screenedOut++
          return may
        })
      : stretches
    // A visible moment lies in a kept stretch, and its pass in a stretch of the uncapped scan that meets it: those are searched.
    let whole = kept
    if (capRad < Math.PI && kept.length > 0) {
      const uncapped: TimeSpan[] = []
      if (!meanScan(satrec, site, fromMs, toMs, uncapped)) stateScan(catalog, index, site, fromMs, toMs, uncapped)
      whole = uncapped.filter((u) => kept.some((v) => v.fromMs <= u.toMs && v.toMs >= u.fromMs))
    }
    // Where the age limit cuts the searched time: searched too, for the edge of the span without positions.
    if (clipped) {
      whole = [...whole]
      if (fromMs > startMs) whole.unshift({ fromMs, toMs: fromMs })
      if (toMs < endMs) whole.push({ fromMs: toMs, toMs })
    }
    // 5. The search itself, on the grid of the whole-time search.
    const stepMs = scanStepMs(satrec)
    const found: SkyPass['pass'][] = []
    const spans: NoPositionSpan[] = []
    let gap = false
    for (const window of gridWindows(whole, startMs, endMs, stepMs)) {
      stats.searched++
      const search = findPasses(catalog, index, passQuery(window.fromMs, window.toMs, index))
      for (const span of search.noPosition) {
        const atStartCut = clipped && span.fromMs === window.fromMs && window.fromMs < fromMs
        const atEndCut = clipped && span.toMs === window.toMs && window.toMs > toMs
        // As the whole-time search lists it: from the searched time's start (with the reason there), or to its end.
        const reason = atStartCut && !atEndCut ? refusalReason(catalog, index, startMs) : null
        if (reason !== null) spans.push({ fromMs: startMs, toMs: span.toMs, reason })
        else if (atEndCut && !atStartCut) spans.push({ ...span, toMs: endMs })
        else gap = true
      }
      if (gap || !search.anyPosition) {
        gap = true
        break
      }
      found.push(...search.passes)
    }
    if (gap) wholeTime(index)
    else {
      if (spans.length > 0) answer.noPosition.push({ index, spans })
      keep(index, found)
    }
    yield
  }
  answer.passes.sort(byStart)
  answer.withoutPosition.sort((a, b) => a - b)
  return answer
}

/**
 * Whether SGP4 may find a near-earth satellite below the floor somewhere
 * between `startMs` and its elements' epoch, run back that far (decaying
 * elements' drag terms grow with the time from the epoch either way): the
 * scans would not see such a stretch without positions, so the whole time is
 * searched. After the epoch the decay (validity.ts) says where positions end.
 */
function mayFailBeforeEpoch(satrec: SatRec, startMs: number): boolean {
  if (satrec.method !== 'n') return false
  const tsince = minutesSinceEpoch(satrec, startMs)
  return tsince < 0 && lowestHeightBoundKm(satrec, tsince, true) < FLOOR_KM
}

/** Why satellite `index` has no position at `instantMs` (as the whole-time search samples it), or null when it has one. */
function refusalReason(catalog: Catalog, index: number, instantMs: number): string | null {
  const instant = new Date(instantMs)
  const position = positionAt(catalog, index, instant, siderealTimeRad(instant), catalog.satrecAt(index))
  return position.ok ? null : position.reason
}

/**
 * Stretches widened by WIDEN_STEPS grid steps on each side, their ends moved
 * out to the grid startMs + k·stepMs (or the searched time's ends), merged
 * where they meet.
 */
export function gridWindows(stretches: readonly TimeSpan[], startMs: number, endMs: number, stepMs: number): TimeSpan[] {
  const windows: TimeSpan[] = []
  for (const s of stretches) {
    const fromMs = Math.max(startMs, startMs + (Math.floor((s.fromMs - startMs) / stepMs) - WIDEN_STEPS) * stepMs)
    const toMs = Math.min(endMs, startMs + (Math.ceil((s.toMs - startMs) / stepMs) + WIDEN_STEPS) * stepMs)
    const last = windows.at(-1)
    if (last && fromMs <= last.toMs) last.toMs = Math.max(last.toMs, toMs)
    else windows.push({ fromMs, toMs })
  }
  return windows
}

/** The farthest a satellite can be and still look as bright as standard magnitude + `target` (at full phase, F = π), km. */
export function brightEnoughRangeKm(target: number): number {
  return 1000 * 10 ** ((target + 2.5 * Math.log10(Math.PI)) / 5)
}

const POLAR_KM = 6356.752

/**
 * The lowest geocentric radius the satellite can have over [fromMs, toMs], km:
 * near-earth, from validity.ts's bound on SGP4's lowest point; deep space, 90 %
 * of the mean perigee radius (the Moon and the Sun move a perigee by far less in days).
 */
export function lowestRadiusKm(satrec: SatRec, fromMs: number, toMs: number): number {
  if (satrec.method === 'n') {
    const span = Math.max(Math.abs(minutesSinceEpoch(satrec, fromMs)), Math.abs(minutesSinceEpoch(satrec, toMs)))
    return POLAR_KM + Math.max(FLOOR_KM, lowestHeightBoundKm(satrec, span, true))
  }
  const a = Math.cbrt((constants.xke / satrec.no) ** 2) * constants.earthRadius
  return Math.max(POLAR_KM + FLOOR_KM, 0.9 * a * (1 - satrec.ecco))
}
