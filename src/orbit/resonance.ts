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
 * resonant record, the integrator's own state every CHECKPOINT_MIN after the
 * epoch (made as first needed, by the integrator itself) and puts the latest
 * one at or before the requested time into the record before propagating:
 * results equal to the last bit (tested against untouched records), and at
 * most CHECKPOINT_MIN / 720 steps per call instead of one per 12 hours since
 * the epoch. Times before the epoch, and records not registered (the
 * benchmark's plain loop), propagate as satellite.js does on its own.
 */
import type { SatRec } from 'satellite.js'
// The integrator is not part of satellite.js's public exports (pinned to 7.1.0 in package.json).
import { dspace } from '../../node_modules/satellite.js/dist/propagation/dspace.js'
import { minutesSinceEpoch } from './reach.ts'

/** SGP4's resonance integration step, minutes. */
const STEP_MIN = 720
/** Spacing of the checkpoints, minutes: 8 days, 16 steps. */
export const CHECKPOINT_MIN = 16 * STEP_MIN
/** Checkpoints kept per record (512 days); later times continue from the last one. */
export const MAX_CHECKPOINTS = 64

interface ResonantRecord {
  method: string
  irez: number
  atime: number
  xli: number
  xni: number
}

/** Per registered record: xli and xni at checkpoint k (atime = k·CHECKPOINT_MIN) at [2(k−1)], [2(k−1) + 1]. */
const checkpoints = new WeakMap<SatRec, number[]>()

/** Lets `seekResonance` keep checkpoints for a record, if it is a resonant deep-space one. */
export function registerResonance(satrec: SatRec): void {
  const record = satrec as unknown as ResonantRecord
  if (record.method === 'd' && record.irez) checkpoints.set(satrec, [])
}

/**
 * Puts the registered record's latest checkpoint at or before `instantMs` into
 * it, making checkpoints up to there first if need be. Unregistered records and
 * instants within the first CHECKPOINT_MIN of the epoch are left as they are
 * (the integrator then starts from the epoch, or from a state it can continue).
 */
export function seekResonance(satrec: SatRec, instantMs: number): void {
  const states = checkpoints.get(satrec)
  if (states === undefined) return
  const record = satrec as unknown as ResonantRecord
  const k = Math.min(MAX_CHECKPOINTS, Math.floor(minutesSinceEpoch(satrec, instantMs) / CHECKPOINT_MIN))
  if (!(k >= 1)) return
  while (states.length < 2 * k) {
    // Integrate from the last checkpoint (or the epoch) to exactly the next one, as sgp4 would on its way past it.
    const done = states.length / 2
    const atime = (done + 1) * CHECKPOINT_MIN
    const from = done === 0 ? { atime: 0 } : { atime: done * CHECKPOINT_MIN, xli: states[2 * done - 2]!, xni: states[2 * done - 1]! }
    const options = { ...(satrec as unknown as Parameters<typeof dspace>[0]), ...from, t: atime, tc: atime }
    const state = dspace({ ...options, em: satrec.ecco, argpm: satrec.argpo, inclm: satrec.inclo, mm: satrec.mo, nodem: satrec.nodeo, nm: satrec.no })
    if (state.atime !== atime) return // never: the integrator stops at a step it was asked for exactly
    states.push(state.xli, state.xni)
  }
  record.atime = k * CHECKPOINT_MIN
  record.xli = states[2 * k - 2]!
  record.xni = states[2 * k - 1]!
}
