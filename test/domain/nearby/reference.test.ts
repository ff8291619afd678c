/** findNearby (src/domain/nearby/reference.ts), the specification of /nearby: every satellite with a position in sight, none other, in order. */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { findNearby } from '../../../src/domain/nearby/reference.ts'
import { comesBefore, inAzimuthWindow } from '../../../src/domain/nearby/selection.ts'
import { positionAt, siderealTimeRad } from '../../../src/domain/orbit/position.ts'
import { lookAngles } from '../../../src/domain/orbit/sky.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'
import { nearbyQuery } from '../../helpers/nearby.ts'

const PARIS = { latitudeDeg: 48.8566, longitudeDeg: 2.3522, altitudeM: 35 }
const NIGHT = new Date(Date.UTC(2026, 4, 31, 1, 0, 0))
const NOON = new Date(Date.UTC(2026, 4, 31, 12, 0, 0))

let catalog: Catalog
beforeAll(async () => {
  catalog = await embeddedCatalog()
})

/** The satellites with a position whose look angles pass the threshold and the window, worked out one by one. */
function inSightOneByOne(instant: Date, minElevationDeg: number, fromDeg: number, toDeg: number): number[] {
  const gmst = siderealTimeRad(instant)
  const ids: number[] = []
  for (let i = 0; i < catalog.size; i++) {
    const position = positionAt(catalog, i, instant, gmst)
    if (!position.ok) continue
    const look = lookAngles(PARIS, position.state.eciKm, gmst)
    if (look.elevationDeg >= minElevationDeg && inAzimuthWindow(look.azimuthDeg, fromDeg, toDeg)) ids.push(catalog.satellites[i]!.noradId)
  }
  return ids.sort((a, b) => a - b)
}

describe('findNearby', () => {
  test('lists exactly the satellites in sight, highest first, each with its own position and look angles', () => {
    const result = findNearby(catalog, nearbyQuery(PARIS, NIGHT))
    expect(result.entries.length).toBeGreaterThan(100)
    expect(result.entries.map((e) => e.satellite.noradId).sort((a, b) => a - b)).toEqual(inSightOneByOne(NIGHT, 10, 0, 360))
    expect([...result.entries].sort(comesBefore)).toEqual(result.entries)
    const gmst = siderealTimeRad(NIGHT)
    for (const entry of result.entries.slice(0, 20)) {
      const position = positionAt(catalog, catalog.indexOf(entry.satellite.noradId)!, NIGHT, gmst)
      if (!position.ok) throw new Error('listed without a position')
      expect(entry).toMatchObject({ ...lookAngles(PARIS, position.state.eciKm, gmst), altitudeKm: position.state.altitudeKm, latitudeDeg: position.state.latitudeDeg })
      expect(entry.magnitude === null).toBe(!entry.sunlit)
    }
  })

  test('an azimuth window wrapping through north and a steep threshold', () => {
    const result = findNearby(catalog, nearbyQuery(PARIS, NIGHT, { minElevationDeg: 40, azimuthFromDeg: 300, azimuthToDeg: 60 }))
    expect(result.entries.map((e) => e.satellite.noradId).sort((a, b) => a - b)).toEqual(inSightOneByOne(NIGHT, 40, 300, 60))
  })

  test('visible-only: the visible entries of the full answer; none while the sky is bright', () => {
    const all = findNearby(catalog, nearbyQuery(PARIS, NIGHT))
    const visible = findNearby(catalog, nearbyQuery(PARIS, NIGHT, { visibleOnly: true }))
    expect(visible.entries).toEqual(all.entries.filter((e) => e.visible))
    expect(findNearby(catalog, nearbyQuery(PARIS, NOON, { visibleOnly: true })).entries).toEqual([])
    expect(findNearby(catalog, nearbyQuery(PARIS, NOON)).entries.length).toBeGreaterThan(100)
  })
})
