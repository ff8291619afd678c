/**
 * Which satellites can be above an observer's elevation threshold at an
 * instant, decided from SGP4's secular mean elements alone, without
 * propagating them. /nearby at an instant without position tables (a one-off
 * `time`) propagates only the satellites this keeps: through day-windows.ts,
 * which applies the same bound from data made once per day (`reachable`, the
 * bound applied satellite by satellite, is what it is tested against).
 *
 * SGP4 (near-earth) puts a satellite at radius `mrt` in direction
 * cos(su)·P + sin(su)·Q, where P and Q span the plane of node `xnode` and
 * inclination `xinc` and su is the true argument of latitude. From the
 * secular terms at the instant (a few multiplications: node, mean argument of
 * latitude, semi-major axis) we know, per satellite:
 * - a great circle (the secular node and the inclination) that the satellite
 *   is within `tilt` of: xnode and xinc differ from them only by SGP4's
 *   short-period terms, each at most 1.5·J2/(2p²) radians;
 * - the mean argument of latitude u, which su is within `arc` of: su − u is
 *   the equation of the centre (at most 2e + 2e² for e ≤ 0.5) plus the
 *   short-period and long-period terms, bounded the same way;
 * - a largest radius: a(1 + e) plus the radial short-period term.
 * A satellite at radius r is at or above geocentric elevation e only within
 * the Earth-central angle γ = arccos(ρ·cos e / r) − e of the observer (ρ: the
 * observer's geocentric radius), so it is kept when some point of its arc lies
 * within γ + tilt of the observer. Deep-space records (periods of 225 minutes
 * or more: lunar-solar terms and resonances move their planes) and orbits more
 * eccentric than MAX_ECCENTRICITY are always kept.
 */
import { constants, type SatRec } from 'satellite.js'
import type { Catalog } from '../catalog/catalog.ts'
import { minutesSinceEpoch } from '../orbit/resonance.ts'

/** Above this eccentricity (at the instant) a satellite is always kept. */
export const MAX_ECCENTRICITY = 0.5
/** Added to every angle, radians (~1 km at LEO): room for rounding, never needed by the bounds. */
const SLACK_RAD = 2e-4
const J2 = constants.j2
const XKE = constants.xke
const EARTH_RADIUS_KM = constants.earthRadius

/** Where a satellite can be at one instant (see the module's comment); angles in radians. */
export interface MeanArc {
  /** The secular node of the great circle, and the cosine and sine of its inclination. */
  node: number
  cosInclination: number
  sinInclination: number
  /** The mean argument of latitude, unreduced. */
  u: number
  /** How far along the circle from u the satellite can be. */
  arc: number
  /** How far off the circle it can be. */
  tilt: number
  /** The largest geocentric radius it can have, km. */
  maxRadiusKm: number
}

/** The largest equation of the centre, |ν − M|, an orbit of eccentricity `e` (at most MAX_ECCENTRICITY) can have. */
export function centreBound(e: number): number {
  return 2 * e + 2 * e * e
}

/**
 * The mean arc of a near-earth record `tsince` minutes from its epoch, written
 * into `out`; false when the record is not near-earth or the instant leaves
 * nothing to bound (eccentricity out of range, a decayed semi-major axis).
 */
export function meanArc(satrec: SatRec, tsince: number, out: MeanArc): boolean {
  if (satrec.method !== 'n') return false
  const t = tsince
  const t2 = t * t
  let tempa = 1 - satrec.cc1 * t
  let templ = satrec.t2cof * t2
  // |tempe| bounds how far the mean eccentricity moves from the epoch's.
  let tempe = Math.abs(satrec.bstar * satrec.cc4 * t)
  if (satrec.isimp !== 1) {
    const t3 = t2 * t
    const t4 = t3 * t
    tempa -= satrec.d2 * t2 + satrec.d3 * t3 + satrec.d4 * t4
    templ += satrec.t3cof * t3 + t4 * (satrec.t4cof + t * satrec.t5cof)
    tempe += Math.abs(satrec.bstar * satrec.cc5) * (1 + Math.abs(satrec.sinmao))
  }
  const ratio = XKE / satrec.no
  const am = Math.cbrt(ratio * ratio) * tempa * tempa
  const em = Math.max(1e-6, satrec.ecco + tempe)
  // The long-period terms: aycof shifts the eccentricity vector, xlcof the mean longitude.
  const lp = 1 / (am * (1 - em * em))
  const e = em + Math.abs(lp * satrec.aycof)
  if (!(e <= MAX_ECCENTRICITY && am > 0)) return false
  const pl = am * (1 - e * e)
  const temp1 = (0.5 * J2) / pl
  const temp2 = temp1 / pl
  const cosi = Math.cos(satrec.inclo)
  const sini = Math.sin(satrec.inclo)
  out.node = satrec.nodeo + satrec.nodedot * t + satrec.nodecf * t2
  out.cosInclination = cosi
  out.sinInclination = sini
  // mm + argpm: the drag terms of the mean anomaly and the perigee (delomg, delm) cancel.
  out.u = satrec.mo + satrec.mdot * t + satrec.argpo + satrec.argpdot * t + satrec.no * templ
  out.arc = centreBound(e) + 0.25 * temp2 * Math.abs(satrec.x7thm1) + Math.abs(lp * satrec.xlcof) * em + SLACK_RAD
  out.tilt = 1.5 * temp2 * Math.abs(cosi) * (1 + Math.abs(sini)) + SLACK_RAD
  out.maxRadiusKm = (am * (1 + e) * (1 + 1.5 * temp2 * Math.abs(satrec.con41)) + 0.5 * temp1 * Math.abs(satrec.x1mth2)) * EARTH_RADIUS_KM
  return Number.isFinite(out.u + out.arc + out.tilt + out.maxRadiusKm + out.node)
}

/** The observer for `reachable`: a unit vector in TEME and the geocentric reach of its threshold. */
export interface ReachObserver {
  x: number
  y: number
  z: number
  /** The observer's geocentric radius, km. */
  radiusKm: number
  /** The lowest geocentric elevation a satellite above the (geodetic) threshold can have, radians. */
  minElevation: number
}

/**
 * Whether a satellite on `arc` can be at or above the observer's threshold:
 * whether the arc's middle point is within γ + tilt + arc of the observer (a
 * point of the arc within γ + tilt is within that of the middle).
 */
export function canReach(arc: MeanArc, observer: ReachObserver): boolean {
  const reach = (observer.radiusKm * Math.cos(observer.minElevation)) / arc.maxRadiusKm
  if (reach >= 1) return false // never above the threshold at any point of its orbit
  const span = Math.acos(reach) - observer.minElevation + arc.tilt + arc.arc
  if (!(span < Math.PI)) return true
  const cosO = Math.cos(arc.node)
  const sinO = Math.sin(arc.node)
  const cosI = arc.cosInclination
  const sinI = arc.sinInclination
  const cosU = Math.cos(arc.u)
  const sinU = Math.sin(arc.u)
  // The middle point: cos u · P + sin u · Q, P towards the node, Q 90° along the orbit.
  const mx = cosU * cosO - sinU * cosI * sinO
  const my = cosU * sinO + sinU * cosI * cosO
  const mz = sinU * sinI
  return !(mx * observer.x + my * observer.y + mz * observer.z < Math.cos(span))
}

/** Per catalogue: the satellites `reachable` decides for, and those it always keeps. */
interface ReachIndex {
  records: SatRec[]
  indices: Int32Array
  always: Int32Array
}

const REACH_INDEX = Symbol('reach index')

function reachIndexOf(catalog: Catalog): ReachIndex {
  return catalog.derived(REACH_INDEX, makeReachIndex)
}

function makeReachIndex(catalog: Catalog): ReachIndex {
  const records: SatRec[] = []
  const indices: number[] = []
  const always: number[] = []
  for (let i = 0; i < catalog.size; i++) {
    const satrec = catalog.satrecAt(i)
    if (satrec.method === 'n') {
      records.push(satrec)
      indices.push(i)
    } else always.push(i)
  }
  return { records, indices: Int32Array.from(indices), always: Int32Array.from(always) }
}

/**
 * The indices (ascending) of the satellites that can be at or above the
 * observer's threshold at `instantMs`: every satellite the bounds cannot rule out.
 */
export function reachable(catalog: Catalog, instantMs: number, observer: ReachObserver): Int32Array {
  const { records, indices, always } = reachIndexOf(catalog)
  const kept = new Int32Array(catalog.size)
  let count = 0
  let next = 0 // merges `always` in, keeping the order
  const arc: MeanArc = { node: 0, cosInclination: 0, sinInclination: 0, u: 0, arc: 0, tilt: 0, maxRadiusKm: 0 }
  for (let k = 0; k < records.length; k++) {
    const i = indices[k]!
    while (next < always.length && always[next]! < i) kept[count++] = always[next++]!
    const satrec = records[k]!
    if (!meanArc(satrec, minutesSinceEpoch(satrec, instantMs), arc) || canReach(arc, observer)) kept[count++] = i
  }
  while (next < always.length) kept[count++] = always[next++]!
  return kept.subarray(0, count)
}
