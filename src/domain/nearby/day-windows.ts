/**
 * Which satellites can be above an observer's threshold at any instant of two
 * UTC days, decided from data made once per catalogue and window, so
 * that /nearby at a one-off instant propagates with SGP4 only the satellites
 * that can be in its sky instead of the catalogue:
 *
 * - Near-earth records: reach.ts's mean-element bound (canReach), made cheap.
 *   For the window, each satellite's node at its middle and the largest tilt, arc and
 *   radius the window can give; for the catalogue, the polynomials of the node
 *   and of the mean argument of latitude u. At the instant, canReach keeps a
 *   satellite only when the observer o is within span = γ + tilt + arc of the
 *   arc's middle point (γ = arccos(ρ·cos e / r) − e), so only when o is within
 *   span of the orbit's plane: the window's first test, |n·o| ≤ sin(span),
 *   with the plane turned from the middle's by the node's motion since (a few
 *   multiply-adds: about two thirds of the catalogue fail it). Of the others,
 *   it keeps those whose u is within span of o's direction in the plane
 *   (canReach's own test, with a fast arctangent and its error added). With
 *   the window's largest tilt, arc and radius, it keeps every satellite canReach
 *   keeps at any instant of the window, and about a third more (the tests
 *   check both).
 * - Deep-space records (periods of 225 minutes or more; no mean-element
 *   bound): each one's SGP4 state at the window's middle as a Kepler orbit, and
 *   how far that orbit strays from SGP4 at the window's ends (±24 h: about
 *   15 km for most). At
 *   the instant, a satellite is kept unless its Kepler position is below the
 *   threshold by more than the angle SAFETY times that distance (plus a
 *   slack) subtends.
 *   Records that SGP4 or Kepler cannot follow for the window are always kept.
 */
import { constants, type SatRec } from 'satellite.js'
import type { Catalog } from '../catalog/catalog.ts'
import { positionAt, siderealTimeRad, type Vector3 } from '../orbit/position.ts'
import { type MeanArc, meanArc } from './reach.ts'

/** The length of a window, ms: two UTC days (from an even day since 1970). */
export const WINDOW_MS = 2 * 86_400_000
/**
 * Windows kept per catalogue (the least recently used dropped first): about
 * 0.45 MB each at 12k satellites (11 MB for 24), made in ~30 ms (~10 of them
 * for the deep-space checks); 24 cover any instant within three weeks either
 * side of a date.
 */
const MAX_WINDOWS = 24
/** Deep-space checks: how far Kepler strays, at these hours from the window's middle (its ends). */
const CHECK_HOURS = [-24, 24] as const
/**
 * The bound on a deep-space satellite's distance from its Kepler position:
 * SAFETY times the larger check, plus SLACK_KM. Over the catalogue, the path
 * strays up to 1.56 times the larger of the two checks (sampled every 3 to
 * 6 h; a few km at most hours, 15 km at the ends for most).
 */
const SAFETY = 4
const SLACK_KM = 10
/** A deep-space record straying further than this (km) over the window is always kept. */
const MAX_BOUND_KM = 5000
/** Extra angle on every near-earth test, radians: the window's single-precision floats and the precomputed epochs (~6 m at LEO). */
const EXTRA_RAD = 1e-6
/** SGP4's μ (km³/s²): the Kepler orbits need a μ; the checks measure whatever it misses. */
const MU = constants.mu
const MINUTE_MS = 60_000
const UNIX_EPOCH_JD = 2_440_587.5

/** The observer at an instant, in TEME (SGP4's frame at that instant). */
export interface WindowObserver {
  /** The geocentric unit vector. */
  x: number
  y: number
  z: number
  /** Geocentric radius, km. */
  radiusKm: number
  /** The lowest geocentric elevation a satellite above the threshold can have, radians (as reach.ts's ReachObserver). */
  minElevation: number
  /** The local vertical (geodetic), a unit vector. */
  ux: number
  uy: number
  uz: number
  /** The elevation threshold, degrees (geodetic). */
  minElevationDeg: number
}

/** Per catalogue, made once: what the near-earth test needs of each record besides the window. */
interface NearRecords {
  indices: Int32Array
  records: SatRec[]
  /** The record's epoch, minutes since 1970 (as satellite.js reckons it from jdsatepoch). */
  epochMin: Float64Array
  /** The mean argument of latitude's polynomial in t (minutes): u0 + u1·t + u2·t² + u3·t³ + u4·t⁴ + u5·t⁵ (no·templ: reach.ts's meanArc). */
  u0: Float64Array
  u1: Float64Array
  u2: Float64Array
  u3: Float64Array
  u4: Float64Array
  u5: Float64Array
  /** The cosine and sine of the inclination (a near-earth record's is fixed). */
  cosI: Float64Array
  sinI: Float64Array
  /** The node's polynomial: nodeo + nodedot·t + nodecf·t². */
  nodedot: Float64Array
  nodecf: Float64Array
  /** Room for the records passing a request's first stage (requests run one at a time). */
  pass: Int32Array
}

/** One window's data (see the module comment). Near-earth fields by position in NearRecords, in single precision (EXTRA_RAD covers it). */
interface Window {
  startMs: number
  /** The cosine and sine of the node at the window's middle. */
  cosNode: Float32Array
  sinNode: Float32Array
  /** The largest radius the window gives, km. */
  maxRadiusKm: Float32Array
  /** tilt + arc (the largest the window gives), radians; NaN: no bound all through it (always kept). */
  extra: Float32Array
  /** Deep space: catalogue indices, their Kepler orbits at the middle, the bounds; `deepAlways` kept whatever. */
  deep: Int32Array
  kepler: Float64Array
  boundKm: Float64Array
  deepAlways: Int32Array
}

/** Kepler orbit fields per deep-space satellite in `Window.kepler`. */
const K = { a: 0, e: 1, b: 2, n: 3, m0: 4, px: 5, py: 6, pz: 7, qx: 8, qy: 9, qz: 10 } as const
const K_FIELDS = 11

const NEAR = Symbol('windows: near-earth records')
const WINDOWS = Symbol('windows')

function nearRecords(catalog: Catalog): NearRecords {
  return catalog.derived(NEAR, () => {
    const indices: number[] = []
    const records: SatRec[] = []
    for (let i = 0; i < catalog.size; i++) {
      const satrec = catalog.satrecAt(i)
      if (satrec.method === 'n') {
        indices.push(i)
        records.push(satrec)
      }
    }
    const n = records.length
    const epochMin = new Float64Array(n)
    const u0 = new Float64Array(n)
    const u1 = new Float64Array(n)
    const u2 = new Float64Array(n)
    const u3 = new Float64Array(n)
    const u4 = new Float64Array(n)
    const u5 = new Float64Array(n)
    const cosI = new Float64Array(n)
    const sinI = new Float64Array(n)
    const nodedot = new Float64Array(n)
    const nodecf = new Float64Array(n)
    for (let k = 0; k < n; k++) {
      const r = records[k]!
      epochMin[k] = (r.jdsatepoch - UNIX_EPOCH_JD) * 1440
      u0[k] = r.mo + r.argpo
      u1[k] = r.mdot + r.argpdot
      u2[k] = r.no * r.t2cof
      if (r.isimp !== 1) {
        u3[k] = r.no * r.t3cof
        u4[k] = r.no * r.t4cof
        u5[k] = r.no * r.t5cof
      }
      cosI[k] = Math.cos(r.inclo)
      sinI[k] = Math.sin(r.inclo)
      nodedot[k] = r.nodedot
      nodecf[k] = r.nodecf
    }
    return { indices: Int32Array.from(indices), records, epochMin, u0, u1, u2, u3, u4, u5, cosI, sinI, nodedot, nodecf, pass: new Int32Array(n) }
  })
}

/** A catalogue's windows by their start (least recently used first), and the starts used since the last sweep. */
interface Windows {
  byStart: Map<number, Window>
  used: Set<number>
}

const windowsOf = (catalog: Catalog) => catalog.derived(WINDOWS, (): Windows => ({ byStart: new Map(), used: new Set() }))

/** The window holding `instantMs`, made if need be (a few kept per catalogue). */
function windowAt(catalog: Catalog, instantMs: number): Window {
  const startMs = Math.floor(instantMs / WINDOW_MS) * WINDOW_MS
  const { byStart: windows, used } = windowsOf(catalog)
  used.add(startMs)
  let window = windows.get(startMs)
  if (window !== undefined) {
    windows.delete(startMs) // re-inserted: most recently used last
  } else {
    window = makeWindow(catalog, startMs)
    while (windows.size >= MAX_WINDOWS) windows.delete(windows.keys().next().value!)
  }
  windows.set(startMs, window)
  return window
}

/** How many windows `catalog` holds now. */
export function heldDayWindows(catalog: Catalog): number {
  return windowsOf(catalog).byStart.size
}

/** Lets go of `catalog`'s windows that no query used since the last sweep (the caller decides when: see NearbyEngine.sweep). */
export function sweepDayWindows(catalog: Catalog): void {
  const { byStart, used } = windowsOf(catalog)
  for (const startMs of byStart.keys()) if (!used.has(startMs)) byStart.delete(startMs)
  used.clear()
}

function makeWindow(catalog: Catalog, startMs: number): Window {
  const near = nearRecords(catalog)
  const n = near.records.length
  const w: Window = {
    startMs,
    cosNode: new Float32Array(n),
    sinNode: new Float32Array(n),
    maxRadiusKm: new Float32Array(n),
    extra: new Float32Array(n).fill(Number.NaN),
    deep: new Int32Array(0),
    kepler: new Float64Array(0),
    boundKm: new Float64Array(0),
    deepAlways: new Int32Array(0),
  }
  const noonMs = startMs + WINDOW_MS / 2
  const halfMin = WINDOW_MS / 2 / MINUTE_MS
  const arcs: MeanArc[] = [0, 1].map(() => ({ node: 0, cosInclination: 0, sinInclination: 0, u: 0, arc: 0, tilt: 0, maxRadiusKm: 0 }))
  for (let k = 0; k < n; k++) {
    const r = near.records[k]!
    const noon = noonMs / MINUTE_MS - near.epochMin[k]!
    // The window's extremes: eccentricity and drag move steadily with the time from the epoch, so the largest
    // radius, tilt and arc are at one of its ends. Checked at its quarters too: a record whose
    // bound fails anywhere, or is larger inside the window than at its ends (drag terms far outside their
    // range), is kept whatever the observer.
    const [start, inside] = [arcs[0]!, arcs[1]!]
    if (!meanArc(r, noon - halfMin, start)) continue
    let radius = start.maxRadiusKm
    let spread = start.tilt + start.arc
    if (!meanArc(r, noon + halfMin, inside)) continue
    radius = Math.max(radius, inside.maxRadiusKm)
    spread = Math.max(spread, inside.tilt + inside.arc)
    let steady = true
    for (const quarter of [-0.5, 0, 0.5]) {
      if (!meanArc(r, noon + quarter * halfMin, inside) || inside.maxRadiusKm > radius || inside.tilt + inside.arc > spread) steady = false
      if (!steady) break
    }
    if (!steady) continue
    const node = r.nodeo + r.nodedot * noon + r.nodecf * noon * noon
    w.cosNode[k] = Math.cos(node)
    w.sinNode[k] = Math.sin(node)
    // Rounded to single precision upwards (the radius by a metre): the bound only grows.
    w.maxRadiusKm[k] = radius + 0.001
    w.extra[k] = spread + EXTRA_RAD
  }
  makeDeep(catalog, w, noonMs)
  return w
}

/** The deep-space part of a window: Kepler orbits from SGP4 at its middle (`noonMs`), checked at CHECK_HOURS. */
function makeDeep(catalog: Catalog, w: Window, noonMs: number): void {
  const deep: number[] = []
  const always: number[] = []
  const kepler: number[] = []
  const bounds: number[] = []
  const stateAt = (i: number, ms: number) => {
    const at = new Date(ms)
    const result = positionAt(catalog, i, at, siderealTimeRad(at), undefined, false)
    return result.ok ? result.state : null
  }
  const orbit = new Float64Array(K_FIELDS)
  const p = new Float64Array(3)
  for (let i = 0; i < catalog.size; i++) {
    if (catalog.satrecAt(i).method !== 'd') continue
    const noon = stateAt(i, noonMs)
    let worst = noon && keplerOrbit(noon.eciKm, noon.velocityKmS, orbit) ? 0 : Number.POSITIVE_INFINITY
    for (const hours of CHECK_HOURS) {
      if (!Number.isFinite(worst)) break
      const state = stateAt(i, noonMs + hours * 3_600_000)
      if (state === null) worst = Number.POSITIVE_INFINITY
      else {
        keplerPosition(orbit, 0, hours * 3600, p)
        worst = Math.max(worst, Math.hypot(p[0]! - state.eciKm.x, p[1]! - state.eciKm.y, p[2]! - state.eciKm.z))
      }
    }
    const bound = SAFETY * worst + SLACK_KM
    if (!(bound <= MAX_BOUND_KM)) {
      always.push(i)
      continue
    }
    deep.push(i)
    for (let k = 0; k < K_FIELDS; k++) kepler.push(orbit[k]!)
    bounds.push(bound)
  }
  w.deep = Int32Array.from(deep)
  w.kepler = Float64Array.from(kepler)
  w.boundKm = Float64Array.from(bounds)
  w.deepAlways = Int32Array.from(always)
}

/** The largest error of fastAtan2, radians (with room: the tests measure it). */
export const ATAN2_ERROR_RAD = 1e-7

/**
 * atan2 to within ATAN2_ERROR_RAD (Abramowitz and Stegun's 4.4.49, within
 * 2e-8 on [0, 1], and the octants' symmetries): cheaper than Math.atan2 in
 * the window's loop, where a bound needs no more. ±π may come out as ∓π.
 */
export function fastAtan2(y: number, x: number): number {
  const ax = Math.abs(x)
  const ay = Math.abs(y)
  const big = ax > ay ? ax : ay
  if (big === 0) return 0
  const a = (ax > ay ? ay : ax) / big
  const s = a * a
  let r =
    a *
    (1 +
      s *
        (-0.3333314528 +
          s * (0.1999355085 + s * (-0.142088994 + s * (0.1065626393 + s * (-0.07528964 + s * (0.0429096138 + s * (-0.0161657367 + s * 0.0028662257))))))))
  if (ay > ax) r = Math.PI / 2 - r
  if (x < 0) r = Math.PI - r
  return y < 0 ? -r : r
}

/** The Kepler orbit (K fields) of a TEME state (km, km/s); false for an orbit that is not an ellipse. */
export function keplerOrbit(r: Vector3, v: Vector3, out: Float64Array): boolean {
  const rn = Math.sqrt(r.x * r.x + r.y * r.y + r.z * r.z)
  const v2 = v.x * v.x + v.y * v.y + v.z * v.z
  const hx = r.y * v.z - r.z * v.y
  const hy = r.z * v.x - r.x * v.z
  const hz = r.x * v.y - r.y * v.x
  const hn = Math.sqrt(hx * hx + hy * hy + hz * hz)
  const ex = (v.y * hz - v.z * hy) / MU - r.x / rn
  const ey = (v.z * hx - v.x * hz) / MU - r.y / rn
  const ez = (v.x * hy - v.y * hx) / MU - r.z / rn
  const e = Math.sqrt(ex * ex + ey * ey + ez * ez)
  const a = 1 / (2 / rn - v2 / MU)
  if (!(a > 0 && e < 0.99 && hn > 0)) return false
  // P towards the perigee (the position itself for a circle), Q 90° along the orbit.
  const [px, py, pz] = e > 1e-9 ? [ex / e, ey / e, ez / e] : [r.x / rn, r.y / rn, r.z / rn]
  const qx = (hy * pz - hz * py) / hn
  const qy = (hz * px - hx * pz) / hn
  const qz = (hx * py - hy * px) / hn
  const nu = Math.atan2(r.x * qx + r.y * qy + r.z * qz, r.x * px + r.y * py + r.z * pz)
  const e0 = 2 * Math.atan(Math.sqrt((1 - e) / (1 + e)) * Math.tan(nu / 2))
  out[K.a] = a
  out[K.e] = e
  out[K.b] = a * Math.sqrt(1 - e * e)
  out[K.n] = Math.sqrt(MU / (a * a * a))
  out[K.m0] = e0 - e * Math.sin(e0)
  out[K.px] = px!
  out[K.py] = py!
  out[K.pz] = pz!
  out[K.qx] = qx
  out[K.qy] = qy
  out[K.qz] = qz
  return Number.isFinite(out[K.m0]! + out[K.n]! + qx + qy + qz)
}

/**
 * Kepler's equation E − e·sin E = m solved for E (any m, 0 ≤ e < 1): m reduced
 * to [−π, π], where the left side increases with E, then Newton's steps kept
 * inside the bracket that holds the root (a bisection when one would leave it).
 */
export function eccentricAnomaly(mean: number, e: number): number {
  const m = mean - 2 * Math.PI * Math.round(mean / (2 * Math.PI))
  let lo = -Math.PI
  let hi = Math.PI
  let E = e < 0.8 ? m + e * Math.sin(m) : m >= 0 ? Math.PI : -Math.PI
  for (let k = 0; k < 60; k++) {
    const f = E - e * Math.sin(E) - m
    if (f > 0) hi = E
    else lo = E
    let next = E - f / (1 - e * Math.cos(E))
    if (!(next > lo && next < hi)) next = (lo + hi) / 2
    if (Math.abs(next - E) < 1e-12) return next
    E = next
  }
  return E
}

/** The position (km) `dtS` seconds after the window's middle on the Kepler orbit at `orbits[offset..]`, into `out`. */
function keplerPosition(orbits: Float64Array, offset: number, dtS: number, out: Float64Array): void {
  const e = orbits[offset + K.e]!
  const E = eccentricAnomaly(orbits[offset + K.m0]! + orbits[offset + K.n]! * dtS, e)
  const x = orbits[offset + K.a]! * (Math.cos(E) - e)
  const y = orbits[offset + K.b]! * Math.sin(E)
  out[0] = x * orbits[offset + K.px]! + y * orbits[offset + K.qx]!
  out[1] = x * orbits[offset + K.py]! + y * orbits[offset + K.qy]!
  out[2] = x * orbits[offset + K.pz]! + y * orbits[offset + K.qz]!
}

/** cos and sin of a small angle (|x| < 0.2 rad) from their series: error below 1e-14. */
function smallCos(x: number): number {
  const x2 = x * x
  return 1 - (x2 / 2) * (1 - (x2 / 12) * (1 - (x2 / 30) * (1 - x2 / 56)))
}
function smallSin(x: number): number {
  const x2 = x * x
  return x * (1 - (x2 / 6) * (1 - (x2 / 20) * (1 - (x2 / 42) * (1 - x2 / 72))))
}

/**
 * arccos to within ACOS_ERROR_RAD on [0, 1] (Abramowitz and Stegun's 4.4.46:
 * √(1 − x) times a polynomial, within 2e-8).
 */
function fastAcos(x: number): number {
  return (
    Math.sqrt(1 - x) *
    (1.5707963050 + x * (-0.2145988016 + x * (0.0889789874 + x * (-0.0501743046 + x * (0.0308918810 + x * (-0.0170881256 + x * (0.0066700901 - x * 0.0012624911)))))))
  )
}
/** The largest error of fastAcos on [0, 1], radians (with room: the tests measure it). */
export const ACOS_ERROR_RAD = 1e-7

/** What the near-earth stages need of one request (plain numbers, read once per stage). */
interface NearScan {
  ox: number
  oy: number
  oz: number
  /** ρ·cos e: a radius r gives reach = this / r. */
  reachTop: number
  cosE: number
  sinE: number
  minElevation: number
  /** Minutes since 1970 of the instant, and from the window's middle to it. */
  tMin: number
  fromNoon: number
}

/**
 * Stage 1, over every near-earth record of the window: the plane test with
 * the middle's plane, allowing for the node's turn since (a turn moves the normal
 * at most that far). Writes the positions (in NearRecords) of the records
 * that pass, and of those without a bound, into `pass`; returns how many.
 * The test's sine of span + |turn| = (Γ − e) + y (Γ = arccos(reach), y = the
 * record's tilt and arc and the turn) is bounded by sin(Γ − e) + y (the sine
 * changes no faster than its angle), so that the loop needs one square root
 * and no trigonometry; a bound of 1 or more keeps the record (it is 1 or more
 * whenever the span reaches 90°). Stage 2 tests the plane again, exactly.
 * Kept apart from stage 2 so that this loop, over the whole catalogue, stays
 * small (JavaScriptCore compiles a small loop over plain numbers best).
 */
function planeStage(w: Window, near: NearRecords, scan: NearScan, pass: Int32Array): number {
  const { cosNode, sinNode, maxRadiusKm, extra } = w
  const { epochMin, cosI, sinI, nodedot, nodecf } = near
  const { ox, oy, oz, reachTop, cosE, sinE, tMin, fromNoon } = scan
  const n = extra.length
  let count = 0
  for (let k = 0; k < n; k++) {
    const x = extra[k]!
    if (!(x >= 0)) {
      pass[count++] = k // no bound: stage 2 keeps it
      continue
    }
    const reach = reachTop / maxRadiusKm[k]!
    if (reach >= 1) continue // never above the threshold anywhere on its orbit
    const t = tMin - epochMin[k]!
    const turn = fromNoon * (nodedot[k]! + nodecf[k]! * (2 * t - fromNoon))
    // sin(Γ − e) + x + |turn| ≥ sin(span + |turn|).
    const bound = Math.sqrt(1 - reach * reach) * cosE - reach * sinE + x + (turn < 0 ? -turn : turn)
    if (bound < 1) {
      // Below 90°: the observer must be within it of the middle's plane (normal sin i sin Ω, −sin i cos Ω, cos i).
      const off = sinI[k]! * (sinNode[k]! * ox - cosNode[k]! * oy) + cosI[k]! * oz
      if (off > bound || off < -bound) continue
    }
    pass[count++] = k
  }
  return count
}

/**
 * Stage 2, over the records that passed stage 1: the plane turned to the
 * instant, the plane test again without the allowance (with stage 1's bound
 * on the sine of the span, no sine computed), then the argument of
 * latitude within span of the observer's direction in the plane. Appends the
 * catalogue indices of those kept to `kept` from `count`; returns the new count.
 */
function alongStage(w: Window, near: NearRecords, scan: NearScan, pass: Int32Array, passed: number, kept: Int32Array, count: number): number {
  const { cosNode, sinNode, maxRadiusKm, extra } = w
  const { indices, epochMin, u0, u1, u2, u3, u4, u5, cosI, sinI, nodedot, nodecf } = near
  const { ox, oy, oz, reachTop, cosE, sinE, minElevation, tMin, fromNoon } = scan
  for (let j = 0; j < passed; j++) {
    const k = pass[j]!
    const x = extra[k]!
    if (!(x >= 0)) {
      kept[count++] = indices[k]!
      continue
    }
    const reach = reachTop / maxRadiusKm[k]!
    const t = tMin - epochMin[k]!
    const turn = fromNoon * (nodedot[k]! + nodecf[k]! * (2 * t - fromNoon))
    const cosT = turn < 0.2 && turn > -0.2 ? smallCos(turn) : Math.cos(turn)
    const sinT = turn < 0.2 && turn > -0.2 ? smallSin(turn) : Math.sin(turn)
    const cO = cosNode[k]! * cosT - sinNode[k]! * sinT
    const sO = sinNode[k]! * cosT + cosNode[k]! * sinT
    const cI = cosI[k]!
    const sI = sinI[k]!
    const span = fastAcos(reach) + x - minElevation + ACOS_ERROR_RAD + ATAN2_ERROR_RAD
    // sin(span) ≤ sin(Γ − e) + x + the errors (as stage 1, without the turn): 1 or more when span reaches 90°.
    const sinSpan = Math.sqrt(1 - reach * reach) * cosE - reach * sinE + x + ACOS_ERROR_RAD + ATAN2_ERROR_RAD
    if (sinSpan < 1) {
      const off = sI * (sO * ox - cO * oy) + cI * oz
      if (off > sinSpan || off < -sinSpan) continue
    }
    if (span < Math.PI) {
      const t2 = t * t
      const u = u0[k]! + u1[k]! * t + t2 * (u2[k]! + t * u3[k]! + t2 * (u4[k]! + t * u5[k]!))
      // P towards the node (cos Ω, sin Ω, 0), Q 90° along (−cos i sin Ω, cos i cos Ω, sin i).
      const alpha = fastAtan2(cI * (cO * oy - sO * ox) + sI * oz, cO * ox + sO * oy)
      const around = u - alpha
      const d = Math.abs(around - 2 * Math.PI * Math.round(around / (2 * Math.PI)))
      if (d > span) continue
    }
    kept[count++] = indices[k]!
  }
  return count
}

/** The deep-space stage: the Kepler position, and the angle its bound subtends from the observer. */
function deepStage(w: Window, o: WindowObserver, dtS: number, kept: Int32Array, count: number): number {
  const { deep, kepler, boundKm } = w
  const sx = o.x * o.radiusKm
  const sy = o.y * o.radiusKm
  const sz = o.z * o.radiusKm
  const { ux, uy, uz } = o
  const sinMin = Math.sin((o.minElevationDeg * Math.PI) / 180)
  for (let k = 0; k < deep.length; k++) {
    const f = k * K_FIELDS
    const e = kepler[f + K.e]!
    // Kepler's equation by Newton's steps from m + e·sin m, the last step's sine and cosine kept for the position.
    const m0 = kepler[f + K.m0]! + kepler[f + K.n]! * dtS
    const m = m0 - 2 * Math.PI * Math.round(m0 / (2 * Math.PI))
    let E = e < 0.8 ? m + e * Math.sin(m) : m >= 0 ? Math.PI : -Math.PI
    let sinE = Math.sin(E)
    let cosE = Math.cos(E)
    for (let i = 0; i < 50; i++) {
      const residual = E - e * sinE - m
      if (residual < 1e-10 && residual > -1e-10) break
      E = i < 40 ? E - residual / (1 - e * cosE) : eccentricAnomaly(m, e) // Newton, or the safe solver should it wander
      sinE = Math.sin(E)
      cosE = Math.cos(E)
    }
    const px = kepler[f + K.a]! * (cosE - e)
    const py = kepler[f + K.b]! * sinE
    const dx = px * kepler[f + K.px]! + py * kepler[f + K.qx]! - sx
    const dy = px * kepler[f + K.py]! + py * kepler[f + K.qy]! - sy
    const dz = px * kepler[f + K.pz]! + py * kepler[f + K.qz]! - sz
    const range = Math.sqrt(dx * dx + dy * dy + dz * dz)
    const sinM = boundKm[k]! / range
    if (sinM < 1) {
      // Below the threshold by more than the bound's angle: out of reach (the angles compared by their sines, below 90°).
      const sinEl = Math.max(-1, Math.min(1, (ux * dx + uy * dy + uz * dz) / range))
      const cosEl = Math.sqrt(1 - sinEl * sinEl)
      const cosM = Math.sqrt(1 - sinM * sinM)
      if (cosEl * cosM - sinEl * sinM > 0 && sinEl * cosM + cosEl * sinM < sinMin) continue
    }
    kept[count++] = deep[k]!
  }
  return count
}

/**
 * The indices (in no particular order) of the satellites that can be at or
 * above the observer's threshold at `instantMs`: every satellite reach.ts's
 * bound keeps among the near-earth records, every deep-space record whose
 * Kepler position is not below the threshold by more than its bound, and
 * every record the window cannot bound. `out` is reused when large enough.
 */
export function windowCandidates(catalog: Catalog, instantMs: number, o: WindowObserver, out?: Int32Array): Int32Array {
  const w = windowAt(catalog, instantMs)
  const near = nearRecords(catalog)
  const kept = out !== undefined && out.length >= catalog.size ? out : new Int32Array(catalog.size)
  const tMin = instantMs / MINUTE_MS
  const scan: NearScan = {
    ox: o.x,
    oy: o.y,
    oz: o.z,
    reachTop: o.radiusKm * Math.cos(o.minElevation),
    cosE: Math.cos(o.minElevation),
    sinE: Math.sin(o.minElevation),
    minElevation: o.minElevation,
    tMin,
    fromNoon: tMin - (w.startMs + WINDOW_MS / 2) / MINUTE_MS,
  }
  const pass = near.pass
  const passed = planeStage(w, near, scan, pass)
  let count = alongStage(w, near, scan, pass, passed, kept, 0)
  for (let k = 0; k < w.deepAlways.length; k++) kept[count++] = w.deepAlways[k]!
  count = deepStage(w, o, (instantMs - (w.startMs + WINDOW_MS / 2)) / 1000, kept, count)
  return kept.subarray(0, count)
}
