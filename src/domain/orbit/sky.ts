/** The Sun and the sky: Sun position, observer daylight, Earth's umbra, naked-eye visibility. */
import { ecfToLookAngles, eciToEcf, jday, shadowFraction, sunPos } from 'satellite.js'
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
