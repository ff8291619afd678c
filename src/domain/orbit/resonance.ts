/**
 * Checkpoints for satellite.js's deep-space resonance integrator.
 *
 * For geosynchronous and half-day resonant orbits (`irez` 1 and 2), SGP4
 * integrates the resonance terms in 720-minute steps from the epoch to the
 * requested time. satellite.js's `sgp4` reads the integrator's state (`atime`,
 * `xli`, `xni`) from the record but never stores it back, so every call starts
 * again from the epoch: with elements six months old, the ~570 geosynchronous
 * records of the catalogue cost 16 ms per propagation of the catalogue, more
 * than the other 11,000 together.
 *
 * The integrator continues from the record's state whenever the requested time
 * lies at or beyond it (on the same side of the epoch), with the same
 * arithmetic it would have done from the epoch. So the service keeps, per
 * resonant record, the integrator's own state at checkpoints (made as first
 * needed, by the integrator itself) and puts the latest one at or before the
 * requested time into the record before propagating: results equal to the last
 * bit (tested against untouched records).
 *
 * Checkpoints lie every CHECKPOINT_MIN (2 days, 4 steps) for FINE_CHECKPOINTS of
 * them on either side of the epoch (512 days), then every COARSE_EVERY of those
 * (368 days) out to wherever requests have gone, and one more where the last
 * request beyond the fine ones was. A call at a random instant then integrates
 * 1.5 steps on average (/nearby at one-off instants propagates ~200 resonant
 * records each; every 8 days, 7.5 steps made each call 0.5–1 µs dearer); the
 * fine checkpoints of a record cost 16 bytes per 2 days, made only as far out
 * as requests go (~0.8 MB for the catalogue's ~570 records at six months).
 * Without the coarse ones, a time decades from the epoch (the API takes 1957
 * to 2100) integrated from the last fine checkpoint on every call: 13 s for
 * ten days of passes of a geostationary satellite in 2099, 2 s for each
 * `nearby` then. Now a call takes at most one coarse interval of
 * steps, and calls near the last one a few. Records not registered (the
 * benchmark's plain loop) propagate as satellite.js does on its own.
 */
import type { SatRec } from 'satellite.js'
// The integrator is not part of satellite.js's public exports (pinned to 7.1.0 in package.json).
import { dspace } from '../../../node_modules/satellite.js/dist/propagation/dspace.js'

const MINUTES_PER_DAY = 1440
const UNIX_EPOCH_JD = 2_440_587.5

/** Minutes from a record's epoch to `instantMs`, as satellite.js's propagate reckons them. */
export function minutesSinceEpoch(satrec: SatRec, instantMs: number): number {
  return (instantMs / 86_400_000 + UNIX_EPOCH_JD - satrec.jdsatepoch) * MINUTES_PER_DAY
}

/** SGP4's resonance integration step, minutes. */
const STEP_MIN = 720
/** Spacing of the fine checkpoints, minutes: 2 days, 4 steps. */
export const CHECKPOINT_MIN = 4 * STEP_MIN
/** Fine checkpoints on each side of the epoch (512 days). */
export const FINE_CHECKPOINTS = 256
/** Beyond the fine ones, a checkpoint every this many of their spacing (368 days). */
export const COARSE_EVERY = 184

interface ResonantRecord {
  method: string
  irez: number
  atime: number
  xli: number
  xni: number
}

/** The integrator's state at a checkpoint. */
interface State {
  xli: number
  xni: number
}

/**
 * Per registered record and side of the epoch (before, after): the kept
 * checkpoints from the epoch outwards, none missing, as xli and xni of the
 * n-th at [2n], [2n + 1] (n from 0). The fine ones come first; checkpoint
 * |k| = m is the n-th for n = `rung(m)`.
 */
interface Checkpoints {
  sides: [number[], number[]]
  /** Where the last call between two coarse checkpoints was, if anywhere. */
  latest?: { k: number; state: State }
}

/** The place of kept checkpoint |k| = m on its side's ladder, and the reverse. */
const rung = (m: number) => (m <= FINE_CHECKPOINTS ? m - 1 : FINE_CHECKPOINTS + m / COARSE_EVERY - 2)
const rungK = (n: number) => (n < FINE_CHECKPOINTS ? n + 1 : (n - FINE_CHECKPOINTS + 2) * COARSE_EVERY)

/** The last kept checkpoint at or before |k| = m, as |k|. */
const lastKept = (m: number) => (m <= FINE_CHECKPOINTS ? m : Math.max(FINE_CHECKPOINTS, Math.floor(m / COARSE_EVERY) * COARSE_EVERY))

/** Where a registered record keeps its checkpoints: on the record itself, so they go with it. */
const CHECKPOINTS = Symbol('resonance checkpoints')

type Registered = SatRec & { [CHECKPOINTS]?: Checkpoints }

const checkpointsOf = (satrec: SatRec): Checkpoints | undefined => (satrec as Registered)[CHECKPOINTS]

/** Lets `seekResonance` keep checkpoints for a record, if it is a resonant deep-space one. */
export function registerResonance(satrec: SatRec): void {
  const record = satrec as unknown as ResonantRecord
  if (record.method === 'd' && record.irez) (satrec as Registered)[CHECKPOINTS] = { sides: [[], []] }
}

/**
 * Where `instantMs` falls for a record: checkpoint k (the latest at or before
 * it on its side of the epoch; 0 within CHECKPOINT_MIN of it), that side's
 * ladder, and the rung of the last kept checkpoint at or before k.
 */
function placeOf(saved: Checkpoints, satrec: SatRec, instantMs: number) {
  const k = Math.trunc(minutesSinceEpoch(satrec, instantMs) / CHECKPOINT_MIN)
  return { k, ladder: saved.sides[k < 0 ? 0 : 1], target: rung(lastKept(Math.abs(k))) }
}

/** The record's fields dspace reads besides the time and the secular elements (its `options`). */
const DSPACE_FIELDS = [
  'irez', 'd2201', 'd2211', 'd3210', 'd3222', 'd4410', 'd4422', 'd5220', 'd5232', 'd5421', 'd5433',
  'dedt', 'del1', 'del2', 'del3', 'didt', 'dmdt', 'dnodt', 'domdt', 'argpo', 'argpdot', 'gsto', 'xfact', 'xlamo', 'no', 'xli', 'xni',
] as const

/** The integrator run from checkpoint `from` (0: the epoch) to exactly checkpoint `to`, as sgp4 would on its way past it. */
function integrate(satrec: SatRec, from: number, state: State | undefined, to: number): State {
  const atime = to * CHECKPOINT_MIN
  // What dspace reads (satellite.js 7.1.0), the elements at the epoch as its secular ones: not the whole record
  // spread into a new object on every call (a record is integrated this way once per checkpoint).
  const r = satrec as unknown as Record<(typeof DSPACE_FIELDS)[number], number>
  const options: Record<string, number> = { t: atime, tc: atime, em: satrec.ecco, argpm: satrec.argpo, inclm: satrec.inclo, mm: satrec.mo, nodem: satrec.nodeo, nm: satrec.no }
  for (const field of DSPACE_FIELDS) options[field] = r[field]
  options.atime = from === 0 ? 0 : from * CHECKPOINT_MIN
  if (from !== 0) {
    options.xli = state!.xli
    options.xni = state!.xni
  }
  const result = dspace(options as unknown as Parameters<typeof dspace>[0])
  // Never: the integrator stops at a step it was asked for exactly.
  if (result.atime !== atime) throw new Error(`resonance integrator stopped at ${result.atime}, not ${atime}`)
  return { xli: result.xli, xni: result.xni }
}

/**
 * Puts the registered record's latest checkpoint at or before `instantMs` (on
 * its side of the epoch) into it, making checkpoints up to there first if need
 * be. Unregistered records and instants within CHECKPOINT_MIN of the epoch are
 * left as they are (the integrator then starts from the epoch, or from a state
 * it can continue).
 */
export function seekResonance(satrec: SatRec, instantMs: number): void {
  const saved = checkpointsOf(satrec)
  if (saved === undefined) return
  // placeOf's values, without its object: this runs for every propagation of a resonant record.
  const k = Math.trunc(minutesSinceEpoch(satrec, instantMs) / CHECKPOINT_MIN)
  if (!Number.isFinite(k) || k === 0) return
  const ladder = saved.sides[k < 0 ? 0 : 1]
  const target = rung(lastKept(Math.abs(k)))
  const sign = Math.sign(k)
  // Out to the target, from the farthest checkpoint made so far (or the epoch).
  for (let n = ladder.length / 2; n <= target; n++) {
    const from = n === 0 ? undefined : { xli: ladder[2 * n - 2]!, xni: ladder[2 * n - 1]! }
    const state = integrate(satrec, n === 0 ? 0 : sign * rungK(n - 1), from, sign * rungK(n))
    ladder.push(state.xli, state.xni)
  }
  let xli = ladder[2 * target]!
  let xni = ladder[2 * target + 1]!
  if (rungK(target) !== Math.abs(k)) {
    // Between two coarse checkpoints: from the last one, or from the last such call's state if that is nearer.
    const { latest } = saved
    const from = latest && Math.sign(latest.k) === sign && Math.abs(latest.k) > rungK(target) && Math.abs(latest.k) <= Math.abs(k) ? latest : { k: sign * rungK(target), state: { xli, xni } }
    const state = from.k === k ? from.state : integrate(satrec, from.k, from.state, k)
    saved.latest = { k, state }
    xli = state.xli
    xni = state.xni
  }
  const record = satrec as unknown as ResonantRecord
  record.atime = k * CHECKPOINT_MIN
  record.xli = xli
  record.xni = xni
}

/** Whether seeking `satrec` to `instantMs` would first make coarse checkpoints (integrate a year or more). */
function needsCoarse(satrec: SatRec, instantMs: number): boolean {
  const saved = checkpointsOf(satrec)
  if (saved === undefined) return false
  // Within the fine checkpoints (|k| ≤ FINE_CHECKPOINTS): none to make, decided without placeOf's objects
  // (every /nearby with a `time` asks this of each of the ~570 resonant records).
  if (Math.abs(minutesSinceEpoch(satrec, instantMs)) < (FINE_CHECKPOINTS + 1) * CHECKPOINT_MIN) return false
  const { k, ladder, target } = placeOf(saved, satrec, instantMs)
  return Math.abs(k) > FINE_CHECKPOINTS && ladder.length / 2 <= target
}

/**
 * Makes the checkpoints out to `instantMs` of every record of `satrecs` that
 * lacks them, yielding after each record so that the caller can let other
 * work run (the first time decades from the epochs, this integrates ~2 s for
 * the catalogue's resonant records). Undefined when every record already has
 * them (then a call costs at most one coarse interval per record).
 */
export function prepareResonance(satrecs: readonly SatRec[], instantMs: number): Generator<void, void> | undefined {
  let first = 0
  while (first < satrecs.length && !needsCoarse(satrecs[first]!, instantMs)) first++
  if (first === satrecs.length) return undefined
  const pending = satrecs.slice(first).filter((satrec) => needsCoarse(satrec, instantMs))
  return (function* () {
    for (const satrec of pending) {
      seekResonance(satrec, instantMs)
      yield
    }
  })()
}

/** Whether `registerResonance` kept `satrec` (a resonant deep-space record). */
export function isResonant(satrec: SatRec): boolean {
  return checkpointsOf(satrec) !== undefined
}
