/** One satellite at one instant: SGP4 state, geodetic position and the "has a position" rule. */
import { gstime, type SatRec, sgp4 } from 'satellite.js'
import type { Catalog, Satellite } from '../catalog/catalog.ts'
import type { ElementSet } from '../catalog/elements.ts'
import { seekResonance } from './resonance.ts'
import type { RefusalKind } from './validity.ts'

export interface Vector3 {
  x: number
  y: number
  z: number
}

/** A satellite's state at an instant. ECI is SGP4's TEME frame. */
export interface SatelliteState {
  eciKm: Vector3
  velocityKmS: Vector3
  latitudeDeg: number
  longitudeDeg: number
  /** Height above the WGS84 ellipsoid, km. */
  altitudeKm: number
  /** Magnitude of the TEME velocity, km/h. */
  speedKmH: number
}

export type PositionResult = { ok: true; state: SatelliteState } | { ok: false; reason: string; kind: RefusalKind }

const RAD_TO_DEG = 180 / Math.PI

const SGP4_ERRORS: Record<number, string> = {
  1: 'SGP4 finds the mean eccentricity out of range',
  2: 'SGP4 finds the mean motion below zero',
  3: 'SGP4 finds the perturbed eccentricity out of range',
  4: 'SGP4 finds the semi-latus rectum below zero',
  6: 'SGP4 finds the satellite below the surface (decayed)',
}

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

/** Greenwich mean sidereal time at an instant, radians: one per request, shared by every satellite. */
export function siderealTimeRad(instant: Date): number {
  return gstime(instant)
}

/** The magnitude of a velocity in km/s, as km/h (a plain square root: Math.hypot is several times slower here). */
export function speedKmH(v: Vector3): number {
  return Math.sqrt(v.x * v.x + v.y * v.y + v.z * v.z) * 3600
}

/**
 * Minutes from an element set's epoch to an instant, from whole numbers: the
 * instant in ms and the epoch as published in µs (a TLE's day fraction, an
 * OMM's microseconds). satellite.js's `propagate` goes through Julian dates,
 * whose doubles resolve ~40 µs today: ~0.3 m of LEO motion.
 */
export function minutesSinceEpoch(elements: ElementSet, instantMs: number): number {
  return (instantMs * 1000 - (elements.epochUs ?? elements.epochMs * 1000)) / 60_000_000
}

function refused(kind: RefusalKind, reason: string): PositionResult {
  return { ok: false, reason, kind }
}

/**
 * The position of satellite `index` of a catalogue at an instant, or why it
 * has none: the catalogue's validity rules first (element age, decay; see
 * validity.ts), then SGP4 at the exact minutes since the epoch, which must
 * report no error and a finite state at a plausible height. `satrec` may be
 * another record of the same elements (the benchmark's plain loop).
 */
export function positionAt(catalog: Catalog, index: number, instant: Date, gmstRad: number, satrec: SatRec = catalog.satrecAt(index)): PositionResult {
  const ms = instant.getTime()
  const validity = catalog.validity
  const refusal = validity.refusalAt(index, satrec, ms)
  if (refusal !== null) return refused(refusal.kind, refusal.reason)
  if (satrec.method === 'd') seekResonance(satrec, ms)
  const pv = sgp4(satrec, minutesSinceEpoch(catalog.satellites[index]!.elements, ms))
  if (satrec.error !== 0 || !pv) return refused('sgp4', SGP4_ERRORS[satrec.error] ?? `SGP4 reports error ${satrec.error}`)
  const { position: p, velocity: v } = pv
  // x - x is 0 for a finite x and NaN for ±Infinity or NaN: the sum is finite only when every coordinate is.
  if (!Number.isFinite(p.x - p.x + p.y - p.y + p.z - p.z + v.x - v.x + v.y - v.y + v.z - v.z)) {
    return refused('sgp4', 'SGP4 gives no finite state')
  }
  const geo = eciToGeodeticFast(p, gmstRad)
  if (!Number.isFinite(geo.height) || !Number.isFinite(geo.latitude)) return refused('sgp4', 'SGP4 gives no finite state')
  const implausible = validity.heightRefusal(index, geo.height)
  if (implausible !== null) return refused(implausible.kind, implausible.reason)
  return {
    ok: true,
    state: {
      eciKm: p,
      velocityKmS: v,
      latitudeDeg: geo.latitude * RAD_TO_DEG,
      longitudeDeg: geo.longitude * RAD_TO_DEG,
      altitudeKm: geo.height,
      speedKmH: speedKmH(v),
    },
  }
}

/** Slots of the recent-positions cache (direct-mapped by catalog number). */
const RECENT_SLOTS = 256
const RECENT = Symbol('recent positions')
type RecentSlots = ({ satellite: Satellite; ms: number; result: PositionResult } | undefined)[]

/**
 * `positionAt` for one satellite of a catalogue, remembering the last answers:
 * requests for the same satellite at the same millisecond (a popular satellite
 * polled by many clients, "now") share one propagation. The answer is positionAt's
 * either way; the slots belong to the catalogue, so a new catalogue starts with none.
 */
export function recentPositionAt(catalog: Catalog, satellite: Satellite, instant: Date): PositionResult {
  const ms = instant.getTime()
  const recent = catalog.derived(RECENT, (): RecentSlots => new Array(RECENT_SLOTS))
  const slot = satellite.noradId % RECENT_SLOTS
  const hit = recent[slot]
  if (hit !== undefined && hit.satellite === satellite && hit.ms === ms) return hit.result
  const result = positionAt(catalog, catalog.indexOf(satellite.noradId)!, instant, siderealTimeRad(instant))
  recent[slot] = { satellite, ms, result }
  return result
}

/** Several satellites at one instant: those with a position, and the ids unknown or without one. */
export interface PositionsAt {
  found: { satellite: Satellite; state: SatelliteState }[]
  missing: number[]
  noPosition: number[]
  /** Per id of `noPosition`, in the same order: why it has none. */
  noPositionReasons: { noradId: number; kind: RefusalKind; reason: string }[]
}

export function positionsAt(catalog: Catalog, ids: readonly number[], instant: Date, gmstRad = siderealTimeRad(instant)): PositionsAt {
  const result: PositionsAt = { found: [], missing: [], noPosition: [], noPositionReasons: [] }
  for (const id of ids) {
    const index = catalog.indexOf(id)
    if (index === undefined) {
      result.missing.push(id)
      continue
    }
    const satellite = catalog.satellites[index]!
    const position = positionAt(catalog, index, instant, gmstRad)
    if (position.ok) result.found.push({ satellite, state: position.state })
    else {
      result.noPosition.push(id)
      result.noPositionReasons.push({ noradId: id, kind: position.kind, reason: position.reason })
    }
  }
  return result
}
