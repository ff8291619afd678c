/** The Sun and the sky: Sun position, observer daylight, Earth's umbra, naked-eye visibility. */
import { constants, ecfToLookAngles, eciToEcf, jday, shadowFraction, sunPos } from 'satellite.js'
import type { Vector3 } from './position.ts'

/** A place on the Earth: WGS84 geodetic latitude and longitude (degrees) and height (metres). */
export interface Observer {
  latitudeDeg: number
  longitudeDeg: number
  altitudeM: number
}

/** Look angles from an observer: azimuth in [0, 360) from north through east, elevation and range. */
export interface LookAngles {
  azimuthDeg: number
  elevationDeg: number
  rangeKm: number
}

/** The Sun's geometric centre below this altitude is night for `observerDaytime` (almanac sunrise/sunset). */
export const SUNRISE_ALTITUDE_DEG = -0.833
/** The Sun at or below this altitude leaves the sky dark enough to see satellites (civil twilight). */
export const CIVIL_TWILIGHT_DEG = -6

const DEG_TO_RAD = Math.PI / 180
const RAD_TO_DEG = 180 / Math.PI
/** Kilometres per astronomical unit (IAU 2012). */
export const KM_PER_AU = 149_597_870.7

/** The Sun's geocentric position (Vallado's low-precision series, ~0.01°), ECI, AU. */
export function sunPositionAu(instant: Date): Vector3 {
  const jd = jday(instant)
  return sunPos(jd).rsun
}

/** satellite.js's observer form: radians and kilometres. */
export function toGeodeticRad(observer: Observer) {
  return {
    latitude: observer.latitudeDeg * DEG_TO_RAD,
    longitude: observer.longitudeDeg * DEG_TO_RAD,
    height: observer.altitudeM / 1000,
  }
}

/** Look angles of a point given in ECI (km) at sidereal time `gmstRad`. */
export function lookAngles(observer: Observer, eciKm: Vector3, gmstRad: number): LookAngles {
  const look = ecfToLookAngles(toGeodeticRad(observer), eciToEcf(eciKm, gmstRad))
  let azimuthDeg = look.azimuth * RAD_TO_DEG
  if (azimuthDeg >= 360) azimuthDeg -= 360
  return { azimuthDeg, elevationDeg: look.elevation * RAD_TO_DEG, rangeKm: look.rangeSat }
}

/** Topocentric altitude of the Sun's geometric centre (no refraction), degrees. */
export function sunAltitudeDeg(observer: Observer, sunAu: Vector3, gmstRad: number): number {
  const sunKm = { x: sunAu.x * KM_PER_AU, y: sunAu.y * KM_PER_AU, z: sunAu.z * KM_PER_AU }
  return lookAngles(observer, sunKm, gmstRad).elevationDeg
}

/** Not in the Earth's umbra: any part of the Sun's disc is visible from the satellite. */
export function isSunlit(satelliteEciKm: Vector3, sunAu: Vector3): boolean {
  return shadowFraction(sunAu, satelliteEciKm) < 1
}

/** The values satellite.js's shadowFraction uses (its own, not exported): the Sun's radius, km, and km per AU. */
const SUN_RADIUS_KM = 695_700
const SHADOW_KM_PER_AU = 149_597_870.69098932

/**
 * `isSunlit` for many satellites at one instant: the Sun's part of satellite.js's
 * `shadowFraction` (antisolar direction, the Sun's angular radius) is computed
 * once, and each satellite then costs a few operations and no allocation. The
 * arithmetic is satellite.js's, in the same order, so the answers are the same;
 * the rare penumbra case is handed to `shadowFraction` itself.
 */
export function sunlightTest(sunAu: Vector3): (satelliteEciKm: Vector3) => boolean {
  const sx = sunAu.x * SHADOW_KM_PER_AU
  const sy = sunAu.y * SHADOW_KM_PER_AU
  const sz = sunAu.z * SHADOW_KM_PER_AU
  const sunDistanceKm = Math.sqrt(sx * sx + sy * sy + sz * sz)
  const ax = -sx / sunDistanceKm
  const ay = -sy / sunDistanceKm
  const az = -sz / sunDistanceKm
  const rS = Math.asin(SUN_RADIUS_KM / sunDistanceKm)
  return (p) => {
    const length = Math.sqrt(p.x * p.x + p.y * p.y + p.z * p.z)
    const dot = p.x * ax + p.y * ay + p.z * az
    if (dot <= 0) return true // on the Sun's side of the Earth
    const rE = Math.asin(constants.earthRadius / length)
    const d = Math.acos(dot / length)
    if (d <= rE - rS) return false // umbra
    if (d >= rE + rS) return true
    return isSunlit(p, sunAu) // penumbra
  }
}

/** The conditions of the sky at one observer and instant, shared by every satellite. */
export interface SkyConditions {
  sunAu: Vector3
  sunAltitudeDeg: number
  observerDaytime: boolean
  /** Dark enough for naked-eye satellites (Sun at or below civil twilight). */
  darkEnough: boolean
}

export function skyConditions(observer: Observer, instant: Date, gmstRad: number): SkyConditions {
  const sunAu = sunPositionAu(instant)
  const altitude = sunAltitudeDeg(observer, sunAu, gmstRad)
  return {
    sunAu,
    sunAltitudeDeg: altitude,
    observerDaytime: altitude > SUNRISE_ALTITUDE_DEG,
    darkEnough: altitude <= CIVIL_TWILIGHT_DEG,
  }
}
