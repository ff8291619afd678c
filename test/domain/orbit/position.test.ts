/** recentPositionAt: positionAt's answers, computed once per satellite and millisecond. */
import { describe, expect, test } from 'bun:test'
import { buildCatalog } from '../../../src/domain/catalog/catalog.ts'
import { positionAt, recentPositionAt, siderealTimeRad } from '../../../src/domain/orbit/position.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'

describe('recentPositionAt', () => {
  test('gives positionAt’s answer, shared by requests at the same millisecond only', async () => {
    const catalog = await embeddedCatalog()
    const iss = catalog.get(25544)!
    const instant = new Date(Date.UTC(2026, 4, 31, 6, 0, 0, 123))
    const first = recentPositionAt(catalog, iss, instant)
    expect(first).toEqual(positionAt(catalog, catalog.indexOf(iss.noradId)!, instant, siderealTimeRad(instant)))
    expect(recentPositionAt(catalog, iss, new Date(instant.getTime()))).toBe(first)
    const next = recentPositionAt(catalog, iss, new Date(instant.getTime() + 1))
    expect(next).not.toBe(first)
    expect(next).toEqual(positionAt(catalog, catalog.indexOf(iss.noradId)!, new Date(instant.getTime() + 1), siderealTimeRad(new Date(instant.getTime() + 1))))
  })

  test('satellites sharing a slot, and a new catalogue, are never confused', async () => {
    const catalog = await embeddedCatalog()
    const instant = new Date(Date.UTC(2026, 4, 31, 6))
    // 25544 and 25544 + 256 fall in the same slot when both exist; any two ids 256 apart do.
    const ids = catalog.satellites.map((s) => s.noradId)
    const pair = ids.find((id) => catalog.get(id + 256) !== undefined)!
    for (const id of [pair, pair + 256, pair, pair + 256]) {
      const satellite = catalog.get(id)!
      expect(recentPositionAt(catalog, satellite, instant)).toEqual(positionAt(catalog, catalog.indexOf(satellite.noradId)!, instant, siderealTimeRad(instant)))
    }
    const copy = buildCatalog([{ group: 'copy', elements: [catalog.get(pair)!.elements] }], { source: 'snapshot', obtainedAtMs: 0 }, 0)
    const fromCopy = recentPositionAt(copy, copy.get(pair)!, instant)
    expect(fromCopy).not.toBe(recentPositionAt(catalog, catalog.get(pair)!, instant))
    expect(fromCopy).toEqual(recentPositionAt(catalog, catalog.get(pair)!, instant))
  })
})
