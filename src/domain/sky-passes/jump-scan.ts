/**
 * The loop both coarse scans share (mean-scan.ts from mean elements,
 * state-scan.ts from SGP4's states): across a searched time, jump ahead by as
 * long as the satellite certainly stays out of reach of the observer's
 * threshold, and step through the stretches where it may be in reach,
 * recording them.
 */
import type { TimeSpan } from '../orbit/passes.ts'

/** Step through a stretch where the satellite may be above the threshold, ms. */
export const INSIDE_STEP_MS = 30_000
/** A jump shorter than this counts as "may be above" (a near miss is not crept up on). */
const MIN_JUMP_MS = 2_000

/**
 * Appends to `out`, in order, the stretches of [fromMs, toMs] in which the
 * satellite may be in reach. `jumpAt(t)`: how long (ms) from `t` it certainly
 * stays out of reach; at or below zero, it may be in reach and stays so for at
 * least `-jump`.
 */
export function scanByJumps(fromMs: number, toMs: number, jumpAt: (t: number) => number, out: TimeSpan[]): void {
  let inside: TimeSpan | null = null
  for (let t = fromMs; t < toMs; ) {
    const jump = jumpAt(t)
    if (jump >= MIN_JUMP_MS) {
      if (inside) {
        inside.toMs = t
        out.push(inside)
        inside = null
      }
      t += Math.floor(jump)
      continue
    }
    // Inside: it stays inside for at least -jump; beyond that, a step at a time.
    const next = Math.min(toMs, t + Math.max(INSIDE_STEP_MS, Math.floor(-jump)))
    if (inside) inside.toMs = next
    else inside = { fromMs: t, toMs: next }
    t = next
  }
  if (inside) out.push(inside)
}
