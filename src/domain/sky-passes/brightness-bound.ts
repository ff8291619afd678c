/**
 * Whether a satellite can ever look as bright as a magnitude limit to an
 * observer while it can be seen at all: above the threshold, sunlit, in a dark
 * sky. One that cannot has no visible pass, and a visible-only search skips it
 * without propagating it (most of a catalogue of faint constellation
 * satellites and debris).
 *
 * The magnitude is m = std + 5·log10(d / 1000 km) − 2.5·log10 F(φ) (magnitude.ts,
 * F the Lambertian phase function, decreasing in the phase angle φ). Take a
 * satellite at geocentric radius r, seen at geocentric elevation E and at an
 * azimuth Δ from the anti-solar point's, from an observer at geocentric radius
 * ρ with the Sun s below the horizon:
 * - the range is d = √(r² − ρ²cos²E) − ρ·sin E, and the point below the
 *   satellite is ψ = acos(ρ·cos E / r) − E from the observer, towards Δ;
 * - φ is (within the Sun's parallax) the angle between the satellite's
 *   direction and the anti-solar point, at elevation s: cos φ = sin E sin s + cos E cos s cos Δ;
 * - sunlit (outside satellite.js's umbra cone) means the Sun's elevation at the
 *   point below is above −σ, σ = acos(R/r) + the Sun's angular radius:
 *   sin s·cos ψ + cos s·sin ψ·cos Δ < sin σ, i.e. s below some s_max(ψ, Δ);
 * - a dark sky means s ≥ 6° less the tilt of the geodetic vertical: s_lo.
 * For given E, Δ, r the least φ over s ∈ [s_lo, s_max] is where s is nearest to
 * the angle that minimises φ (φ is unimodal in s), in closed form. That least φ
 * moves by at most L_E per radian of E and L_Δ per radian of Δ, and d is
 * monotonic, so a cell of (E, Δ) has a lower bound on 5·log10(d/1000) − 2.5·log10 F(φ)
 * from its centre and corner: a branch and bound over the cells decides whether
 * the offset can be as low as a target, to cells of 0.25° × 1°. Radii come in
 * cells 0.5 % apart in height, decided once per target and remembered.
 */
import type { SatRec } from 'satellite.js'
import { type MeanArc, meanArc } from '../nearby/reach.ts'
import { minutesSinceEpoch } from '../orbit/resonance.ts'
import { lowestHeightBoundKm } from '../orbit/validity.ts'
import type { Site } from './site.ts'

const DEG = Math.PI / 180
/** The Earth's radius in satellite.js's umbra test (shadowFraction), km. */
const SHADOW_EARTH_KM = 6378.135
/** The Sun's largest angular radius (at perihelion), radians, rounded up. */
const SUN_RADIUS_RAD = 0.272 * DEG
/** The Sun's parallax between the observer, the satellite and the Earth's centre (≤ 0.03°), and rounding, radians. */
const PARALLAX_RAD = 0.05 * DEG
/** The Sun at or below this altitude at the observer is a dark sky (findPasses' rule). */
const DARK_DEPRESSION_RAD = 6 * DEG
/** How fast the least phase angle can change with E and with Δ (see the module comment), per radian. */
const LIPSCHITZ_E = 4
const LIPSCHITZ_AZIMUTH = 3
/** The smallest cells the branch and bound splits to. */
const MIN_E_RAD = 0.25 * DEG
const MIN_AZIMUTH_RAD = 1 * DEG
/** Radius cells: heights above the polar radius from 60 km up, each 0.5 % above the last; within a cell the least phase angle moves by under this. */
const POLAR_KM = 6356.752
const EQUATORIAL_KM = 6378.137
const FIRST_HEIGHT_KM = 60
const HEIGHT_RATIO = 1.005
const LN_RATIO = Math.log(HEIGHT_RATIO)
const RADIUS_CELL_RAD = 0.2 * DEG
/** Radius cells remembered per target (heights up to 60 km · 1.005^3000, far beyond any orbit). */
const CELLS = 3000
/** The lowest height any position can have (validity.ts FLOOR_KM). */
const FLOOR_KM = 80
/** Mean arcs are sampled this often over the searched time for the highest radius. */
const ARC_SAMPLE_MS = 6 * 3_600_000

/** Lambert's phase function times π: sin φ + (π − φ) cos φ, floored as apparentMagnitude floors it. */
function phaseRatio(phi: number): number {
  const p = Math.min(Math.PI, Math.max(0, phi))
  return Math.max(1e-6, Math.sin(p) + (Math.PI - p) * Math.cos(p))
}

export class BrightnessBound {
  /** Per target, per radius cell: whether the offset can reach the target (1), cannot (2), or not decided yet (0). */
  private readonly decided = new Map<number, Uint8Array>()
  private readonly sLo: number
  private readonly rho: number
  private readonly eMin: number

  constructor(site: Site) {
    this.rho = site.radiusKm
    this.sLo = DARK_DEPRESSION_RAD - site.tiltRad - PARALLAX_RAD
    this.eMin = Math.max(-Math.PI / 2, site.minElevationRad)
  }

  /**
   * Whether a satellite whose geocentric radius stays within [rLoKm, rHiKm]
   * can have 5·log10(d/1000) − 2.5·log10 F(φ) at or below `target` at a moment
   * it is above the threshold, sunlit, in a dark sky (its magnitude is its
   * standard magnitude plus that offset). False means never.
   */
  mayReach(rLoKm: number, rHiKm: number, target: number): boolean {
    const first = cellOf(rLoKm)
    const last = cellOf(rHiKm)
    if (first < 0) return true
    for (let k = first; k <= last; k++) if (this.cellMayReach(k, target)) return true
    return false
  }

  /** `mayReach` for a near-earth satellite over [fromMs, toMs]: from the lowest its orbit can be then to the highest its mean arcs allow. */
  mayReachOf(satrec: SatRec, ceilingKm: number, fromMs: number, toMs: number, target: number): boolean {
    const span = Math.max(Math.abs(minutesSinceEpoch(satrec, fromMs)), Math.abs(minutesSinceEpoch(satrec, toMs)))
    const lowest = Math.max(FLOOR_KM, lowestHeightBoundKm(satrec, span, true))
    let highest = EQUATORIAL_KM + ceilingKm
    const arc: MeanArc = { node: 0, cosInclination: 0, sinInclination: 0, u: 0, arc: 0, tilt: 0, maxRadiusKm: 0 }
    let arcs = 0
    for (let t = fromMs; ; t = Math.min(t + ARC_SAMPLE_MS, toMs)) {
      if (!meanArc(satrec, minutesSinceEpoch(satrec, t), arc)) {
        arcs = -1
        break
      }
      arcs = Math.max(arcs, arc.maxRadiusKm)
      if (t >= toMs) break
    }
    // The mean arcs' radius bound (reach.ts) grows with drag: sampled, plus 1 %.
    if (arcs > 0) highest = Math.min(highest, arcs * 1.01)
    return this.mayReach(POLAR_KM + lowest, highest, target)
  }

  private cellMayReach(k: number, target: number): boolean {
    let cells = this.decided.get(target)
    if (cells === undefined) this.decided.set(target, (cells = new Uint8Array(CELLS)))
    if (k >= CELLS) return true // beyond ~10 million km: no bound
    if (cells[k] === 0) {
      cells[k] = this.search(POLAR_KM + FIRST_HEIGHT_KM * HEIGHT_RATIO ** k, POLAR_KM + FIRST_HEIGHT_KM * HEIGHT_RATIO ** (k + 1), target) ? 1 : 2
    }
    return cells[k] === 1
  }

  /** Branch and bound over (E, Δ) for radii [r1, r2]. */
  private search(r1: number, r2: number, target: number): boolean {
    const rho = this.rho
    if (r1 <= rho * 1.0001) return true // an observer as high as the satellite: no bound
    // Even at full phase (F = π) the offset is 5·log10(d/1000) − 2.5·log10 π: the range must be at most D, so
    // (d falling with E, and lowest at r1) the elevation at least where d(E, r1) = D: sin E = (r1² − ρ² − D²) / (2ρD).
    const farthest = 1000 * 10 ** ((target + 2.5 * Math.log10(Math.PI)) / 5)
    const sinLowest = (r1 * r1 - rho * rho - farthest * farthest) / (2 * rho * farthest)
    if (sinLowest > 1) return false
    const lowest = Math.max(this.eMin, Math.asin(Math.max(-1, sinLowest)))
    const stack: number[] = [lowest, Math.PI / 2, 0, Math.PI]
    while (stack.length > 0) {
      const a2 = stack.pop()!
      const a1 = stack.pop()!
      const e2 = stack.pop()!
      const e1 = stack.pop()!
      const ec = (e1 + e2) / 2
      const ac = (a1 + a2) / 2
      const phiCentre = Math.min(this.leastPhase(ec, ac, r1), this.leastPhase(ec, ac, r2))
      const slack = LIPSCHITZ_E * ((e2 - e1) / 2) + LIPSCHITZ_AZIMUTH * ((a2 - a1) / 2) + RADIUS_CELL_RAD + PARALLAX_RAD
      const cos2 = Math.cos(e2)
      const nearest = Math.sqrt(r1 * r1 - rho * rho * cos2 * cos2) - rho * Math.sin(e2)
      const bound = 5 * Math.log10(nearest / 1000) - 2.5 * Math.log10(phaseRatio(phiCentre - slack))
      if (bound > target) continue
      const eSplit = e2 - e1 > MIN_E_RAD
      const aSplit = a2 - a1 > MIN_AZIMUTH_RAD
      if (!eSplit && !aSplit) return true
      if (eSplit && (!aSplit || LIPSCHITZ_E * (e2 - e1) >= LIPSCHITZ_AZIMUTH * (a2 - a1))) stack.push(e1, ec, a1, a2, ec, e2, a1, a2)
      else stack.push(e1, e2, a1, ac, e1, e2, ac, a2)
    }
    return false
  }

  /**
   * The least phase angle for a satellite at radius r, elevation E and azimuth Δ
   * from the anti-solar point over the Sun's depressions s ∈ [s_lo, max(s_lo, s_max)]
   * (where it is sunlit; relaxed to s_lo where no depression is: that only lowers the bound).
   */
  private leastPhase(e: number, azimuth: number, r: number): number {
    const psi = Math.acos(Math.min(1, (this.rho * Math.cos(e)) / r)) - e
    const sigma = Math.acos(SHADOW_EARTH_KM / r) + SUN_RADIUS_RAD
    // sin s·cos ψ + cos s·K < sin σ with K = sin ψ·cos Δ: A·sin(s + β) < sin σ.
    const k = Math.sin(psi) * Math.cos(azimuth)
    const amplitude = Math.sqrt(Math.cos(psi) ** 2 + k * k)
    const beta = Math.atan2(k, Math.cos(psi))
    const ratio = Math.sin(sigma) / amplitude
    // Where ψ + σ passes 90°, the Sun straight below the observer leaves the point below the satellite sunlit too:
    // the sunlit depressions then need not be one interval from s_lo, and every depression is allowed.
    const sMax = ratio >= 1 || psi + sigma >= Math.PI / 2 ? Math.PI / 2 : Math.asin(ratio) - beta
    const hi = Math.max(this.sLo, Math.min(Math.PI / 2, sMax))
    // φ(s) is least where tan s = tan E / cos Δ (the direction's nearest point on the anti-solar meridian).
    const cosAz = Math.cos(azimuth)
    const best = cosAz > 0 ? Math.atan(Math.tan(e) / cosAz) : Math.PI / 2
    const s = Math.min(hi, Math.max(this.sLo, best))
    const cosPhi = Math.sin(e) * Math.sin(s) + Math.cos(e) * Math.cos(s) * cosAz
    return Math.acos(Math.max(-1, Math.min(1, cosPhi)))
  }
}

/** The radius cell holding `rKm` (-1 below the first). */
function cellOf(rKm: number): number {
  const height = rKm - POLAR_KM
  if (height < FIRST_HEIGHT_KM) return -1
  return Math.floor(Math.log(height / FIRST_HEIGHT_KM) / LN_RATIO)
}
