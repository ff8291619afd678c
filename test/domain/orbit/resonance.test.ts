/** Checkpoints for the resonance integrator: the same SGP4 results as untouched records, to the last bit. */
import { beforeAll, expect, test } from 'bun:test'
import type { SatRec } from 'satellite.js'
import { buildCatalog, type Catalog, fullSatrec } from '../../../src/domain/catalog/catalog.ts'
import { positionAt, siderealTimeRad } from '../../../src/domain/orbit/position.ts'
import { CHECKPOINT_MIN, COARSE_EVERY, FINE_CHECKPOINTS, prepareResonance, registerResonance, seekResonance } from '../../../src/domain/orbit/resonance.ts'
import { NO_AGE_LIMIT } from '../../../src/domain/orbit/validity.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'
import { random } from '../../helpers/nearby.ts'

const DAY_MS = 86_400_000
type Resonant = SatRec & { irez: number; atime: number; xli: number; xni: number }
let catalog: Catalog
let resonant: number[]
beforeAll(async () => {
  // Decades from the epochs: no limit on element age (decay and plausibility still apply, to both sides alike).
  catalog = (await embeddedCatalog()).withPolicy(NO_AGE_LIMIT)
  resonant = catalog.satellites.flatMap((s, i) => ((fullSatrec(s.elements) as Resonant).irez ? [i] : []))
})

test("the catalogue's resonant records propagate exactly as untouched ones, at instants in any order, either side of the epoch, near and far", () => {
  expect(resonant.length).toBeGreaterThan(400)
  const next = random(11)
  const checkpointMs = CHECKPOINT_MIN * 60_000
  const YEAR_MS = 365.25 * DAY_MS
  let compared = 0
  resonant.forEach((i, nth) => {
    const { elements } = catalog.satellites[i]!
    // Either side of checkpoints, a random order (back and forth), before the epoch, and past the fine checkpoints.
    const instants = [3 * checkpointMs + 1, 3 * checkpointMs - 1, 20.5 * checkpointMs, 2 * checkpointMs, -5 * DAY_MS, (FINE_CHECKPOINTS + 3.3) * checkpointMs, 0.5 * checkpointMs]
    for (let k = 0; k < 3; k++) instants.push(Math.floor(next() * 600 * DAY_MS))
    // For one record in ten (each costs satellite.js decades of steps): decades away on both sides, between coarse
    // checkpoints forwards and back, on one, just past the fine ones, and at random.
    if (nth % 10 === 0) {
      const coarseMs = COARSE_EVERY * checkpointMs
      instants.push(30 * YEAR_MS, 30 * YEAR_MS + 3 * DAY_MS, 30 * YEAR_MS + 20 * DAY_MS, 29.9 * YEAR_MS, 12 * coarseMs, 12 * coarseMs - 1, (FINE_CHECKPOINTS + 1) * checkpointMs)
      instants.push(-40 * YEAR_MS, -39.95 * YEAR_MS, -(FINE_CHECKPOINTS + 0.5) * checkpointMs, -3 * checkpointMs, -68 * YEAR_MS)
      for (let k = 0; k < 3; k++) instants.push(Math.floor((next() - 0.4) * 120 * YEAR_MS))
    }
    for (const offsetMs of instants) {
      const instant = new Date(elements.epochMs + offsetMs)
      const gmst = siderealTimeRad(instant)
      // A fresh record every time: satellite.js on its own, integrating from the epoch.
      expect(positionAt(catalog, i, instant, gmst)).toEqual(positionAt(catalog, i, instant, gmst, fullSatrec(elements)))
      compared++
    }
  })
  expect(compared).toBeGreaterThan(4_000)
})

test('checkpoints are kept only for registered resonant records', () => {
  const { elements } = catalog.satellites[resonant[0]!]!
  const satrec = fullSatrec(elements) as Resonant
  seekResonance(satrec, elements.epochMs + 100 * DAY_MS)
  expect(satrec.atime).toBe(0) // not registered: untouched
  registerResonance(satrec)
  seekResonance(satrec, elements.epochMs + 100 * DAY_MS)
  // The latest checkpoint at or before the instant, on its side of the epoch, near or decades away.
  for (const days of [100.3, 5000.5, 5003, -100.3, -20_000.5]) {
    seekResonance(satrec, elements.epochMs + days * DAY_MS)
    expect(satrec.atime).toBe(Math.trunc((days * 1440) / CHECKPOINT_MIN) * CHECKPOINT_MIN)
  }
  const leo = fullSatrec(catalog.get(25544)!.elements) as Resonant
  const before = { ...leo }
  registerResonance(leo)
  seekResonance(leo, elements.epochMs + 100 * DAY_MS)
  expect(leo).toEqual(before)
})

test('prepareResonance makes far checkpoints a record at a time (yielding between them, so a caller can let other work run), and only once', () => {
  // A catalogue of its own: no checkpoints made yet.
  const fresh = buildCatalog([{ group: 'g', elements: catalog.satellites.map((s) => s.elements) }], { source: 'snapshot', obtainedAtMs: 0 }, 0).withPolicy(NO_AGE_LIMIT)
  const satrecs = fresh.resonantSatrecs
  expect(satrecs.length).toBe(resonant.length)
  // Within the fine checkpoints of every epoch: nothing to prepare.
  expect(prepareResonance(satrecs, Date.UTC(2026, 6, 1))).toBeUndefined()
  const far = Date.UTC(2099, 5, 1)
  const preparing = prepareResonance(satrecs, far)
  let pauses = 0
  for (let step = preparing!.next(); !step.done; step = preparing!.next()) pauses++
  expect(pauses).toBe(satrecs.length) // a pause after every record: each needed far checkpoints
  // Done: nothing left there, nor anywhere nearer on that side.
  expect(prepareResonance(satrecs, far)).toBeUndefined()
  expect(prepareResonance(satrecs, Date.UTC(2060, 0, 1))).toBeUndefined()
  // And the positions there are satellite.js's own.
  const instant = new Date(far + 3 * DAY_MS)
  const gmst = siderealTimeRad(instant)
  resonant.forEach((i, nth) => {
    if (nth % 25 !== 0) return
    const { elements } = fresh.satellites[i]!
    expect(positionAt(fresh, i, instant, gmst)).toEqual(positionAt(fresh, i, instant, gmst, fullSatrec(elements)))
  })
})
