/** A catalogue handed to another process as plain data is made again the same: satellites, groups, origin, version. */
import { describe, expect, test } from 'bun:test'
import { buildCatalog } from '../../../src/domain/catalog/catalog.ts'
import { catalogFromTransfer, catalogTransfer } from '../../../src/domain/catalog/transfer.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'

describe('catalogue transfer', () => {
  test('the embedded catalogue, through JSON, is the same catalogue', async () => {
    const catalog = await embeddedCatalog()
    const copy = catalogFromTransfer(JSON.parse(JSON.stringify(catalogTransfer(catalog))))
    expect(copy.version).toBe(catalog.version)
    expect(copy.size).toBe(catalog.size)
    expect(copy.groupCounts).toEqual(catalog.groupCounts)
    expect(copy.origin).toEqual(catalog.origin)
    expect(copy.loadedAtMs).toBe(catalog.loadedAtMs)
    for (let i = 0; i < catalog.size; i += 97) {
      const [a, b] = [catalog.satellites[i]!, copy.satellites[i]!]
      expect(b.groups).toEqual(a.groups)
      expect(b.labels).toEqual(a.labels)
      expect(b.epoch).toBe(a.epoch)
      expect(b.orbitalParams).toEqual(a.orbitalParams)
      // Every field of the element set, the TLE lines and the µs epoch included (undefined stays undefined).
      expect({ ...b.elements }).toEqual({ ...a.elements })
    }
  })

  test('a satellite in several groups, an empty group and per-group origins survive', async () => {
    const iss = (await embeddedCatalog()).get(25544)!.elements
    const catalog = buildCatalog(
      [
        { group: 'stations', elements: [iss] },
        { group: 'visual', elements: [iss] },
        { group: 'empty', elements: [] },
      ],
      { source: 'refresh', obtainedAtMs: 1_780_000_000_000, groupsObtainedAtMs: { stations: 1_780_000_000_000, visual: 1_779_000_000_000, empty: 1_779_000_000_000 }, groupSources: { stations: 'refresh', visual: 'cache', empty: 'cache' } },
      1_780_000_123_456,
    )
    const copy = catalogFromTransfer(catalogTransfer(catalog))
    expect(copy.groupCounts).toEqual({ empty: 0, stations: 1, visual: 1 })
    expect(copy.get(25544)!.groups).toEqual(['stations', 'visual'])
    expect(copy.origin).toEqual(catalog.origin)
    expect(copy.version).toBe(catalog.version)
  })

  test('anything else, or a transfer whose satellites were changed on the way, is refused', async () => {
    expect(() => catalogFromTransfer({ kind: 'other' } as never)).toThrow(/not a catalogue transfer/)
    const transfer = catalogTransfer(await embeddedCatalog())
    transfer.rows[0]![1] = 'SOMETHING ELSE'
    expect(() => catalogFromTransfer(transfer)).toThrow(/not [0-9a-f]+$/)
  })
})
