/**
 * The executable runs with response checks off (createApp's checkResponses: false); the tests run
 * with them on. Both must answer byte for byte the same, so the suite's checks speak for the service.
 */
import { describe, expect, test } from 'bun:test'
import { createApp } from '../../../src/http/app.ts'
import { CatalogStore } from '../../../src/domain/catalog/store.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'

const NOW_MS = Date.UTC(2026, 4, 31, 6)
const PATHS = [
  '/api/v1/service/healthcheck',
  '/api/v1/satellites?search=iss&page=1&page-size=3',
  '/api/v1/satellites?page=99999',
  '/api/v1/satellites/25544',
  '/api/v1/satellites/25544/geoposition',
  '/api/v1/satellites/25544/geoposition?time=2026-06-01T00:00:00Z',
  '/api/v1/satellites/geoposition?ids=25544,20580,1',
  '/api/v1/satellites/iss',
  '/api/v1/satellites/nearby?latitude=48.85&longitude=2.35',
  '/api/v1/satellites/nearby?latitude=-33.9&longitude=151.2&mode=extended&elevation-threshold=20',
  '/api/v1/satellites/nearby?latitude=51.5&longitude=-0.12&time=2026-05-31T00:30:00Z&frequency=437.8&azimuth-range-from=300&azimuth-range-to=60',
  '/api/v1/satellites/nearby?latitude=51.5&longitude=-0.12&time=2026-05-31T00:30:00Z&visible-only=true&magnitude-limit=6',
  '/api/v1/satellites/nearby?latitude=10&longitude=20&time=2026-12-31T00:00:00Z',
  '/api/v1/satellites/25544/passes?latitude=48.85&longitude=2.35&days=2',
  '/api/v1/satellites/25544/positions?step=600',
  '/api/v1/satellites/25544/positions?step=600&format=geojson',
  '/api/v1/satellites/1/geoposition',
  '/api/v1/satellites/nearby?latitude=91&longitude=0',
  '/api/v1/satellites/25544/geoposition?time=1957-10-04T00:00:00Z',
]

describe('answers without response checks', () => {
  test('are the same as with them, for every kind of route and status', async () => {
    const catalog = await embeddedCatalog()
    const checked = createApp({ store: new CatalogStore(catalog), clock: () => NOW_MS })
    const unchecked = createApp({ store: new CatalogStore(catalog), clock: () => NOW_MS, checkResponses: false })
    const statuses = new Set<number>()
    for (const path of PATHS) {
      const a = await checked.handle(new Request(`http://localhost${path}`))
      const b = await unchecked.handle(new Request(`http://localhost${path}`))
      statuses.add(a.status)
      expect({ path, status: b.status, type: b.headers.get('content-type'), body: await b.text() }).toEqual({ path, status: a.status, type: a.headers.get('content-type'), body: await a.text() })
    }
    expect([...statuses].sort()).toEqual([200, 400, 404, 422])
  })
})
