/**
 * Whether a stretch of time can hold a visible moment of a satellite: above
 * the threshold, sunlit, in a dark sky, and no fainter than the limit (the
 * rule of findPasses' visible windows). A visible-only search runs the full
 * pass search only on the stretches this cannot rule out.
 *
 * One SGP4 state at the middle of an interval bounds the whole interval, with
 * the motion bounds of osculating.ts over its half-length h:
 * - the direction from the observer turns by at most v_rel·h / (d − v_rel·h),
 *   so the elevation cannot reach the threshold if it is further below;
 * - the angle from the anti-solar axis changes by at most the satellite's
 *   angular rate × h (plus the Sun's 0.99°/day), the umbra's angular radius
 *   asin(R/r) by at most R·ṙ/(r·√(r² − R²)) × h: deeper in the umbra than that,
 *   the satellite stays in it;
 * - the range is at least d − v_rel·h and the phase angle at least φ minus the
 *   turn of the direction to the observer: a magnitude bound (magnitude.ts's formula);
 * - the dark stretches (darkness.ts) must meet the interval.
 * An interval none of these rules out is halved, down to MIN_INTERVAL_MS; one
 * that survives at that size means "may be visible".
 */
import type { Catalog } from '../catalog/catalog.ts'
import { magnitudeFromVectors, phaseAngleRad } from '../orbit/magnitude.ts'
import type { TimeSpan } from '../orbit/passes.ts'
import { positionAt, siderealTimeRad } from '../orbit/position.ts'
import { EARTH_ROTATION_RAD_S } from '../orbit/radio.ts'
import { KM_PER_AU, sunPositionAu } from '../orbit/sky.ts'
import { meetsAny } from './darkness.ts'
import { motionBounds } from './osculating.ts'
import type { Site } from './site.ts'

const MIN_INTERVAL_MS = 2_000
/** satellite.js's umbra test: the Earth's radius (km) and the Sun's (km). */
const SHADOW_EARTH_KM = 6378.135
const SUN_RADIUS_KM = 695_700
/** The Sun's motion across the sky of the stars, rad/s (rounded up). */
const SUN_RATE = 2.1e-7
const RAD = Math.PI / 180

export interface Screen {
  catalog: Catalog
  index: number
  site: Site
  /** The geodetic elevation threshold, degrees. */
  minElevationDeg: number
  standardMagnitude: number
  magnitudeLimit: number
  dark: readonly TimeSpan[]
}

/** Whether [fromMs, toMs] may hold a visible moment of the satellite. */
export function mayBeVisible(screen: Screen, fromMs: number, toMs: number): boolean {
  const stack: [number, number][] = [[fromMs, toMs]]
  while (stack.length > 0) {
    const [a, b] = stack.pop()!
    if (!meetsAny(screen.dark, a, b)) continue
    const verdict = ruledOut(screen, a, b)
    if (verdict === 'ruled out') continue
    if (verdict === 'unknown' || b - a <= MIN_INTERVAL_MS) return true
    const mid = Math.round((a + b) / 2)
    stack.push([mid, b], [a, mid])
  }
  return false
}

/** 'ruled out' when [a, b] surely holds no visible moment; 'unknown' when nothing can be said (no position at its middle). */
function ruledOut(screen: Screen, a: number, b: number): 'ruled out' | 'maybe' | 'unknown' {
  const { catalog, index, site } = screen
  const m = (a + b) / 2
  const hs = (b - a) / 2000 // half-length, s
  const instant = new Date(Math.round(m))
  const gmst = siderealTimeRad(instant)
  const position = positionAt(catalog, index, instant, gmst)
  if (!position.ok) return 'unknown'
  const p = position.state.eciKm
  const v = position.state.velocityKmS
  const bounds = motionBounds(p, v)
  if (!bounds) return 'unknown'
  const r = Math.sqrt(p.x * p.x + p.y * p.y + p.z * p.z)

  // Observer to satellite, Earth-fixed.
  const c = Math.cos(gmst)
  const s = Math.sin(gmst)
  const o = site.ecfKm
  const dx = p.x * c + p.y * s - o.x
  const dy = -p.x * s + p.y * c - o.y
  const dz = p.z - o.z
  const range = Math.sqrt(dx * dx + dy * dy + dz * dz)
  // Relative speed: the satellite's in the Earth-fixed frame, at most its speed plus the frame's at its highest radius.
  const relative = bounds.maxSpeedKmS + EARTH_ROTATION_RAD_S * bounds.maxRadiusKm
  const nearest = range - relative * hs
  const turn = nearest > 0 ? Math.min(Math.PI, (relative * hs) / nearest) : Math.PI

  // 1. Elevation (geodetic vertical).
  const lat = site.observer.latitudeDeg * RAD
  const lon = site.observer.longitudeDeg * RAD
  const up = (Math.cos(lat) * Math.cos(lon) * dx + Math.cos(lat) * Math.sin(lon) * dy + Math.sin(lat) * dz) / range
  const elevation = Math.asin(Math.max(-1, Math.min(1, up)))
  if (elevation + turn < screen.minElevationDeg * RAD - 1e-9) return 'ruled out'

  // 2. The umbra (satellite.js's cone: in it when the angle from the anti-solar axis is at most asin(R/r) − asin(R_sun/|sun|)).
  const sunAu = sunPositionAu(instant)
  const sx = sunAu.x * KM_PER_AU
  const sy = sunAu.y * KM_PER_AU
  const sz = sunAu.z * KM_PER_AU
  const sunDistance = Math.sqrt(sx * sx + sy * sy + sz * sz)
  const fromAxis = Math.acos(Math.max(-1, Math.min(1, -(p.x * sx + p.y * sy + p.z * sz) / (r * sunDistance))))
  const umbra = Math.asin(SHADOW_EARTH_KM / r) - Math.asin(SUN_RADIUS_KM / sunDistance)
  const rMin = Math.max(SHADOW_EARTH_KM * 1.0001, r - bounds.maxRadialSpeedKmS * hs)
  const umbraChange = ((SHADOW_EARTH_KM * bounds.maxRadialSpeedKmS) / (rMin * Math.sqrt(rMin * rMin - SHADOW_EARTH_KM * SHADOW_EARTH_KM))) * hs
  const axisChange = (bounds.maxAngularRate + SUN_RATE) * hs
  if (umbra - fromAxis > umbraChange + axisChange + 1e-6) return 'ruled out'

  // 3. Brightness: the least range and phase angle the interval allows.
  if (nearest > 0) {
    // The phase angle at the middle, then its least over the interval: the range shrinks to `nearest`, the phase angle by `turn`.
    const observerTeme = { x: p.x - (dx * c - dy * s), y: p.y - (dx * s + dy * c), z: p.z - dz }
    const phase = phaseAngleRad(p, observerTeme, { x: sx, y: sy, z: sz })
    const phaseTurn = turn + (relative * hs) / sunDistance + SUN_RATE * hs
    const least = Math.max(0, phase - phaseTurn)
    const brightest = magnitudeAt(screen.standardMagnitude, nearest, least)
    if (brightest > screen.magnitudeLimit + 0.01) return 'ruled out'
  }
  return 'maybe'
}

/** The magnitude at a range (km) and phase angle (rad): magnitude.ts's formula through magnitudeFromVectors, on a constructed geometry. */
function magnitudeAt(standardMagnitude: number, rangeKm: number, phaseRad: number): number {
  // Observer to satellite along x; satellite to Sun at the phase angle from satellite→observer (−x).
  return magnitudeFromVectors(standardMagnitude, rangeKm, 0, 0, -Math.cos(phaseRad), Math.sin(phaseRad), 0)
}
