/** GET /api/v1/satellites with group, search, ids, page and page-size. */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { appFor, embeddedCatalog, request } from '../../helpers/catalog.ts'
import { declaredParameters, describeParameters } from '../../helpers/params.ts'

let catalog: Catalog
let app: ReturnType<typeof appFor>
beforeAll(async () => {
  catalog = await embeddedCatalog()
  app = appFor(catalog)
})

const list = (query: string, init?: RequestInit) => request(app, `/api/v1/satellites?${query}`, init)
const idsOf = (body: any) => body.data.map((s: any) => s.noradId)

describe('filters', () => {
  test('group: every member of the group, case-insensitive, ordered by noradId', async () => {
    const expected = catalog.satellites.filter((s) => s.groups.includes('weather')).map((s) => s.noradId)
    expect(expected.length).toBeGreaterThan(5)
    const { status, body } = await list('group=weather')
    expect(status).toBe(200)
    expect(idsOf(body)).toEqual(expected)
    expect(body.metadata).toEqual({ total: expected.length })
    expect(idsOf((await list('group=WEATHER')).body)).toEqual(expected)
    // The entries are the same Satellite objects as in the whole list.
    const whole = (await request(app, '/api/v1/satellites')).body.data
    expect(body.data[0]).toEqual(whole.find((s: any) => s.noradId === expected[0]))
  })

  test('a group the catalogue does not have: an empty list, not an error', async () => {
    const { status, body } = await list('group=nosuchgroup')
    expect(status).toBe(200)
    expect(body).toEqual({ data: [], metadata: { total: 0 } })
  })

  test('search: a case-insensitive part of the name', async () => {
    const { body } = await list('search=sTaRlInK-30')
    expect(body.data.length).toBeGreaterThan(5)
    for (const s of body.data) expect(s.name.toLowerCase()).toContain('starlink-30')
    const expected = catalog.satellites.filter((s) => s.name.toLowerCase().includes('starlink-30')).length
    expect(body.metadata.total).toBe(expected)
  })

  test('search: an exact catalog number (and names that contain the digits)', async () => {
    const { body } = await list('search=25544')
    expect(idsOf(body)).toContain(25544)
    for (const s of body.data) expect(s.noradId === 25544 || s.name.includes('25544')).toBe(true)
    // A number is not a prefix match on ids.
    expect(idsOf((await list('search=2554')).body)).not.toContain(25544)
  })

  test('search with no match: an empty list', async () => {
    expect((await list('search=zzzz-no-such-satellite')).body).toEqual({ data: [], metadata: { total: 0 } })
  })

  test('ids: only those satellites, ordered by noradId; unknown ids are simply absent', async () => {
    const { body } = await list('ids=25544,20580,999999999')
    expect(idsOf(body)).toEqual([20580, 25544])
    expect(body.metadata.total).toBe(2)
  })

  test('filters combine: every one given must hold', async () => {
    const { body } = await list('group=stations&search=iss&ids=25544,20580,49044')
    expect(idsOf(body)).toEqual([25544, 49044])
  })
})

describe('pages', () => {
  test('page and page-size cut the matches; metadata gains page, pageSize and pages; total counts all', async () => {
    const all = idsOf((await list('group=starlink')).body) as number[]
    expect(all.length).toBeGreaterThan(2500)
    const { body } = await list('group=starlink&page=3&page-size=1000')
    expect(body.metadata).toEqual({ total: all.length, page: 3, pageSize: 1000, pages: Math.ceil(all.length / 1000) })
    expect(idsOf(body)).toEqual(all.slice(2000, 3000))
  })

  test('the pages together are the whole list, each satellite once', async () => {
    const whole = idsOf((await request(app, '/api/v1/satellites')).body) as number[]
    const pages = Math.ceil(whole.length / 1000)
    const collected: number[] = []
    for (let page = 1; page <= pages; page++) {
      const { body } = await list(`page=${page}&page-size=1000`)
      expect(body.metadata.pages).toBe(pages)
      collected.push(...idsOf(body))
    }
    expect(collected).toEqual(whole)
  })

  test('defaults: page 1, 100 per page', async () => {
    expect((await list('page=2')).body.metadata).toEqual({ total: catalog.size, page: 2, pageSize: 100, pages: Math.ceil(catalog.size / 100) })
    const first = await list('page-size=7')
    expect(first.body.metadata).toMatchObject({ page: 1, pageSize: 7 })
    expect(idsOf(first.body)).toEqual(catalog.satellites.slice(0, 7).map((s) => s.noradId))
  })

  test('a page past the last is empty; no matches is zero pages', async () => {
    const past = await list('group=stations&page=99&page-size=10')
    expect(past.status).toBe(200)
    expect(past.body.data).toEqual([])
    expect(past.body.metadata.pages).toBe(Math.ceil(past.body.metadata.total / 10))
    expect((await list('group=nosuchgroup&page=1')).body.metadata).toEqual({ total: 0, page: 1, pageSize: 100, pages: 0 })
  })
})

describe('bad parameters', () => {
  test('parameters: as declared (each refused outside its declaration with a 400 naming it: test/http/plugins/params.test.ts); at most 100 ids', async () => {
    expect(describeParameters(declaredParameters(app).get('/api/v1/satellites')!)).toEqual([
      'group: text 1..100',
      'search: text 1..100',
      'ids: id list',
      'page: integer 1..1000000',
      'page-size: integer 1..1000',
    ])
    const { status, body } = await list(`ids=${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}`)
    expect(status).toBe(400)
    expect(body).toEqual({ statusCode: 400, message: 'ids must list at most 100 catalog numbers (got 101)' })
  })
})

describe('representations', () => {
  test('a search or group that is not valid percent-encoding is a 400 naming it and the value, not an empty list; well-encoded text is searched', async () => {
    for (const [query, message] of [
      ['search=%ZZ', 'search must be 1 to 100 characters (got "%ZZ", which is not valid percent-encoding)'],
      ['group=%ZZ', 'group must be 1 to 100 characters (got "%ZZ", which is not valid percent-encoding)'],
      ['group=weather&search=iss%', 'search must be 1 to 100 characters (got "iss%", which is not valid percent-encoding)'],
      ['search=%FF', 'search must be 1 to 100 characters (got "%FF", which is not valid percent-encoding)'],
      ['sea%ZZrch=iss', 'a query parameter name must be valid percent-encoding (got "sea%ZZrch")'],
    ]) {
      const r = await list(query!)
      expect({ query, status: r.status, body: r.body }).toEqual({ query, status: 400, body: { message, statusCode: 400 } })
    }
    // Well-encoded: `%20` and `+` are spaces, `%25` a percent sign; an unknown parameter's value is ignored, as it is.
    const spaced = idsOf((await list('search=iss%20(zarya)')).body)
    expect(spaced.length).toBeGreaterThan(0)
    expect(idsOf((await list('search=iss+(zarya)&utm=%ZZ')).body)).toEqual(spaced)
    expect((await list('search=100%25')).status).toBe(200)
  })

  test('without filters the whole catalogue comes as before; unknown parameters do not make a search', async () => {
    const plain = await request(app, '/api/v1/satellites')
    const other = await list('foo=bar')
    expect(other.text).toBe(plain.text)
    expect(other.headers.get('etag')).toBe(plain.headers.get('etag'))
    expect(plain.body.metadata).toEqual({ total: catalog.size })
  })

  test('a search has its own strong ETag, 304 on a match; equal searches share it', async () => {
    const first = await list('group=stations&search=ISS')
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[0-9a-z]+"$/)
    expect(etag).not.toBe((await request(app, '/api/v1/satellites')).headers.get('etag'))
    expect((await list('group=STATIONS&search=iss')).headers.get('etag')).toBe(etag)
    expect((await list('group=stations&search=ISS', { headers: { 'if-none-match': etag } })).status).toBe(304)
    expect((await list('group=stations&search=ISS&page=1', { headers: { 'if-none-match': etag } })).status).toBe(200)
  })

  test('a large search is compressed when the client accepts it', async () => {
    const res = await app.handle(new Request('http://localhost/api/v1/satellites?group=starlink', { headers: { 'accept-encoding': 'gzip' } }))
    expect(res.headers.get('content-encoding')).toBe('gzip')
    const body = JSON.parse(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await res.arrayBuffer()))))
    expect(body.metadata.total).toBeGreaterThan(2500)
  })

  test('the parameters are in the OpenAPI document', async () => {
    const spec = (await request(app, '/openapi/json')).body
    const names = spec.paths['/api/v1/satellites'].get.parameters.map((p: any) => p.name)
    expect(names.sort()).toEqual(['group', 'ids', 'page', 'page-size', 'search'])
  })
})
