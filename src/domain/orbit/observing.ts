/**
 * What other tracking APIs report besides a position and look angles, from the
 * same state: the satellite's topocentric right ascension and declination, the
 * point under the Sun, a satellite's footprint, Julian dates and compass points.
 * Pure: instants come in as arguments.
 */
import { ecfToEci, geodeticToEcf } from 'satellite.js'
import type { Vector3 } from './position.ts'
import { type Observer, sunPositionAu, toGeodeticRad } from './sky.ts'

const RAD_TO_DEG = 180 / Math.PI
const WGS84_A_KM = 6378.137

/** An angle in degrees brought into [0, 360). */
function wrap360(deg: number): number {
  const d = deg % 360
  return d < 0 ? d + 360 : d
}

/** The observer's position in TEME (km) at sidereal time `gmstRad`: its Earth-fixed position turned by the Earth's rotation. */
export function observerEciKm(observer: Observer, gmstRad: number): Vector3 {
  return ecfToEci(geodeticToEcf(toGeodeticRad(observer)), gmstRad)
}

/**
 * Where a telescope at the observer points to see the satellite: right
 * ascension in [0, 360) and declination, degrees, of the observer-to-satellite
 * vector in SGP4's TEME frame (true equator, mean equinox of date; the true
 * equinox is within 0.005° of it).
 */
export function topocentricRaDec(observer: Observer, satelliteEciKm: Vector3, gmstRad: number): { raDeg: number; decDeg: number } {
  const o = observerEciKm(observer, gmstRad)
  const dx = satelliteEciKm.x - o.x
  const dy = satelliteEciKm.y - o.y
  const dz = satelliteEciKm.z - o.z
  const range = Math.sqrt(dx * dx + dy * dy + dz * dz)
  return { raDeg: wrap360(Math.atan2(dy, dx) * RAD_TO_DEG), decDeg: Math.asin(dz / range) * RAD_TO_DEG }
}

/**
 * The point on the Earth with the Sun at its zenith (geocentric): latitude
 * (the Sun's declination) and east longitude in [0, 360), degrees. The Sun is
 * satellite.js's (Vallado's series, about 0.01°).
 */
export function subsolarPoint(instant: Date, gmstRad: number): { latitudeDeg: number; longitudeDeg: number } {
  const sun = sunPositionAu(instant)
  return {
    latitudeDeg: Math.atan2(sun.z, Math.sqrt(sun.x * sun.x + sun.y * sun.y)) * RAD_TO_DEG,
    longitudeDeg: wrap360((Math.atan2(sun.y, sun.x) - gmstRad) * RAD_TO_DEG),
  }
}

/**
 * The diameter (km, along the ground) of the area from which a satellite at
 * `altitudeKm` is above the horizon: 2·R·arccos(R / (R + h)) on a sphere of the
 * WGS84 equatorial radius (Predict's footprint).
 */
export function footprintKm(altitudeKm: number): number {
  if (!(altitudeKm > 0)) return 0
  return 2 * WGS84_A_KM * Math.acos(WGS84_A_KM / (WGS84_A_KM + altitudeKm))
}

/** The Julian date (UTC) of an instant in ms since 1970. */
export function julianDate(instantMs: number): number {
  return instantMs / 86_400_000 + 2_440_587.5
}

const COMPASS = ['N', 'NNE', 'NE', 'ENE', 'E', 'ESE', 'SE', 'SSE', 'S', 'SSW', 'SW', 'WSW', 'W', 'WNW', 'NW', 'NNW'] as const

/** The nearest of the 16 compass points to an azimuth in degrees (N = 0, E = 90): each covers 22.5°, N from 348.75 to 11.25. */
export function compassPoint(azimuthDeg: number): (typeof COMPASS)[number] {
  return COMPASS[Math.round(wrap360(azimuthDeg) / 22.5) % 16]!
}
