/**
 * The modules' sweeps of what their answers stopped using (createApp's
 * `sweeps`, run by src/io/idle-sweep.ts): whatever was let go, the answers
 * are the same bytes, ETags included, and made again only when asked for.
 */
import { beforeAll, expect, test } from 'bun:test'
import type { Catalog } from '../../src/domain/catalog/catalog.ts'
import { CatalogStore } from '../../src/domain/catalog/store.ts'
import { createApp } from '../../src/http/app.ts'
import { IdleSweeps } from '../../src/io/idle-sweep.ts'
import { embeddedCatalog } from '../helpers/catalog.ts'

let catalog: Catalog
beforeAll(async () => {
  catalog = await embeddedCatalog()
})

test('the list, a search, one satellite, a feed and /nearby answer the same before and after everything was swept', async () => {
  const sweeps = new IdleSweeps()
  const app = createApp({ store: new CatalogStore(catalog), clock: () => Date.UTC(2026, 4, 31, 12), sweeps })
  const paths = [
    '/api/v1/satellites',
    '/api/v1/satellites?search=starlink&page-size=50',
    '/api/v1/satellites/25544',
    '/NORAD/elements/gp.php?GROUP=stations&FORMAT=json',
    '/api/v1/satellites/nearby?latitude=51.5&longitude=-0.12&time=2026-05-31T00:30:00Z',
    '/api/v1/satellites/nearby?latitude=51.5&longitude=-0.12&time=2026-06-07T03:04:05.678Z',
  ]
  const answers = async () =>
    Promise.all(
      paths.map(async (path) => {
        const response = await app.handle(new Request(`http://localhost${path}`))
        return { path, status: response.status, etag: response.headers.get('etag'), body: await response.text() }
      }),
    )
  // The second request for a /nearby interval is answered from position tables (the first, from SGP4 at once).
  await answers()
  const before = await answers()
  expect(before.every((a) => a.status === 200)).toBe(true)
  // Two sweeps with no request between: everything cached is let go.
  sweeps.sweep()
  sweeps.sweep()
  expect(await answers()).toEqual(before)
  // A 304 for the list's ETag after a sweep too.
  sweeps.sweep()
  sweeps.sweep()
  const revalidated = await app.handle(new Request('http://localhost/api/v1/satellites', { headers: { 'if-none-match': before[0]!.etag! } }))
  expect(revalidated.status).toBe(304)
})
