/**
 * Which satellites are above an observer: the specification of /nearby, as a
 * plain loop. Every satellite of the catalogue is propagated with SGP4
 * (positionAt: the one rule for having a position), looked at from the
 * observer with satellite.js, and kept or not by the query's selection. The
 * engine (engine.ts) answers the same, faster; the tests compare the two.
 */
import type { Catalog } from '../catalog/catalog.ts'
import { positionAt, siderealTimeRad } from '../orbit/position.ts'
import { isSunlit, lookAngles, skyConditions } from '../orbit/sky.ts'
import { comesBefore, type NearbyEntry, type NearbyQuery, type NearbyResult, NearbySelection } from './selection.ts'

/**
 * Propagates every satellite of the catalogue and keeps those the query
 * selects, highest first; `satrecAt` gives the SGP4 record of the satellite at
 * an index (the catalogue's own by default).
 */
export function findNearby(catalog: Catalog, query: NearbyQuery, satrecAt = (i: number) => catalog.satrecAt(i)): NearbyResult {
  const gmst = siderealTimeRad(query.instant)
  const sky = skyConditions(query.observer, query.instant, gmst)
  const selection = new NearbySelection(catalog, query, sky, gmst, (p) => isSunlit(p, sky.sunAu))
  const entries: NearbyEntry[] = []
  if (selection.nothingToList) return { sky, entries }
  for (let i = 0; i < catalog.size; i++) {
    const position = positionAt(catalog, i, query.instant, gmst, satrecAt(i))
    if (!position.ok) continue
    const look = lookAngles(query.observer, position.state.eciKm, gmst)
    if (!selection.inSight(look)) continue
    const entry = selection.entry(i, position.state, look)
    if (entry) entries.push(entry)
  }
  return { sky, entries: entries.sort(comesBefore) }
}
