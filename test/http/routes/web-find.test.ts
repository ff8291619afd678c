/** GET /app/find.json?q=: the page's search box over the whole catalogue. */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { findSatellites } from '../../../src/domain/catalog/find.ts'
import { FIND_LIMIT } from '../../../src/http/routes/web/find.ts'
import { appFor, embeddedCatalog, request } from '../../helpers/catalog.ts'

let catalog: Catalog
let app: ReturnType<typeof appFor>
beforeAll(async () => {
  catalog = await embeddedCatalog()
  app = appFor(catalog)
})

const find = (q: string) => request(app, `/app/find.json?q=${encodeURIComponent(q)}`)

describe('/app/find.json', () => {
  test('a common name: the satellite, its designator, how it matched and the name that did', async () => {
    const { status, headers, body } = await find('hubble')
    expect(status).toBe(200)
    expect(headers.get('content-type')).toContain('application/json')
    expect(headers.get('cache-control')).toBe('no-cache')
    expect(body.data[0]).toEqual({ noradId: 20580, name: 'HST', designator: '1990-037B', match: 'common name', commonName: 'Hubble' })
  })

  test('the suggestions are findSatellites\' first FIND_LIMIT, in its order', async () => {
    for (const q of ['starlink', '25544', '1998-067', 'iss']) {
      const { body } = await find(q)
      const expected = findSatellites(catalog, q, FIND_LIMIT)
      expect(body.data.map((s: any) => [s.noradId, s.match])).toEqual(expected.map((f) => [f.satellite.noradId, f.match]))
    }
    expect((await find('starlink')).body.data).toHaveLength(FIND_LIMIT)
    // Only a common-name match says which.
    for (const s of (await find('starlink')).body.data) expect(s).not.toHaveProperty('commonName')
  })

  test('nothing matching: an empty list, not an error', async () => {
    expect(await find('no such satellite')).toMatchObject({ status: 200, body: { data: [] } })
  })

  test('q missing, empty, repeated or too long: 400 naming q and its rule', async () => {
    for (const path of ['/app/find.json', '/app/find.json?q=', '/app/find.json?q=a&q=b', `/app/find.json?q=${'x'.repeat(101)}`]) {
      const { status, body } = await request(app, path)
      expect(status, path).toBe(400)
      expect(body.message, path).toMatch(/^q /)
    }
    expect((await request(app, `/app/find.json?q=${'x'.repeat(101)}`)).body.message).toContain('100')
  })
})
