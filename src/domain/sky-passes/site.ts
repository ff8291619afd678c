/**
 * The observer as the catalogue-wide search sees it: where it is (Earth-fixed
 * and, at any instant, in TEME), its geocentric radius, and the lowest
 * geocentric elevation a satellite above the (geodetic) threshold can have.
 */
import { geodeticToEcf } from 'satellite.js'
import { siderealTimeRad, type Vector3 } from '../orbit/position.ts'
import { EARTH_ROTATION_RAD_S } from '../orbit/radio.ts'
import { type Observer, toGeodeticRad } from '../orbit/sky.ts'

const DEG = Math.PI / 180
/** Room for rounding in every angle the scans compare, radians (~0.6 m at LEO). */
export const ANGLE_SLACK_RAD = 1e-4

export interface Site {
  observer: Observer
  /** Earth-fixed position, km. */
  ecfKm: Vector3
  /** Geocentric radius, km. */
  radiusKm: number
  /** cos of the geocentric latitude: the observer moves through TEME at ω·cos(latitude). */
  cosLatitude: number
  /** The lowest geocentric elevation a point at or above the geodetic threshold can have, radians. */
  minElevationRad: number
  /** The angle between the geodetic and the geocentric vertical, radians. */
  tiltRad: number
  /** Greenwich mean sidereal time at `epochMs`, and its rate, radians per ms. */
  gmst0: number
  gmstRatePerMs: number
  epochMs: number
}

export function siteOf(observer: Observer, minElevationDeg: number, epochMs: number): Site {
  const ecfKm = geodeticToEcf(toGeodeticRad(observer))
  const radiusKm = Math.sqrt(ecfKm.x * ecfKm.x + ecfKm.y * ecfKm.y + ecfKm.z * ecfKm.z)
  const geocentricLatitude = Math.asin(ecfKm.z / radiusKm)
  const tiltRad = Math.abs(observer.latitudeDeg * DEG - geocentricLatitude)
  return {
    observer,
    ecfKm,
    radiusKm,
    cosLatitude: Math.cos(geocentricLatitude),
    minElevationRad: minElevationDeg * DEG - tiltRad - ANGLE_SLACK_RAD,
    tiltRad,
    gmst0: siderealTimeRad(new Date(epochMs)),
    gmstRatePerMs: EARTH_ROTATION_RAD_S / 1000,
    epochMs,
  }
}

/**
 * The sidereal time at `ms`: linear from the site's epoch (over the two days
 * a search may span, GMST's quadratic term moves it by nanoradians).
 */
export function gmstAt(site: Site, ms: number): number {
  return site.gmst0 + site.gmstRatePerMs * (ms - site.epochMs)
}

/** The observer's unit vector in TEME at `ms`, into `out`. */
export function siteDirection(site: Site, ms: number, out: Vector3): Vector3 {
  const g = gmstAt(site, ms)
  const c = Math.cos(g)
  const s = Math.sin(g)
  const o = site.ecfKm
  out.x = (o.x * c - o.y * s) / site.radiusKm
  out.y = (o.x * s + o.y * c) / site.radiusKm
  out.z = o.z / site.radiusKm
  return out
}

/** The Earth-central angle within which a point at radius `radiusKm` is at or above the site's threshold; negative: nowhere. */
export function reachRad(site: Site, radiusKm: number): number {
  const cosine = (site.radiusKm * Math.cos(site.minElevationRad)) / radiusKm
  if (cosine >= 1) return -1
  return Math.acos(cosine) - site.minElevationRad
}

/**
 * The Earth-central angle within which a point at radius `radiusKm` is within
 * `rangeKm` of the site (-1: nowhere; π: everywhere). Smaller for larger radii.
 */
export function rangeReachRad(site: Site, radiusKm: number, rangeKm: number): number {
  const rho = site.radiusKm
  const cosine = (radiusKm * radiusKm + rho * rho - rangeKm * rangeKm) / (2 * radiusKm * rho)
  if (cosine > 1) return -1
  if (cosine <= -1) return Math.PI
  return Math.acos(cosine)
}
