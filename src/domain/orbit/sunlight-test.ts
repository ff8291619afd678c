/** Whether satellites are sunlit, many at one instant: `isSunlit` (sky.ts) with the Sun's part worked out once. */
import { constants } from 'satellite.js'
import { isSunlit } from './sky.ts'
import type { Vector3 } from './vector.ts'

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
