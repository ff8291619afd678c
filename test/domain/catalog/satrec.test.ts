/** The compact near-earth SGP4 records propagate exactly like satellite.js's full ones. */
import { describe, expect, test } from 'bun:test'
import { propagate } from 'satellite.js'
import { createSatrec, fullSatrec } from '../../../src/domain/catalog/catalog.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'

describe('createSatrec', () => {
  test('gives every satellite of the catalogue the same positions, velocities and errors as the full record, bit for bit', async () => {
    const catalog = await embeddedCatalog()
    const kinds = new Set<string>()
    let compared = 0
    for (const satellite of catalog.satellites) {
      const compact = createSatrec(satellite.elements)
      const full = fullSatrec(satellite.elements)
      kinds.add(full.method)
      if (full.method === 'n') expect(Object.keys(compact).length).toBeLessThan(Object.keys(full).length / 2.5)
      // At the epoch, a day later, and far from it (stale elements: decay errors included).
      for (const days of [0, 1.37, 200]) {
        const at = new Date(satellite.elements.epochMs + days * 86_400_000)
        const a = propagate(compact, at)
        const b = propagate(full, at)
        expect(compact.error).toBe(full.error)
        expect(a).toEqual(b)
        compared++
      }
    }
    expect([...kinds].sort()).toEqual(['d', 'n'])
    expect(compared).toBe(3 * catalog.size)
  })
})
