/**
 * Bounds on a satellite's motion over the next hours from one state: the
 * two-body (osculating) orbit through its position and velocity, with margins
 * for what SGP4's perturbations change over a few hours (J2, drag, the Moon and
 * the Sun move a perigee by kilometres, not by tens of percent).
 */
import { constants } from 'satellite.js'
import type { Vector3 } from '../orbit/vector.ts'

const MU = constants.mu
/** The lowest geocentric radius any position can have: the polar radius plus the 80 km floor (validity.ts), km. */
const LOWEST_RADIUS_KM = 6356.752 + 80
const PERIGEE_MARGIN = 0.9
const APOGEE_MARGIN = 1.1
const SPEED_MARGIN = 1.05

export interface MotionBounds {
  /** Lowest and highest geocentric radius, km. */
  minRadiusKm: number
  maxRadiusKm: number
  /** Highest speed (TEME), km/s. */
  maxSpeedKmS: number
  /** Highest rate of change of the geocentric radius, km/s. */
  maxRadialSpeedKmS: number
  /** Highest angular rate about the Earth's centre, rad/s. */
  maxAngularRate: number
}

/** Bounds from a TEME state (km, km/s); null when the state is not on a closed orbit (the caller then assumes nothing). */
export function motionBounds(p: Vector3, v: Vector3): MotionBounds | null {
  const r = Math.sqrt(p.x * p.x + p.y * p.y + p.z * p.z)
  const v2 = v.x * v.x + v.y * v.y + v.z * v.z
  const hx = p.y * v.z - p.z * v.y
  const hy = p.z * v.x - p.x * v.z
  const hz = p.x * v.y - p.y * v.x
  const h = Math.sqrt(hx * hx + hy * hy + hz * hz)
  const a = 1 / (2 / r - v2 / MU)
  if (!(a > 0) || !(h > 0)) return null
  const e = Math.sqrt(Math.max(0, 1 - (h * h) / (MU * a)))
  if (!(e < 0.99)) return null
  const minRadiusKm = Math.max(LOWEST_RADIUS_KM, a * (1 - e) * PERIGEE_MARGIN)
  const maxRadiusKm = a * (1 + e) * APOGEE_MARGIN
  // Energy: the speed is highest at the lowest radius.
  const maxSpeedKmS = Math.sqrt(v2 + 2 * MU * (1 / minRadiusKm - 1 / r)) * SPEED_MARGIN
  // ṙ = √(μ/p)·e·sin ν for p = h²/μ; the angular rate h / r² at the lowest radius.
  const maxRadialSpeedKmS = Math.sqrt(MU / ((h * h) / MU)) * e * SPEED_MARGIN + 0.01
  const maxAngularRate = (h * SPEED_MARGIN) / (minRadiusKm * minRadiusKm)
  return { minRadiusKm, maxRadiusKm, maxSpeedKmS, maxRadialSpeedKmS, maxAngularRate }
}
