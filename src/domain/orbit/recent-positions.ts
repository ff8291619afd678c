/** Recent single-satellite positions: the speed-up beside `positionAt` (position.ts), which it must equal (test/domain/orbit/position.test.ts). */
import type { Catalog, Satellite } from '../catalog/catalog.ts'
import { type PositionResult, positionAt, siderealTimeRad } from './position.ts'

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
