/** Pieces of the whole-catalogue search shared by the engine and the plain loop. */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import type { Satellite } from '../../../src/domain/catalog/catalog.ts'
import { byElevation, type NearbyEntry } from '../../../src/domain/nearby/reference.ts'

/** Just the two keys the order reads. */
function entry(elevationDeg: number, noradId: number): NearbyEntry {
  return { satellite: { noradId } as Satellite, elevationDeg } as NearbyEntry
}

describe('byElevation', () => {
  test('orders like a comparator sort: highest elevation first, equal elevations by noradId', () => {
    // Few distinct elevations, so ties are common; lengths across the insertion runs and several merges.
    const elevations = fc.constantFrom(10, 12.5, 45, 45.000000000000014, 89.99)
    fc.assert(
      fc.property(fc.array(fc.tuple(elevations, fc.integer({ min: 1, max: 99_999 })), { maxLength: 300 }), (keys) => {
        const entries = keys.map(([elevation, id]) => entry(elevation, id))
        const expected = [...entries].sort((a, b) => b.elevationDeg - a.elevationDeg || a.satellite.noradId - b.satellite.noradId)
        const sorted = byElevation(entries)
        expect(sorted.map((e) => [e.elevationDeg, e.satellite.noradId])).toEqual(expected.map((e) => [e.elevationDeg, e.satellite.noradId]))
        // A permutation of the same objects.
        expect(new Set(sorted)).toEqual(new Set(entries))
      }),
      { numRuns: 2_000 },
    )
  })

  test('empty and single answers', () => {
    expect(byElevation([])).toEqual([])
    const one = entry(30, 25544)
    expect(byElevation([one])).toEqual([one])
  })
})
