/** One satellite at one instant: SGP4 state, geodetic position and the "has a position" rule. */
import { gstime, type SatRec, sgp4 } from 'satellite.js'
import type { Catalog, Satellite } from '../catalog/catalog.ts'
import type { ElementSet } from '../catalog/elements.ts'
import { seekResonance } from './resonance.ts'
import type { RefusalKind } from './validity.ts'
import { eciToGeodeticFast, geodeticHeightKm } from './geodetic-fast.ts'
import type { Vector3 } from './vector.ts'

export type { Vector3 } from './vector.ts'

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
  6: 'SGP4 finds the satellite below the surface',
}

/**
 * Why SGP4 gave no position `tsinceMin` minutes from the epoch. After the
 * epoch, below the surface is a decay; before it, the elements run backwards
 * (drag undone, a manoeuvre's thrust reversed) describe no orbit it had.
 */
function sgp4Reason(error: number, tsinceMin: number): string {
  const what = SGP4_ERRORS[error] ?? `SGP4 reports error ${error}`
  if (tsinceMin < 0) return `${what} ${(-tsinceMin / 1440).toFixed(1)} days before the elements' epoch: they cannot be run back that far`
  return error === 6 ? `${what} (decayed)` : what
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
 * `geoposition` false leaves the latitude and longitude out (NaN in the state),
 * for callers that read neither (the /nearby engine, its tables and windows):
 * the same rule and the same height, without the arctangents. (A finite height
 * implies a finite latitude: both come from the same tangent of the latitude.)
 */
export function positionAt(
  catalog: Catalog,
  index: number,
  instant: Date,
  gmstRad: number,
  satrec: SatRec = catalog.satrecAt(index),
  geoposition = true,
): PositionResult {
  const ms = instant.getTime()
  const validity = catalog.validity
  const refusal = validity.refusalAt(index, satrec, ms)
  if (refusal !== null) return refused(refusal.kind, refusal.reason)
  if (satrec.method === 'd') seekResonance(satrec, ms)
  // minutesSinceEpoch(catalog.satellites[index].elements, ms), from the validity rules' table of epochs.
  const tsinceMin = validity.minutesSinceEpoch(index, ms)
  const pv = sgp4(satrec, tsinceMin)
  if (satrec.error !== 0 || !pv) return refused('sgp4', sgp4Reason(satrec.error, tsinceMin))
  const { position: p, velocity: v } = pv
  // x - x is 0 for a finite x and NaN for ±Infinity or NaN: the sum is finite only when every coordinate is.
  if (!Number.isFinite(p.x - p.x + p.y - p.y + p.z - p.z + v.x - v.x + v.y - v.y + v.z - v.z)) {
    return refused('sgp4', 'SGP4 gives no finite state')
  }
  const geo = geoposition ? eciToGeodeticFast(p, gmstRad) : { latitude: Number.NaN, longitude: Number.NaN, height: geodeticHeightKm(p) }
  if (!Number.isFinite(geo.height) || (geoposition && !Number.isFinite(geo.latitude))) return refused('sgp4', 'SGP4 gives no finite state')
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
