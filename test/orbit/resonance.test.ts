/** Checkpoints for the resonance integrator: the same SGP4 results as untouched records, to the last bit. */
import { beforeAll, expect, test } from 'bun:test'
import type { SatRec } from 'satellite.js'
import { type Catalog, fullSatrec } from '../../src/catalog/catalog.ts'
import { positionAt, siderealTimeRad } from '../../src/orbit/position.ts'
import { CHECKPOINT_MIN, MAX_CHECKPOINTS, registerResonance, seekResonance } from '../../src/orbit/resonance.ts'
import { embeddedCatalog } from '../helpers/catalog.ts'
import { random } from '../helpers/nearby.ts'

const DAY_MS = 86_400_000
type Resonant = SatRec & { irez: number; atime: number; xli: number; xni: number }
let catalog: Catalog
let resonant: number[]
beforeAll(async () => {
  catalog = await embeddedCatalog()
  resonant = catalog.satellites.flatMap((s, i) => ((fullSatrec(s.elements) as Resonant).irez ? [i] : []))
})

test("the catalogue's resonant records propagate exactly as untouched ones, at instants in any order, before the epoch and past the last checkpoint", () => {
  expect(resonant.length).toBeGreaterThan(400)
  const next = random(11)
  const checkpointMs = CHECKPOINT_MIN * 60_000
  let compared = 0
  for (const i of resonant) {
    const { elements } = catalog.satellites[i]!
    // Either side of checkpoints, a random order (back and forth), before the epoch, and beyond the 64th checkpoint.
    const instants = [3 * checkpointMs + 1, 3 * checkpointMs - 1, 20.5 * checkpointMs, 2 * checkpointMs, -5 * DAY_MS, (MAX_CHECKPOINTS + 3.3) * checkpointMs, 0.5 * checkpointMs]
    for (let k = 0; k < 3; k++) instants.push(Math.floor(next() * 600 * DAY_MS))
    for (const offsetMs of instants) {
      const instant = new Date(elements.epochMs + offsetMs)
      const gmst = siderealTimeRad(instant)
      // A fresh record every time: satellite.js on its own, integrating from the epoch.
      expect(positionAt(catalog.satrecAt(i), elements, instant, gmst)).toEqual(positionAt(fullSatrec(elements), elements, instant, gmst))
      compared++
    }
  }
  expect(compared).toBeGreaterThan(4_000)
})

test('checkpoints are kept only for registered resonant records, up to the last one', () => {
  const { elements } = catalog.satellites[resonant[0]!]!
  const satrec = fullSatrec(elements) as Resonant
  seekResonance(satrec, elements.epochMs + 100 * DAY_MS)
  expect(satrec.atime).toBe(0) // not registered: untouched
  registerResonance(satrec)
  seekResonance(satrec, elements.epochMs + 100 * DAY_MS)
  expect(satrec.atime).toBe(Math.floor((100 * 1440) / CHECKPOINT_MIN) * CHECKPOINT_MIN)
  seekResonance(satrec, elements.epochMs + 5000 * DAY_MS)
  expect(satrec.atime).toBe(MAX_CHECKPOINTS * CHECKPOINT_MIN)
  const leo = fullSatrec(catalog.get(25544)!.elements) as Resonant
  const before = { ...leo }
  registerResonance(leo)
  seekResonance(leo, elements.epochMs + 100 * DAY_MS)
  expect(leo).toEqual(before)
})
