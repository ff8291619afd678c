/** findPassesSliced (src/domain/orbit/passes-sliced.ts) against the plain findPasses it slices: the same answer, given in slices. */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { findPasses, type PassQuery, type PassSearch } from '../../../src/domain/orbit/passes.ts'
import { findPassesSliced } from '../../../src/domain/orbit/passes-sliced.ts'
import type { Observer } from '../../../src/domain/orbit/sky.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'

const DAY = 86_400_000
const T0 = Date.UTC(2026, 4, 30, 7, 13)
const OBSERVERS: Observer[] = [
  { latitudeDeg: 48.8566, longitudeDeg: 2.3522, altitudeM: 35 },
  { latitudeDeg: -33.8688, longitudeDeg: 151.2093, altitudeM: 58 },
  { latitudeDeg: 78.2232, longitudeDeg: 15.6267, altitudeM: 10 },
  { latitudeDeg: 0, longitudeDeg: -75, altitudeM: 0 },
]

let catalog: Catalog
beforeAll(async () => {
  catalog = await embeddedCatalog()
})

function drive(generator: Generator<void, PassSearch>): { search: PassSearch; slices: number } {
  let slices = 0
  for (;;) {
    const step = generator.next()
    if (step.done) return { search: step.value, slices }
    slices++
  }
}

describe('findPassesSliced', () => {
  test('equals findPasses: ISS, 10 days, every observer, thresholds 0 and 10 and 45; in many slices', () => {
    const index = catalog.indexOf(25544)!
    for (const observer of OBSERVERS) {
      for (const minElevationDeg of [0, 10, 45]) {
        // With the brightness rule too: magnitudes at culmination, the brightest moment, windows within the limit.
        const query: PassQuery = { observer, startMs: T0, endMs: T0 + 10 * DAY, minElevationDeg, brightness: { standardMagnitude: -1.8, magnitudeLimit: 4.5 } }
        const { search, slices } = drive(findPassesSliced(catalog, index, query))
        expect(search).toEqual(findPasses(catalog, index, query))
        expect(slices).toBeGreaterThan(20)
      }
    }
  }, 60_000)

  test('equals findPasses for 120 satellites of every kind (LEO, MEO, GEO, eccentric, stale), a day, small slices', () => {
    const step = Math.floor(catalog.size / 120)
    let sliced = 0
    for (let i = 0; i < catalog.size; i += step) {
      const satellite = catalog.satellites[i]!
      const observer = OBSERVERS[i % OBSERVERS.length]!
      const query: PassQuery = {
        observer,
        startMs: T0 + (i % 7) * 3_600_000,
        endMs: T0 + DAY,
        minElevationDeg: i % 2 ? 10 : 0,
        ...(i % 3 === 0 ? { brightness: { standardMagnitude: 4, magnitudeLimit: 6 } } : {}),
      }
      const { search, slices } = drive(findPassesSliced(catalog, i, query, 40))
      expect({ noradId: satellite.noradId, search }).toEqual({ noradId: satellite.noradId, search: findPasses(catalog, i, query) })
      if (slices > 0) sliced++
    }
    expect(sliced).toBeGreaterThan(60)
  }, 120_000)

  test('an empty search (start = end) is the plain one', () => {
    const index = catalog.indexOf(25544)!
    const query: PassQuery = { observer: OBSERVERS[0]!, startMs: T0, endMs: T0, minElevationDeg: 10 }
    expect(drive(findPassesSliced(catalog, index, query)).search).toEqual(findPasses(catalog, index, query))
  })
})
