/**
 * Radio: how fast a satellite moves away from an observer (range rate) and
 * the Doppler shift that gives a signal it sends.
 *
 * Range rate: the rate of change of the distance from the observer, km/s,
 * positive while the distance grows (receding), negative while it shrinks.
 * Worked out in the Earth-fixed frame, where the observer stands still: the
 * satellite's TEME position and velocity are turned by the sidereal time and
 * the Earth's rotation is taken off the velocity (v_ecf = R·v_teme − ω × r_ecf),
 * then ṙ = d·v / |d| with d the observer-to-satellite vector. (Polar motion is
 * ignored, as for the look angles: a few metres.)
 *
 * Doppler: a signal sent at frequency f is received at f·(1 − ṙ/c); the shift
 * is −f·ṙ/c, the first-order formula of PREDICT's GET_DOPPLER and gpredict.
 * Relativistic terms are of order (v/c)² ≈ 6·10⁻¹⁰ of f: 0.1 Hz at 145 MHz,
 * a few hundred Hz at 300 GHz (against a shift of about 7 MHz there).
 *
 * Pure: no clock, no I/O.
 */
import type { Vector3 } from './vector.ts'

/** The Earth's rotation rate relative to the stars, rad/s (the rate of Greenwich mean sidereal time). */
export const EARTH_ROTATION_RAD_S = 7.292115855e-5
/** The speed of light in vacuum, km/s (exact, SI). */
export const SPEED_OF_LIGHT_KM_S = 299_792.458

/**
 * The range rate (km/s, positive when receding) of a satellite at TEME position
 * `eciKm` with TEME velocity `velocityKmS` (km/s), seen from the observer at
 * Earth-fixed `observerEcfKm`, at sidereal time `gmstRad`.
 */
export function rangeRateKmS(observerEcfKm: Vector3, eciKm: Vector3, velocityKmS: Vector3, gmstRad: number): number {
  return rangeRateFrom(observerEcfKm, Math.cos(gmstRad), Math.sin(gmstRad), eciKm, velocityKmS)
}

/** `rangeRateKmS` with the sidereal time's cosine and sine given (many satellites at one instant). */
export function rangeRateFrom(o: Vector3, cosG: number, sinG: number, p: Vector3, v: Vector3): number {
  const px = p.x * cosG + p.y * sinG
  const py = -p.x * sinG + p.y * cosG
  const vx = v.x * cosG + v.y * sinG + EARTH_ROTATION_RAD_S * py
  const vy = -v.x * sinG + v.y * cosG - EARTH_ROTATION_RAD_S * px
  const dx = px - o.x
  const dy = py - o.y
  const dz = p.z - o.z
  return (dx * vx + dy * vy + dz * v.z) / Math.sqrt(dx * dx + dy * dy + dz * dz)
}

/** The shift (Hz) of a signal sent at `frequencyHz` by a satellite with this range rate, as the observer receives it. */
export function dopplerShiftHz(frequencyHz: number, rangeRateKmPerS: number): number {
  return (-frequencyHz * rangeRateKmPerS) / SPEED_OF_LIGHT_KM_S
}
