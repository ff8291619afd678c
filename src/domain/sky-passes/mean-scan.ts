/**
 * The coarse scan of a near-earth satellite, from SGP4's secular mean
 * elements alone (no propagation): the stretches of a searched time in which
 * the satellite may be at or above the observer's threshold.
 *
 * reach.ts bounds where SGP4 can put a near-earth satellite at an instant: within
 * `arc` along and `tilt` across a great circle from the mean argument of latitude
 * u, at a radius at most `maxRadiusKm`. A point at radius r is at or above the
 * threshold only within the Earth-central angle γ(r) of the observer
 * (site.ts `reachRad`), so the satellite can be above it only while the mean
 * point M(u) is within Γ = γ(maxRadius) + tilt + arc of the observer. Γ changes
 * only with drag over a search of hours: its largest value over the searched
 * time (sampled every few hours, plus slack) is used throughout.
 *
 * The scan jumps ahead by how fast the satellite can climb: the angle ψ between
 * M and the observer changes no faster than M moves (|u̇| + |Ω̇|: the mean
 * motion and the node's drift) plus the observer (the Earth's rotation), so
 * where ψ exceeds Γ by m nothing can happen for m / rate. Where ψ ≤ Γ it steps
 * jump-scan.ts's INSIDE_STEP_MS at a time and records the stretch. Per orbit of a low
 * satellite, about a dozen cheap evaluations instead of SGP4 at 150 points.
 */
import type { SatRec } from 'satellite.js'
import type { TimeSpan } from '../orbit/passes.ts'
import { minutesSinceEpoch } from '../orbit/resonance.ts'
import { type MeanArc, meanArc } from '../nearby/reach.ts'
import { scanByJumps } from './jump-scan.ts'
import { ANGLE_SLACK_RAD, reachRad, type Site, siteDirection } from './site.ts'

/** Γ is evaluated this often over the searched time (and at its ends). */
const REACH_SAMPLE_MS = 6 * 3_600_000
const MS_PER_MIN = 60_000

/** Γ at one instant, radians; -Infinity when the satellite cannot reach the threshold then; null when the mean arc is not defined. */
function reachAt(satrec: SatRec, site: Site, ms: number, arc: MeanArc, capRad: number): number | null {
  if (!meanArc(satrec, minutesSinceEpoch(satrec, ms), arc)) return null
  const gamma = Math.min(reachRad(site, arc.maxRadiusKm), capRad)
  return gamma < 0 ? Number.NEGATIVE_INFINITY : gamma + arc.tilt + arc.arc
}

/**
 * The stretches of [fromMs, toMs] in which the satellite may be at or above
 * the threshold, appended to `out` in order; false when the mean elements do
 * not bound it somewhere in that time (deep space, too eccentric, decayed
 * elements): the caller then searches it all.
 */
export function meanScan(satrec: SatRec, site: Site, fromMs: number, toMs: number, out: TimeSpan[], capRad = Math.PI): boolean {
  if (satrec.method !== 'n') return false
  const arc: MeanArc = { node: 0, cosInclination: 0, sinInclination: 0, u: 0, arc: 0, tilt: 0, maxRadiusKm: 0 }
  let reach = Number.NEGATIVE_INFINITY
  for (let t = fromMs; ; t = Math.min(t + REACH_SAMPLE_MS, toMs)) {
    const here = reachAt(satrec, site, t, arc, capRad)
    if (here === null) return false
    reach = Math.max(reach, here)
    if (t >= toMs) break
  }
  if (reach === Number.NEGATIVE_INFINITY) return true // never high enough to reach the threshold
  reach += ANGLE_SLACK_RAD
  // The angular rates (radians per minute), bounded over the searched time: u̇ and Ω̇ from the secular terms' derivatives.
  const span = Math.max(Math.abs(minutesSinceEpoch(satrec, fromMs)), Math.abs(minutesSinceEpoch(satrec, toMs)))
  const T = span
  const drag =
    satrec.isimp === 1
      ? 2 * Math.abs(satrec.t2cof) * T
      : 2 * Math.abs(satrec.t2cof) * T + 3 * Math.abs(satrec.t3cof) * T * T + 4 * Math.abs(satrec.t4cof) * T ** 3 + 5 * Math.abs(satrec.t5cof) * T ** 4
  const uRate = Math.abs(satrec.mdot + satrec.argpdot) + satrec.no * drag
  const nodeRate = Math.abs(satrec.nodedot) + 2 * Math.abs(satrec.nodecf) * T
  const observerRate = site.gmstRatePerMs * MS_PER_MIN * site.cosLatitude
  // 1 % on top for rounding; per ms.
  const rate = ((uRate + nodeRate + observerRate) * 1.01) / MS_PER_MIN
  if (reach >= Math.PI) {
    out.push({ fromMs, toMs })
    return true
  }
  const o = { x: 0, y: 0, z: 0 }
  // The mean point's direction against the observer's: how long ψ stays above Γ.
  const jumpAt = (t: number): number => {
    const tsince = minutesSinceEpoch(satrec, t)
    const u = meanU(satrec, tsince)
    const node = satrec.nodeo + satrec.nodedot * tsince + satrec.nodecf * tsince * tsince
    const cosO = Math.cos(node)
    const sinO = Math.sin(node)
    const cosU = Math.cos(u)
    const sinU = Math.sin(u)
    const cosI = Math.cos(satrec.inclo)
    const mx = cosU * cosO - sinU * cosI * sinO
    const my = cosU * sinO + sinU * cosI * cosO
    const mz = sinU * Math.sin(satrec.inclo)
    siteDirection(site, t, o)
    const psi = Math.acos(Math.max(-1, Math.min(1, mx * o.x + my * o.y + mz * o.z)))
    return (psi - reach) / rate
  }
  scanByJumps(fromMs, toMs, jumpAt, out)
  return true
}

/** SGP4's mean argument of latitude `tsince` minutes from the epoch (as reach.ts's meanArc), radians, unreduced. */
function meanU(satrec: SatRec, tsince: number): number {
  const t2 = tsince * tsince
  let templ = satrec.t2cof * t2
  if (satrec.isimp !== 1) templ += satrec.t3cof * t2 * tsince + t2 * t2 * (satrec.t4cof + tsince * satrec.t5cof)
  return satrec.mo + satrec.mdot * tsince + satrec.argpo + satrec.argpdot * tsince + satrec.no * templ
}
