/**
 * Position tables: every satellite's SGP4 state at one instant, in flat typed
 * arrays, so that the state at any instant between two tables can be
 * interpolated (cubic Hermite on position and velocity) instead of running
 * SGP4 for the whole catalogue on every request.
 */
import type { Catalog } from '../catalog/catalog.ts'
import { positionAt, siderealTimeRad } from '../orbit/position.ts'

export interface PositionTable {
  instantMs: number
  /** TEME position (km) and velocity (km/s), x y z per satellite, in catalogue order. */
  positionKm: Float64Array
  velocityKmS: Float64Array
  /** Per satellite: POSITION where it has a position at this instant (positionAt's rule), else NO_POSITION. */
  status: Uint8Array
  /** How many satellites have been propagated so far (tables can be filled in slices). */
  filled: number
}

/** `status` values. */
export const POSITION = 1
export const NO_POSITION = 0

export function emptyTable(catalog: Catalog, instantMs: number): PositionTable {
  const n = catalog.size
  return {
    instantMs,
    positionKm: new Float64Array(3 * n),
    velocityKmS: new Float64Array(3 * n),
    status: new Uint8Array(n),
    filled: 0,
  }
}

/** Propagates satellites `table.filled` .. `until` (exclusive) into the table; fewer when `timeUp()` says to stop (asked after each). */
export function fillTable(catalog: Catalog, table: PositionTable, until = catalog.size, timeUp: () => boolean = () => false): void {
  const instant = new Date(table.instantMs)
  const gmst = siderealTimeRad(instant)
  let end = Math.min(until, catalog.size)
  for (let i = table.filled; i < end; i++) {
    // A piece of background work stops when told, asked after every satellite: the first propagation of a
    // record can cost a millisecond or more (its SGP4 set-up, a resonance or decay search), and right after
    // the start, with every record cold, 16 of them made pieces of 20–30 ms that the first requests waited for.
    if (i > table.filled && timeUp()) {
      end = i
      break
    }
    const result = positionAt(catalog, i, instant, gmst, undefined, false)
    if (!result.ok) {
      table.status[i] = NO_POSITION
      continue
    }
    const { eciKm: p, velocityKmS: v } = result.state
    table.status[i] = POSITION
    table.positionKm[3 * i] = p.x
    table.positionKm[3 * i + 1] = p.y
    table.positionKm[3 * i + 2] = p.z
    table.velocityKmS[3 * i] = v.x
    table.velocityKmS[3 * i + 1] = v.y
    table.velocityKmS[3 * i + 2] = v.z
  }
  table.filled = Math.max(table.filled, end)
}

/**
 * Chord velocity against the mean of the end velocities, km/s: about h²/12 of
 * the third derivative for a smooth orbit (micrometres per second), large for
 * elements that SGP4 drives into fast nonsense, which interpolation cannot follow.
 */
export function roughness(a: PositionTable, b: PositionTable, i: number): number {
  const h = (b.instantMs - a.instantMs) / 1000
  let worst = 0
  for (let k = 0; k < 3; k++) {
    const chord = (b.positionKm[3 * i + k]! - a.positionKm[3 * i + k]!) / h
    const mean = (a.velocityKmS[3 * i + k]! + b.velocityKmS[3 * i + k]!) / 2
    worst = Math.max(worst, Math.abs(chord - mean))
  }
  return worst
}

export function isComplete(catalog: Catalog, table: PositionTable): boolean {
  return table.filled >= catalog.size
}

/**
 * Interpolation weights at fraction `u` (0..1) of a step of `stepS` seconds:
 * position = w0·p0 + w1·v0 + w2·p1 + w3·v1 (cubic Hermite), velocity =
 * w4·p0 + w5·v0 + w6·p1 + w7·v1 (linear in the velocities: the Hermite
 * derivative would amplify the small kinks of SGP4's deep-space integrator).
 * At u = 0 they give exactly the first table's state.
 */
export function hermiteWeights(u: number, stepS: number): Float64Array {
  const u2 = u * u
  const u3 = u2 * u
  return Float64Array.of(
    2 * u3 - 3 * u2 + 1,
    (u3 - 2 * u2 + u) * stepS,
    -2 * u3 + 3 * u2,
    (u3 - u2) * stepS,
    0,
    1 - u,
    0,
    u,
  )
}

/** Satellite `i`'s state between tables `a` and `b`: position (km) into out[0..2], velocity (km/s) into out[3..5]. */
export function interpolateState(a: PositionTable, b: PositionTable, i: number, w: Float64Array, out: Float64Array): void {
  for (let k = 0; k < 3; k++) {
    const p0 = a.positionKm[3 * i + k]!
    const p1 = b.positionKm[3 * i + k]!
    const v0 = a.velocityKmS[3 * i + k]!
    const v1 = b.velocityKmS[3 * i + k]!
    out[k] = w[0]! * p0 + w[1]! * v0 + w[2]! * p1 + w[3]! * v1
    out[3 + k] = w[4]! * p0 + w[5]! * v0 + w[6]! * p1 + w[7]! * v1
  }
}
