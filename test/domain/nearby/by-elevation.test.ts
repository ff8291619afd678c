/** byElevation (src/domain/nearby/by-elevation.ts), the engine's sort: the order of comesBefore, the reference's comparator. */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import type { Satellite } from '../../../src/domain/catalog/catalog.ts'
import { byElevation } from '../../../src/domain/nearby/by-elevation.ts'
import { comesBefore, type NearbyEntry } from '../../../src/domain/nearby/selection.ts'

/** Just the two keys the order reads. */
function entry(elevationDeg: number, noradId: number): NearbyEntry {
  return { satellite: { noradId } as Satellite, elevationDeg } as NearbyEntry
}

describe('byElevation', () => {
  test('orders as the reference comparator sort does: highest elevation first, equal elevations by noradId', () => {
    // Few distinct elevations, so ties are common (and whole answers at one elevation), or any elevation an answer may hold.
    const elevations = fc.oneof(fc.constantFrom(10, 12.5, 45, 45.000000000000014, 89.99), fc.double({ min: -90, max: 90, noNaN: true }))
    fc.assert(
      fc.property(fc.array(fc.tuple(elevations, fc.integer({ min: 1, max: 99_999 })), { maxLength: 300 }), (keys) => {
        const entries = keys.map(([elevation, id]) => entry(elevation, id))
        const expected = [...entries].sort(comesBefore)
        const sorted = byElevation(entries)
        expect(sorted.map((e) => [e.elevationDeg, e.satellite.noradId])).toEqual(expected.map((e) => [e.elevationDeg, e.satellite.noradId]))
        // A permutation of the same objects.
        expect(new Set(sorted)).toEqual(new Set(entries))
      }),
      { numRuns: 2_000 },
    )
  })

  test('hundreds of entries spread as a sky\'s are, in the reference order', () => {
    // Hundreds of entries whose elevations spread as a sky's do, shuffled.
    const keys = Array.from({ length: 500 }, (_, k) => entry(10 + 80 * ((k * 0.618_033_988_75) % 1) ** 2.2, 1 + ((k * 7919) % 99_991)))
    const entries = [...keys].reverse()
    expect(byElevation(entries)).toEqual([...entries].sort(comesBefore))
  })

  test('empty and single answers', () => {
    expect(byElevation([])).toEqual([])
    const one = entry(30, 25544)
    expect(byElevation([one])).toEqual([one])
  })
})
