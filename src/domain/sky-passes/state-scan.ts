/**
 * The coarse scan from SGP4's own states, for the satellites the mean-element
 * scan cannot bound (deep space: geosynchronous, navigation, Molniya orbits;
 * eccentric or decaying near-earth elements): the stretches in which the
 * satellite may be at or above the observer's threshold.
 *
 * Every position the service gives is below the satellite's height ceiling
 * (validity.ts), so it can be above the threshold only within Γ = γ(ceiling)
 * of the observer (Earth-central angle). From a state, the angle ψ between the
 * satellite and the observer changes no faster than the satellite's angular
 * rate about the Earth's centre (at most h / r_p², its angular momentum over
 * the square of its osculating perigee radius, with margins for perturbations:
 * osculating.ts)
 * plus the observer's: where ψ exceeds Γ by m, nothing can happen for m / rate.
 * An instant without a position counts as "may be above" (the search then
 * decides).
 */
import type { Catalog } from '../catalog/catalog.ts'
import type { TimeSpan } from '../orbit/passes.ts'
import { positionAt, siderealTimeRad } from '../orbit/position.ts'
import { scanByJumps } from './jump-scan.ts'
import { motionBounds } from './osculating.ts'
import { ANGLE_SLACK_RAD, reachRad, type Site, siteDirection } from './site.ts'

const EARTH_EQUATORIAL_KM = 6378.137

/** Appends to `out`, in order, the stretches of [fromMs, toMs] in which satellite `index` may be at or above the threshold. */
export function stateScan(catalog: Catalog, index: number, site: Site, fromMs: number, toMs: number, out: TimeSpan[], capRad = Math.PI): void {
  const satrec = catalog.satrecAt(index)
  const ceilingKm = catalog.validity.heightCeilingAt(index)
  const reach = Math.min(reachRad(site, EARTH_EQUATORIAL_KM + ceilingKm), capRad)
  if (reach < 0) return
  if (reach + ANGLE_SLACK_RAD >= Math.PI) {
    out.push({ fromMs, toMs })
    return
  }
  const o = { x: 0, y: 0, z: 0 }
  const observerRate = site.gmstRatePerMs * site.cosLatitude
  // From the state at t: how long ψ stays above Γ at the fastest the satellite and the observer can close in.
  const jumpAt = (t: number): number => {
    const instant = new Date(t)
    const position = positionAt(catalog, index, instant, siderealTimeRad(instant), satrec)
    // An instant without a position, or an unbounded state, is stepped through as "may be above" (jump 0).
    if (!position.ok) return 0
    const p = position.state.eciKm
    const r = Math.sqrt(p.x * p.x + p.y * p.y + p.z * p.z)
    siteDirection(site, t, o)
    const psi = Math.acos(Math.max(-1, Math.min(1, (p.x * o.x + p.y * o.y + p.z * o.z) / r)))
    const bounds = motionBounds(p, position.state.velocityKmS)
    return bounds ? (psi - reach - ANGLE_SLACK_RAD) / (bounds.maxAngularRate / 1000 + observerRate) : 0
  }
  scanByJumps(fromMs, toMs, jumpAt, out)
}
