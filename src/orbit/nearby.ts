/** Which satellites are above an observer: the whole-catalogue search behind /nearby. */
import type { Catalog, Satellite } from '../catalog/catalog.ts'
import { positionAt, type SatelliteState, siderealTimeRad } from './position.ts'
import { isSunlit, type LookAngles, lookAngles, type Observer, type SkyConditions, skyConditions } from './sky.ts'

export interface NearbyQuery {
  observer: Observer
  instant: Date
  /** Lowest elevation listed, degrees (inclusive). */
  minElevationDeg: number
  /** Azimuth window, degrees, inclusive; from > to wraps through north. */
  azimuthFromDeg: number
  azimuthToDeg: number
  visibleOnly: boolean
}

export interface NearbyEntry {
  satellite: Satellite
  state: SatelliteState
  look: LookAngles
  sunlit: boolean
  /** Sunlit, above the threshold, and the observer's sky dark enough. */
  visible: boolean
}

export interface NearbyResult {
  sky: SkyConditions
  /** Highest elevation first; equal elevations by noradId. */
  entries: NearbyEntry[]
}

/** Whether an azimuth lies in the window [from, to], wrapping through north when from > to. */
export function inAzimuthWindow(azimuthDeg: number, fromDeg: number, toDeg: number): boolean {
  return fromDeg <= toDeg ? azimuthDeg >= fromDeg && azimuthDeg <= toDeg : azimuthDeg >= fromDeg || azimuthDeg <= toDeg
}

/** Propagates every satellite of the catalogue and keeps those the query selects. */
export function findNearby(catalog: Catalog, query: NearbyQuery): NearbyResult {
  const gmst = siderealTimeRad(query.instant)
  const sky = skyConditions(query.observer, query.instant, gmst)
  if (query.visibleOnly && !sky.darkEnough) return { sky, entries: [] }
  const entries: NearbyEntry[] = []
  const { satellites } = catalog
  for (let i = 0; i < satellites.length; i++) {
    const satellite = satellites[i]!
    const position = positionAt(catalog.satrecAt(i), satellite.elements, query.instant, gmst)
    if (!position.ok) continue
    const look = lookAngles(query.observer, position.state.eciKm, gmst)
    if (look.elevationDeg < query.minElevationDeg) continue
    if (!inAzimuthWindow(look.azimuthDeg, query.azimuthFromDeg, query.azimuthToDeg)) continue
    const sunlit = isSunlit(position.state.eciKm, sky.sunAu)
    const visible = sunlit && sky.darkEnough
    if (query.visibleOnly && !visible) continue
    entries.push({ satellite, state: position.state, look, sunlit, visible })
  }
  entries.sort((a, b) => b.look.elevationDeg - a.look.elevationDeg || a.satellite.noradId - b.satellite.noradId)
  return { sky, entries }
}
