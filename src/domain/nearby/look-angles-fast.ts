/**
 * Look angles for many satellites from one observer: satellite.js's
 * `ecfToLookAngles` (topocentric south, east, zenith; then range, elevation
 * and azimuth) with the observer's sines and cosines worked out once instead of
 * once per satellite, and no objects made on the way. The same arithmetic in
 * the same order, so the same answers to the bit (test/domain/nearby/look-angles-fast.test.ts).
 */
import type { LookAngles, Observer } from '../orbit/sky.ts'
import { toGeodeticRad } from '../orbit/sky.ts'

const RAD_TO_DEG = 180 / Math.PI

/** Look angles of a topocentric vector (dx, dy, dz: satellite minus observer, Earth-fixed, km) from `observer`. */
export type LookFrom = (dx: number, dy: number, dz: number) => LookAngles

export function lookAnglesFrom(observer: Observer): LookFrom {
  const site = toGeodeticRad(observer)
  const sinLat = Math.sin(site.latitude)
  const cosLat = Math.cos(site.latitude)
  const sinLon = Math.sin(site.longitude)
  const cosLon = Math.cos(site.longitude)
  return (dx, dy, dz) => {
    const south = sinLat * cosLon * dx + sinLat * sinLon * dy - cosLat * dz
    const east = -sinLon * dx + cosLon * dy
    const zenith = cosLat * cosLon * dx + cosLat * sinLon * dy + sinLat * dz
    const rangeKm = Math.sqrt(south * south + east * east + zenith * zenith)
    let azimuthDeg = (Math.atan2(-east, south) + Math.PI) * RAD_TO_DEG
    if (azimuthDeg >= 360) azimuthDeg -= 360
    return { azimuthDeg, elevationDeg: Math.asin(zenith / rangeKm) * RAD_TO_DEG, rangeKm }
  }
}
