/**
 * The precision /nearby states for its numbers: each is rounded to a fixed
 * number of decimals (half up; JSON drops trailing zeros), far finer than
 * what element sets support (about a kilometre at their epoch, more with age)
 * and inside the search's promise to equal the plain SGP4 loop (0.001°, 10 m).
 * An answer has hundreds of entries, and writing their numbers at full double
 * precision (up to 17 digits each) was the largest part of its cost.
 */
import { TEN_TO } from '../../representations/json-bytes.ts'

/** Decimals per kind of number. */
export const NEARBY_DECIMALS = {
  /** altitude and range, km: to the metre */
  km: 3,
  /** velocityKmHs, km/h: to the metre per hour */
  kmPerHour: 3,
  /** elevation, azimuth, latitude, longitude, degrees: 1e-6° (0.1 m on the ground, 2 mm per 1,000 km of range) */
  degrees: 6,
  /** rangeRate, km/s: to the millimetre per second */
  kmPerSecond: 6,
  /** dopplerShiftHz: to the centihertz */
  hertz: 2,
  /** magnitude: to 0.01, as estimated (orbit/magnitude.ts; good to ±1 or so) */
  magnitude: 2,
} as const

/** `x` times 10^decimals, rounded half up to a whole number: the digits of the number the answer shows (`rounded` is this over 10^decimals). */
export function scaled(x: number, decimals: number): number {
  return Math.round(x * TEN_TO[decimals]!)
}

/** `x` rounded to `decimals` decimals, half up: the number the answer shows. */
export function rounded(x: number, decimals: number): number {
  return scaled(x, decimals) / TEN_TO[decimals]!
}

/** An azimuth (degrees, [0, 360)) times 10^6 as the answer shows it: one that rounds to 360 is north, 0. */
export function scaledAzimuth(azimuthDeg: number): number {
  const shown = scaled(azimuthDeg, NEARBY_DECIMALS.degrees)
  return shown === 360 * TEN_TO[NEARBY_DECIMALS.degrees] ? 0 : shown
}

/** An azimuth (degrees, [0, 360)) as the answer shows it: one that rounds to 360 is north, 0. */
export function roundedAzimuth(azimuthDeg: number): number {
  return scaledAzimuth(azimuthDeg) / TEN_TO[NEARBY_DECIMALS.degrees]
}
