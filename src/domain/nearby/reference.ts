/** Which satellites are above an observer: the whole-catalogue search behind /nearby. */
import type { Catalog, Satellite } from '../catalog/catalog.ts'
import { geodeticToEcf } from 'satellite.js'
import { DEFAULT_MAGNITUDE_LIMIT, magnitudeFromVectors, roundMagnitude, standardMagnitudes } from '../orbit/magnitude.ts'
import { positionAt, siderealTimeRad, type Vector3 } from '../orbit/position.ts'
import { isSunlit, KM_PER_AU, lookAngles, type Observer, type SkyConditions, skyConditions, toGeodeticRad } from '../orbit/sky.ts'

export interface NearbyQuery {
  observer: Observer
  instant: Date
  /** Lowest elevation listed, degrees (inclusive). */
  minElevationDeg: number
  /** Azimuth window, degrees, inclusive; from > to wraps through north. */
  azimuthFromDeg: number
  azimuthToDeg: number
  visibleOnly: boolean
  /** The faintest apparent magnitude counted as visible (DEFAULT_MAGNITUDE_LIMIT when absent). */
  magnitudeLimit?: number
  /** Fill each entry's latitude and longitude (the extended answer shows them; the plain loop always does). */
  geoposition?: boolean
}

/** One satellite of an answer, flat (one object per row: answers run to hundreds of rows). */
export interface NearbyEntry {
  satellite: Satellite
  /** With `geoposition` in the query. */
  latitudeDeg?: number
  longitudeDeg?: number
  /** Height above the WGS84 ellipsoid, km. */
  altitudeKm: number
  /** Magnitude of the TEME velocity, km/h. */
  speedKmH: number
  azimuthDeg: number
  elevationDeg: number
  rangeKm: number
  sunlit: boolean
  /** Estimated apparent visual magnitude (see magnitude.ts); null when not sunlit. */
  magnitude: number | null
  /** Visible to the naked eye: sunlit, the observer's sky dark enough, and `magnitude` at or below the limit. */
  visible: boolean
}

export interface NearbyResult {
  sky: SkyConditions
  /** Highest elevation first; equal elevations by noradId. */
  entries: NearbyEntry[]
}

/** The Sun (TEME, AU) rotated Earth-fixed by the sidereal time (cos and sin given), km. */
export function sunEarthFixedKm(sunAu: Vector3, cosG: number, sinG: number): Vector3 {
  return { x: (sunAu.x * cosG + sunAu.y * sinG) * KM_PER_AU, y: (-sunAu.x * sinG + sunAu.y * cosG) * KM_PER_AU, z: sunAu.z * KM_PER_AU }
}

/**
 * A satellite's apparent magnitude from its standard magnitude, the observer
 * (Earth-fixed, km), its topocentric vector (dx, dy, dz; Earth-fixed, km) and the
 * Sun (Earth-fixed, km), to 0.01 (roundMagnitude): the one computation of the
 * plain loop and the engine, so their answers agree to the bit.
 */
export function earthFixedMagnitude(standardMag: number, observerKm: Vector3, dx: number, dy: number, dz: number, sunKm: Vector3): number {
  const sx = sunKm.x - observerKm.x - dx
  const sy = sunKm.y - observerKm.y - dy
  const sz = sunKm.z - observerKm.z - dz
  return roundMagnitude(magnitudeFromVectors(standardMag, dx, dy, dz, sx, sy, sz))
}

/** Whether an azimuth lies in the window [from, to], wrapping through north when from > to. */
export function inAzimuthWindow(azimuthDeg: number, fromDeg: number, toDeg: number): boolean {
  return fromDeg <= toDeg ? azimuthDeg >= fromDeg && azimuthDeg <= toDeg : azimuthDeg >= fromDeg || azimuthDeg <= toDeg
}

/**
 * Propagates every satellite of the catalogue and keeps those the query
 * selects; `satrecAt` gives the SGP4 record of the satellite at an index (the
 * catalogue's own by default).
 */
export function findNearby(catalog: Catalog, query: NearbyQuery, satrecAt = (i: number) => catalog.satrecAt(i)): NearbyResult {
  const gmst = siderealTimeRad(query.instant)
  const sky = skyConditions(query.observer, query.instant, gmst)
  if (query.visibleOnly && !sky.darkEnough) return { sky, entries: [] }
  const entries: NearbyEntry[] = []
  const { satellites } = catalog
  const limit = query.magnitudeLimit ?? DEFAULT_MAGNITUDE_LIMIT
  const cosG = Math.cos(gmst)
  const sinG = Math.sin(gmst)
  const observerKm = geodeticToEcf(toGeodeticRad(query.observer))
  const sunKm = sunEarthFixedKm(sky.sunAu, cosG, sinG)
  const standards = standardMagnitudes(catalog)
  for (let i = 0; i < satellites.length; i++) {
    const satellite = satellites[i]!
    const position = positionAt(catalog, i, query.instant, gmst, satrecAt(i))
    if (!position.ok) continue
    const look = lookAngles(query.observer, position.state.eciKm, gmst)
    if (look.elevationDeg < query.minElevationDeg) continue
    if (!inAzimuthWindow(look.azimuthDeg, query.azimuthFromDeg, query.azimuthToDeg)) continue
    const sunlit = isSunlit(position.state.eciKm, sky.sunAu)
    if (query.visibleOnly && !(sunlit && sky.darkEnough)) continue
    const p = position.state.eciKm
    const magnitude = sunlit ? earthFixedMagnitude(standards[i]!, observerKm, p.x * cosG + p.y * sinG - observerKm.x, -p.x * sinG + p.y * cosG - observerKm.y, p.z - observerKm.z, sunKm) : null
    const visible = sunlit && sky.darkEnough && magnitude! <= limit
    if (query.visibleOnly && !visible) continue
    const { latitudeDeg, longitudeDeg, altitudeKm, speedKmH } = position.state
    entries.push({ satellite, latitudeDeg, longitudeDeg, altitudeKm, speedKmH, ...look, sunlit, magnitude, visible })
  }
  return { sky, entries: byElevation(entries) }
}

/**
 * The entries highest elevation first, equal elevations by noradId: a merge
 * sort over typed arrays of the two keys, several times faster than
 * `Array.prototype.sort` with a comparator (one call per comparison) for the
 * hundreds of entries of a typical answer.
 */
export function byElevation(entries: NearbyEntry[]): NearbyEntry[] {
  const n = entries.length
  const elevation = new Float64Array(n)
  const id = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    elevation[i] = entries[i]!.elevationDeg
    id[i] = entries[i]!.satellite.noradId
  }
  /** Whether entry x comes before entry y. */
  const before = (x: number, y: number) => elevation[x]! > elevation[y]! || (elevation[x] === elevation[y] && id[x]! < id[y]!)
  let order = new Int32Array(n)
  let spare = new Int32Array(n)
  for (let i = 0; i < n; i++) order[i] = i
  // Runs of RUN by insertion, then merges of doubling width.
  const RUN = 8
  for (let start = 0; start < n; start += RUN) {
    const end = Math.min(n, start + RUN)
    for (let i = start + 1; i < end; i++) {
      const v = order[i]!
      let j = i - 1
      while (j >= start && before(v, order[j]!)) {
        order[j + 1] = order[j]!
        j--
      }
      order[j + 1] = v
    }
  }
  for (let width = RUN; width < n; width *= 2) {
    for (let start = 0; start < n; start += 2 * width) {
      const mid = Math.min(n, start + width)
      const end = Math.min(n, start + 2 * width)
      let i = start
      let j = mid
      let k = start
      while (i < mid && j < end) spare[k++] = before(order[j]!, order[i]!) ? order[j++]! : order[i++]!
      while (i < mid) spare[k++] = order[i++]!
      while (j < end) spare[k++] = order[j++]!
    }
    const merged = spare
    spare = order
    order = merged
  }
  const sorted = new Array<NearbyEntry>(n)
  for (let i = 0; i < n; i++) sorted[i] = entries[order[i]!]!
  return sorted
}
