/** The benchmark's reference routes: mounted only on request, and the plain loop answers exactly like /nearby. */
import { beforeAll, expect, test } from 'bun:test'
import { createApp } from '../../../src/http/app.ts'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { CatalogStore } from '../../../src/domain/catalog/store.ts'
import { embeddedCatalog, request } from '../../helpers/catalog.ts'
import { declaredParameters, describeParameters } from '../../helpers/params.ts'

let catalog: Catalog
beforeAll(async () => {
  catalog = await embeddedCatalog()
})

test('not mounted by default', async () => {
  const app = createApp({ store: new CatalogStore(catalog) })
  expect((await request(app, '/bench/hello')).status).toBe(404)
})

test('the plain loop gives the /nearby answer (same satellites, values within interpolation error)', async () => {
  const app = createApp({ store: new CatalogStore(catalog), benchRoutes: true })
  expect((await request(app, '/bench/hello')).text).toBe('hello')
  const query = 'latitude=40.4&longitude=-3.7&mode=extended&time=2026-05-31T01:23:45.678Z'
  const plain = (await request(app, `/bench/plain-nearby?${query}`)).body
  const fast = (await request(app, `/api/v1/satellites/nearby?${query}`)).body
  expect(plain.metadata).toEqual(fast.metadata)
  expect(plain.satellites.map((s: any) => s.noradId)).toEqual(fast.satellites.map((s: any) => s.noradId))
  for (let i = 0; i < plain.satellites.length; i++) {
    expect(Math.abs(plain.satellites[i].elevation - fast.satellites[i].elevation)).toBeLessThan(0.001)
    expect(Math.abs(plain.satellites[i].range - fast.satellites[i].range)).toBeLessThan(0.01)
  }
  // The same parameters as nearby (each refused outside its declaration: test/http/plugins/params.test.ts).
  const declared = declaredParameters(app)
  expect(describeParameters(declared.get('/bench/plain-nearby')!)).toEqual(describeParameters(declared.get('/api/v1/satellites/nearby')!))
})
