/**
 * TEME positions to WGS84 geodetic latitude, longitude and height: satellite.js's
 * `eciToGeodetic`, made fast enough for every position the service gives (the
 * test in test/domain/orbit/geometry.test.ts holds it to satellite.js's answers).
 */
import type { Vector3 } from './vector.ts'

const WGS84_A_KM = 6378.137
const WGS84_B_KM = 6356.7523142
const WGS84_F = (WGS84_A_KM - WGS84_B_KM) / WGS84_A_KM
const WGS84_E2 = 2 * WGS84_F - WGS84_F * WGS84_F
/** Second eccentricity squared, e²/(1 − e²). */
const WGS84_EP2 = WGS84_E2 / (1 - WGS84_E2)

export interface Geodetic {
  /** Radians. */
  latitude: number
  /** Radians, -π..π. */
  longitude: number
  /** km above the WGS84 ellipsoid. */
  height: number
}

/**
 * ECI (TEME, km) → WGS84 geodetic at sidereal time `gmstRad`: satellite.js's
 * `eciToGeodetic` (same ellipsoid, same fixed-point iteration), but starting
 * from Bowring's latitude instead of the geocentric one, iterating on tan(latitude)
 * (square roots instead of a sine and an arctangent per round) and stopping once
 * it has converged instead of always running 20 rounds: results equal to ~1e-15 rad.
 */
export function eciToGeodeticFast(eci: Vector3, gmstRad: number): Geodetic {
  const R = Math.sqrt(eci.x * eci.x + eci.y * eci.y)
  // Within ~100 km of the axis the tangent form loses its footing (Bowring's denominator can vanish).
  if (R < NEAR_AXIS_KM) return eciToGeodeticNearAxis(eci, gmstRad, R)
  const tanLat = tanLatitude(eci.z, R)
  return { latitude: Math.atan(tanLat), longitude: longitudeRad(eci, gmstRad), height: heightKm(R, tanLat) }
}

/** `eciToGeodeticFast(eci, …).height` alone, without the arctangents the latitude and longitude cost. */
export function geodeticHeightKm(eci: Vector3): number {
  const R = Math.sqrt(eci.x * eci.x + eci.y * eci.y)
  if (R < NEAR_AXIS_KM) return eciToGeodeticNearAxis(eci, 0, R).height
  return heightKm(R, tanLatitude(eci.z, R))
}

/** tan(geodetic latitude) of a point `z` km above the equatorial plane and `R` km from the axis. */
function tanLatitude(z: number, R: number): number {
  // Bowring's approximation (within ~1e-9 rad from the ground to beyond GEO) as the first estimate.
  const tanBeta = (z * WGS84_A_KM) / (R * WGS84_B_KM)
  const cosBeta = 1 / Math.sqrt(1 + tanBeta * tanBeta)
  const sinBeta = tanBeta * cosBeta
  let tanLat = (z + WGS84_EP2 * WGS84_B_KM * sinBeta * sinBeta * sinBeta) / (R - WGS84_E2 * WGS84_A_KM * cosBeta * cosBeta * cosBeta)
  for (let k = 0; k < 20; k++) {
    const sinLat = tanLat / Math.sqrt(1 + tanLat * tanLat)
    const C = 1 / Math.sqrt(1 - WGS84_E2 * sinLat * sinLat)
    const next = (z + WGS84_A_KM * C * WGS84_E2 * sinLat) / R
    // A change of latitude below 1e-15 rad (d latitude = d tan / sec²).
    const converged = Math.abs(next - tanLat) < 1e-15 * (1 + tanLat * tanLat)
    tanLat = next
    if (converged) break
  }
  return tanLat
}

/** Height above the ellipsoid (km) at geodetic latitude atan(tanLat), `R` km from the axis. */
function heightKm(R: number, tanLat: number): number {
  const secLat = Math.sqrt(1 + tanLat * tanLat)
  const sinLat = tanLat / secLat
  return R * secLat - WGS84_A_KM / Math.sqrt(1 - WGS84_E2 * sinLat * sinLat)
}

const TWO_PI = 2 * Math.PI

/**
 * `x % (2π)`, bit for bit, without the floating-point remainder (a library
 * call, the slowest step of a geodetic conversion) where it is not needed: below
 * 2π in magnitude x is its own remainder, and from 2π to 4π the subtraction is
 * exact (Sterbenz), so it equals the remainder.
 */
export function remainderTwoPi(x: number): number {
  if (x > -TWO_PI && x < TWO_PI) return x
  if (x >= TWO_PI && x < 2 * TWO_PI) return x - TWO_PI
  return x % TWO_PI
}

/** Earth-fixed longitude of a TEME position, radians in [-π, π): satellite.js's `eciToGeodetic` formula. */
function longitudeRad(eci: Vector3, gmstRad: number): number {
  return remainderTwoPi(remainderTwoPi(Math.atan2(eci.y, eci.x) - gmstRad + Math.PI) + TWO_PI) - Math.PI
}

/** Distance from the Earth's axis (km) below which `eciToGeodeticFast` iterates on the latitude itself. */
const NEAR_AXIS_KM = 100

/** `eciToGeodeticFast` near the axis: the same iteration on the latitude, as satellite.js runs it. */
function eciToGeodeticNearAxis(eci: Vector3, gmstRad: number, R: number): Geodetic {
  const longitude = longitudeRad(eci, gmstRad)
  let latitude = Math.atan2(eci.z, R)
  let C = 0
  for (let k = 0; k < 20; k++) {
    const sinLat = Math.sin(latitude)
    C = 1 / Math.sqrt(1 - WGS84_E2 * sinLat * sinLat)
    latitude = Math.atan2(eci.z + WGS84_A_KM * C * WGS84_E2 * sinLat, R)
  }
  return { latitude, longitude, height: R / Math.cos(latitude) - WGS84_A_KM * C }
}
