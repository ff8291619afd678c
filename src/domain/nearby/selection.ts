/**
 * What /nearby lists and what it says of each satellite: the one rule the
 * reference loop (reference.ts) and the fast engine (engine.ts) share. Given a
 * satellite's position and its look angles from the observer, a selection
 * decides whether the query lists it (elevation threshold, azimuth window,
 * visible-only) and makes its entry (sunlit, apparent magnitude, visible).
 */
import { geodeticToEcf } from 'satellite.js'
import type { Catalog, Satellite } from '../catalog/catalog.ts'
import { DEFAULT_MAGNITUDE_LIMIT, magnitudeFromVectors, roundMagnitude, standardMagnitudes } from '../orbit/magnitude.ts'
import type { Vector3 } from '../orbit/position.ts'
import { rangeRateFrom } from '../orbit/radio.ts'
import { KM_PER_AU, type LookAngles, type Observer, type SkyConditions, toGeodeticRad } from '../orbit/sky.ts'

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
  /** Fill each entry's latitude and longitude (the extended answer shows them; the reference loop always does). */
  geoposition?: boolean
}

/** One satellite of an answer, flat (one object per row: answers run to hundreds of rows). */
export interface NearbyEntry {
  satellite: Satellite
  /** The satellite's index in the catalogue. */
  index: number
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
  /** How fast the range grows, km/s (negative while the satellite approaches): see orbit/radio.ts. */
  rangeRateKmS: number
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

/** A satellite's state as a selection needs it: TEME position (km) and velocity (km/s), height (km), speed (km/h), and where it is over the Earth if known. */
export interface SatelliteFix {
  eciKm: Vector3
  velocityKmS: Vector3
  altitudeKm: number
  speedKmH: number
  latitudeDeg?: number
  longitudeDeg?: number
}

/** Whether an azimuth lies in the window [from, to], wrapping through north when from > to. */
export function inAzimuthWindow(azimuthDeg: number, fromDeg: number, toDeg: number): boolean {
  return fromDeg <= toDeg ? azimuthDeg >= fromDeg && azimuthDeg <= toDeg : azimuthDeg >= fromDeg || azimuthDeg <= toDeg
}

/** The highest elevation first, equal elevations by noradId: the order of every answer. */
export function comesBefore(a: NearbyEntry, b: NearbyEntry): number {
  return b.elevationDeg - a.elevationDeg || a.satellite.noradId - b.satellite.noradId
}

/** The rule for one request: its query, the sky, the sidereal time and a test of sunlight (the reference's or a faster equal one). */
export class NearbySelection {
  /** cos and sin of the sidereal time: TEME → Earth-fixed. */
  readonly cosG: number
  readonly sinG: number
  /** The observer, Earth-fixed, km. */
  readonly observerKm: Vector3
  private readonly sunKm: Vector3
  private readonly standards: Float64Array
  private readonly magnitudeLimit: number

  constructor(
    private readonly catalog: Catalog,
    readonly query: NearbyQuery,
    readonly sky: SkyConditions,
    gmstRad: number,
    private readonly isSunlit: (satelliteEciKm: Vector3) => boolean,
  ) {
    this.cosG = Math.cos(gmstRad)
    this.sinG = Math.sin(gmstRad)
    this.observerKm = geodeticToEcf(toGeodeticRad(query.observer))
    const { sunAu } = sky
    // The Sun, Earth-fixed (the frame of the observer and of the topocentric vectors), km: for phase angles.
    this.sunKm = {
      x: (sunAu.x * this.cosG + sunAu.y * this.sinG) * KM_PER_AU,
      y: (-sunAu.x * this.sinG + sunAu.y * this.cosG) * KM_PER_AU,
      z: sunAu.z * KM_PER_AU,
    }
    this.standards = standardMagnitudes(catalog)
    this.magnitudeLimit = query.magnitudeLimit ?? DEFAULT_MAGNITUDE_LIMIT
  }

  /** No satellite can be listed: visible-only while the sky is too bright. */
  get nothingToList(): boolean {
    return this.query.visibleOnly && !this.sky.darkEnough
  }

  /** At or above the elevation threshold and inside the azimuth window. */
  inSight(look: LookAngles): boolean {
    return look.elevationDeg >= this.query.minElevationDeg && inAzimuthWindow(look.azimuthDeg, this.query.azimuthFromDeg, this.query.azimuthToDeg)
  }

  /** The entry of satellite `index` (in sight, with look angles `look`), or null when visible-only leaves it out. */
  entry(index: number, fix: SatelliteFix, look: LookAngles): NearbyEntry | null {
    const { query, sky } = this
    const sunlit = this.isSunlit(fix.eciKm)
    if (query.visibleOnly && !(sunlit && sky.darkEnough)) return null
    // Only for the satellites listed (or, with visible-only, sunlit in a dark sky): the magnitude.
    const magnitude = sunlit ? this.magnitude(index, fix.eciKm) : null
    const visible = sunlit && sky.darkEnough && magnitude! <= this.magnitudeLimit
    if (query.visibleOnly && !visible) return null
    return {
      satellite: this.catalog.satellites[index]!,
      index,
      latitudeDeg: fix.latitudeDeg,
      longitudeDeg: fix.longitudeDeg,
      altitudeKm: fix.altitudeKm,
      speedKmH: fix.speedKmH,
      azimuthDeg: look.azimuthDeg,
      elevationDeg: look.elevationDeg,
      rangeKm: look.rangeKm,
      rangeRateKmS: rangeRateFrom(this.observerKm, this.cosG, this.sinG, fix.eciKm, fix.velocityKmS),
      sunlit,
      magnitude,
      visible,
    }
  }

  /** The apparent magnitude of satellite `index` at `eciKm`, to 0.01, from the topocentric and Sun vectors (Earth-fixed). */
  private magnitude(index: number, p: Vector3): number {
    const o = this.observerKm
    const dx = p.x * this.cosG + p.y * this.sinG - o.x
    const dy = -p.x * this.sinG + p.y * this.cosG - o.y
    const dz = p.z - o.z
    const sun = this.sunKm
    return roundMagnitude(magnitudeFromVectors(this.standards[index]!, dx, dy, dz, sun.x - o.x - dx, sun.y - o.y - dy, sun.z - o.z - dz))
  }
}
