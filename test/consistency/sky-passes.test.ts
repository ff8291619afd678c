/**
 * GET /api/v1/passes against GET /api/v1/satellites/:noradId/passes over the
 * real catalogue, both ways: every pass the catalogue-wide route gives is the
 * per-satellite route's pass for that satellite, to the millisecond, and every
 * pass the per-satellite route gives for a satellite of the selection is in the
 * catalogue-wide answer. Over a day (hours=24 against days=1, the same window):
 * - all passes of whole groups (stations, weather, science, resource, military) for observers
 *   from the poles to the equator and the antimeridian, at thresholds 0°, 10° and 30°;
 * - visible-only over the whole catalogue (12k satellites, each asked for on its own route) for one night-time observer,
 *   and visible-only with a fainter limit over groups for the others.
 * Runs with `make test` (a few minutes of per-satellite searches), not `make test-unit`.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../src/domain/catalog/catalog.ts'
import { appFor, embeddedCatalog, request } from '../helpers/catalog.ts'

const T0 = '2026-05-31T12:00:00Z'
const OBSERVERS = [
  { name: 'Paris', q: 'latitude=48.8566&longitude=2.3522&altitude=35' },
  { name: 'Sydney', q: 'latitude=-33.8688&longitude=151.2093&altitude=58' },
  { name: 'Quito', q: 'latitude=-0.1807&longitude=-78.4678&altitude=2850' },
  { name: 'Longyearbyen', q: 'latitude=78.2232&longitude=15.6267&altitude=10' },
  { name: 'McMurdo', q: 'latitude=-77.846&longitude=166.676&altitude=10' },
  { name: 'Taveuni', q: 'latitude=-16.85&longitude=-179.95&altitude=0' },
]
const GROUPS = ['stations', 'weather', 'science', 'resource', 'military']

let catalog: Catalog
let app: ReturnType<typeof appFor>
beforeAll(async () => {
  catalog = await embeddedCatalog()
  app = appFor(catalog, Date.parse(T0))
})

const passOf = ({ noradId, name, elementAgeDays, magnitude, ...pass }: any) => pass

/** Both ways for every satellite in `ids`; returns the passes compared. */
async function compareBothWays(query: string, ids: number[], perSatellite: string): Promise<number> {
  const wide = await request(app, `/api/v1/passes?${query}`)
  expect(wide.status).toBe(200)
  const byId = new Map<number, any[]>()
  for (const p of wide.body.data) (byId.get(p.noradId) ?? byId.set(p.noradId, []).get(p.noradId)!).push(passOf(p))
  let compared = 0
  for (const id of ids) {
    const one = await request(app, `/api/v1/satellites/${id}/passes?${perSatellite}`)
    const own = one.status === 422 ? [] : one.body.data
    expect({ id, passes: byId.get(id) ?? [] }).toEqual({ id, passes: own })
    byId.delete(id)
    compared += own.length
  }
  // Nothing in the wide answer for a satellite outside the selection.
  expect([...byId.keys()]).toEqual([])
  return compared
}

const groupIds = (group: string) => catalog.satellites.filter((s) => s.groups.includes(group)).map((s) => s.noradId)

describe('the passes of the catalogue are the per-satellite passes, both ways', () => {
  test('all passes of whole groups, six observers, thresholds 0°, 10° and 30°', async () => {
    let compared = 0
    for (const [k, observer] of OBSERVERS.entries()) {
      const threshold = [0, 10, 30][k % 3]
      for (const group of GROUPS) {
        compared += await compareBothWays(
          `${observer.q}&time=${T0}&hours=24&group=${group}&elevation-threshold=${threshold}`,
          groupIds(group),
          `${observer.q}&time=${T0}&days=1&elevation-threshold=${threshold}`,
        )
      }
    }
    expect(compared).toBeGreaterThan(2000)
    console.log(`all passes of ${GROUPS.join(', ')} for ${OBSERVERS.length} observers: ${compared} passes equal both ways`)
  }, 600_000)

  test('visible-only with a fainter limit (6) over groups, six observers', async () => {
    let compared = 0
    for (const observer of OBSERVERS) {
      for (const group of GROUPS) {
        compared += await compareBothWays(
          `${observer.q}&time=${T0}&hours=24&group=${group}&visible-only=true&magnitude-limit=6`,
          groupIds(group),
          `${observer.q}&time=${T0}&days=1&visible-only=true&magnitude-limit=6`,
        )
      }
    }
    expect(compared).toBeGreaterThan(100)
    console.log(`visible-only (limit 6) for ${OBSERVERS.length} observers: ${compared} passes equal both ways`)
  }, 600_000)

  test('visible-only over the whole catalogue for a day over Paris: each of the 12k satellites on its own route', async () => {
    const observer = OBSERVERS[0]!
    const compared = await compareBothWays(
      `${observer.q}&time=${T0}&hours=24&visible-only=true`,
      catalog.satellites.map((s) => s.noradId),
      `${observer.q}&time=${T0}&days=1&visible-only=true`,
    )
    expect(compared).toBeGreaterThan(100)
    console.log(`visible-only, whole catalogue (${catalog.size} satellites) over Paris: ${compared} passes equal both ways`)
  }, 900_000)
})
