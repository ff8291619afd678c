/** GET /api/v1/satellites, /:noradId, /:noradId/geoposition and /iss through app.handle. */
import { NO_AGE_LIMIT } from '../../../src/domain/orbit/validity.ts'
import { beforeAll, describe, expect, test } from 'bun:test'
import { brotliDecompressSync } from 'node:zlib'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { appFor, embeddedCatalog, request } from '../../helpers/catalog.ts'
import { declaredParameters, describeParameters } from '../../helpers/params.ts'
import { SATELLITE_KEYS } from '../../helpers/contract.ts'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const NOW = Date.UTC(2026, 4, 31, 6)

let catalog: Catalog
let app: ReturnType<typeof appFor>
beforeAll(async () => {
  catalog = await embeddedCatalog()
  app = appFor(catalog, NOW)
})

describe('GET /api/v1/satellites', () => {
  test('the whole catalogue, ordered by noradId, with the Satellite shape', async () => {
    const { status, headers, body } = await request(app, '/api/v1/satellites')
    expect(status).toBe(200)
    expect(headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(body.metadata).toEqual({ total: catalog.size })
    expect(body.data).toHaveLength(catalog.size)
    expect(catalog.size).toBeGreaterThan(11000)
    const ids = body.data.map((s: any) => s.noradId)
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b))
    expect(new Set(ids).size).toBe(ids.length)
    for (const s of body.data) {
      expect(Object.keys(s).sort()).toEqual(SATELLITE_KEYS)
      expect(s.epoch).toMatch(ISO_MS)
      expect(s.labels.filter((l: string) => ['LEO', 'MEO', 'GEO', 'HEO'].includes(l))).toHaveLength(1)
      expect(s.groups).toEqual([...new Set(s.groups as string[])].sort())
      expect(s.tle.line1).toHaveLength(69)
      for (const v of Object.values(s.orbitalParams)) expect(Number.isFinite(v)).toBe(true)
    }
  })

  test('a satellite in several groups is one entry listing all of them', async () => {
    const { body } = await request(app, '/api/v1/satellites')
    expect(body.data.some((s: any) => s.groups.length > 1)).toBe(true)
  })

  test('strong ETag; If-None-Match answers 304', async () => {
    const first = await request(app, '/api/v1/satellites')
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[0-9a-z]+"$/)
    expect(first.headers.get('cache-control')).toContain('max-age')
    const again = await request(app, '/api/v1/satellites', { headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
    expect(again.text).toBe('')
    expect(again.headers.get('etag')).toBe(etag)
    const listed = await request(app, '/api/v1/satellites', { headers: { 'if-none-match': `"other", ${etag}` } })
    expect(listed.status).toBe(304)
    const other = await request(app, '/api/v1/satellites', { headers: { 'if-none-match': '"nope"' } })
    expect(other.status).toBe(200)
  })

  test('compressed once per catalogue: brotli or gzip as the client accepts, same content', async () => {
    const plain = await app.handle(new Request('http://localhost/api/v1/satellites'))
    const identity = new Uint8Array(await plain.arrayBuffer())
    for (const [accept, encoding, decode] of [
      ['gzip, deflate, br', 'br', (b: Uint8Array) => brotliDecompressSync(b)],
      ['gzip;q=1, br;q=0', 'gzip', (b: Uint8Array) => Bun.gunzipSync(b as Uint8Array<ArrayBuffer>)],
    ] as const) {
      const res = await app.handle(new Request('http://localhost/api/v1/satellites', { headers: { 'accept-encoding': accept } }))
      expect(res.headers.get('content-encoding')).toBe(encoding)
      expect(res.headers.get('vary')).toBe('Accept-Encoding')
      const body = new Uint8Array(await res.arrayBuffer())
      expect(body.length).toBeLessThan(identity.length / 3)
      expect(new Uint8Array(decode(body))).toEqual(identity)
      // The encoded variant's tag differs, and it still validates a conditional request.
      const tag = res.headers.get('etag')!
      expect(tag).not.toBe(plain.headers.get('etag'))
      const cond = await app.handle(new Request('http://localhost/api/v1/satellites', { headers: { 'accept-encoding': accept, 'if-none-match': tag } }))
      expect(cond.status).toBe(304)
    }
    const none = await app.handle(new Request('http://localhost/api/v1/satellites', { headers: { 'accept-encoding': 'identity' } }))
    expect(none.headers.get('content-encoding')).toBeNull()
  })
})

describe('GET /api/v1/satellites/:noradId', () => {
  test('one satellite', async () => {
    const { status, body } = await request(app, '/api/v1/satellites/25544')
    expect(status).toBe(200)
    expect(body.metadata).toEqual({ total: 1 })
    expect(body.data.name).toBe('ISS (ZARYA)')
    expect(body.data.labels).toContain('LEO')
    expect(body.data.groups).toContain('stations')
  })

  test('one satellite has its own ETag and answers 304 to it', async () => {
    const first = await request(app, '/api/v1/satellites/25544')
    const second = await request(app, '/api/v1/satellites/20580')
    expect(first.headers.get('etag')).not.toBe(second.headers.get('etag'))
    const again = await request(app, '/api/v1/satellites/25544', { headers: { 'if-none-match': first.headers.get('etag')! } })
    expect(again.status).toBe(304)
  })

  test('a catalog number not in the catalogue: 404; parameters as declared (each refused outside its declaration: test/http/plugins/params.test.ts)', async () => {
    const { status, body } = await request(app, '/api/v1/satellites/999999999')
    expect(status).toBe(404)
    expect(body).toEqual({ statusCode: 404, message: 'satellite 999999999 is not in the catalogue' })
    const declared = declaredParameters(app)
    expect(describeParameters(declared.get('/api/v1/satellites/:noradId')!)).toEqual(['noradId: integer 1..999999999 (path)'])
    expect(describeParameters(declared.get('/api/v1/satellites/:noradId/geoposition')!)).toEqual(['noradId: integer 1..999999999 (path)', 'time: instant'])
    expect(describeParameters(declared.get('/api/v1/satellites/iss')!)).toEqual(['time: instant'])
  })
})

describe('GET /api/v1/satellites/:noradId/geoposition', () => {
  test('position at the given time, echoing the instant and the element epoch', async () => {
    const { status, body } = await request(app, '/api/v1/satellites/25544/geoposition?time=2026-05-31T00:00:00%2B02:00')
    expect(status).toBe(200)
    expect(Object.keys(body).sort()).toEqual(['altitude', 'datetime', 'elementAgeDays', 'epoch', 'latitude', 'longitude', 'name', 'noradId'])
    expect(body.elementAgeDays).toBe(Math.round(((Date.parse('2026-05-30T22:00:00Z') - catalog.get(25544)!.elements.epochMs) / 86_400_000) * 1000) / 1000)
    expect(body.datetime).toBe('2026-05-30T22:00:00.000Z')
    expect(body.epoch).toBe(new Date(catalog.get(25544)!.elements.epochMs).toISOString())
    expect(Math.abs(body.latitude)).toBeLessThanOrEqual(51.7)
    expect(body.longitude).toBeGreaterThanOrEqual(-180)
    expect(body.longitude).toBeLessThanOrEqual(180)
    expect(body.altitude).toBeGreaterThan(380)
    expect(body.altitude).toBeLessThan(440)
  })

  test('without time, the clock is used', async () => {
    const { body } = await request(app, '/api/v1/satellites/25544/geoposition')
    expect(body.datetime).toBe(new Date(NOW).toISOString())
  })

  test('the ISS moves: two instants a minute apart differ by about 460 km of ground', async () => {
    const a = (await request(app, '/api/v1/satellites/25544/geoposition?time=2026-05-31T00:00:00Z')).body
    const b = (await request(app, '/api/v1/satellites/25544/geoposition?time=2026-05-31T00:01:00Z')).body
    const rad = Math.PI / 180
    const cosC =
      Math.sin(a.latitude * rad) * Math.sin(b.latitude * rad) +
      Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.cos((b.longitude - a.longitude) * rad)
    const groundKm = Math.acos(Math.min(1, cosC)) * 6371
    expect(groundKm).toBeGreaterThan(400)
    expect(groundKm).toBeLessThan(500)
  })

  test('elements beyond the age limit: 422 saying how old they are and what the limit is', async () => {
    const { status, body } = await request(app, '/api/v1/satellites/25544/geoposition?time=2026-11-22T10:00:00Z')
    expect(status).toBe(422)
    const epoch = new Date(catalog.get(25544)!.elements.epochMs).toISOString()
    expect(body).toEqual({
      statusCode: 422,
      message: `satellite 25544 has no valid position at 2026-11-22T10:00:00.000Z: the elements are 176 days old at this instant (epoch ${epoch}); positions are given within 30 days of the epoch (--max-element-age)`,
    })
  })

  test('decayed elements: 422 with the decay instant, at every later instant', async () => {
    // 48880 decays (by its own elements) in June 2026; SGP4 alone would still give positions at some later instants.
    const first = await request(app, '/api/v1/satellites/48880/geoposition?time=2026-06-20T10:00:00Z')
    expect(first.status).toBe(422)
    const decayed = /decayed at (2026-06-\d\dT[\d:.]+Z) \(.*\); no later positions$/
    const decayAt = first.body.message.match(decayed)![1]
    const open = appFor(catalog.withPolicy(NO_AGE_LIMIT), NOW)
    for (const time of ['2026-06-20T10:00:00Z', '2026-08-01T00:00:00Z', '2026-11-22T10:00:00Z', '2030-01-01T00:00:00Z']) {
      const { status, body } = await request(open, `/api/v1/satellites/48880/geoposition?time=${time}`)
      expect(status).toBe(422)
      expect(body.message.match(decayed)![1]).toBe(decayAt)
    }
    // Just before the decay instant, a position, at a plausible height.
    const before = await request(app, `/api/v1/satellites/48880/geoposition?time=${new Date(Date.parse(decayAt) - 1).toISOString()}`)
    expect(before.status).toBe(200)
    expect(before.body.altitude).toBeGreaterThanOrEqual(80)
  })

  test.each([
    ['/api/v1/satellites/999999/geoposition', 404, 'satellite 999999 is not in the catalogue'],
  ])('%s → %i', async (path, status, message) => {
    const res = await request(app, path)
    expect(res.status).toBe(status)
    expect(res.body.statusCode).toBe(status)
    expect(res.body.message).toContain(message)
  })
})

describe('GET /api/v1/satellites/iss', () => {
  test('Satellite plus geoposition, metadata with total and datetime', async () => {
    const { status, body } = await request(app, '/api/v1/satellites/iss?time=2026-05-31T00:00:00Z')
    expect(status).toBe(200)
    expect(Object.keys(body.data).sort()).toEqual([...SATELLITE_KEYS, 'geoposition'].sort())
    expect(body.data.noradId).toBe(25544)
    expect(body.metadata).toEqual({
      total: 1,
      datetime: '2026-05-31T00:00:00.000Z',
      elementAgeDays: Math.round(((Date.parse('2026-05-31T00:00:00Z') - catalog.get(25544)!.elements.epochMs) / 86_400_000) * 1000) / 1000,
    })
    const geo = (await request(app, '/api/v1/satellites/25544/geoposition?time=2026-05-31T00:00:00Z')).body
    expect(body.data.geoposition).toEqual({ latitude: geo.latitude, longitude: geo.longitude, altitude: geo.altitude })
  })

  test('404 when the catalogue has no 25544', async () => {
    const { buildCatalog } = await import('../../../src/domain/catalog/catalog.ts')
    const without = buildCatalog(
      [{ group: 'g', elements: catalog.satellites.filter((s) => s.noradId !== 25544).slice(0, 3).map((s) => s.elements) }],
      { source: 'snapshot', obtainedAtMs: 0 },
      0,
    )
    const { status, body } = await request(appFor(without), '/api/v1/satellites/iss')
    expect(status).toBe(404)
    expect(body).toEqual({ statusCode: 404, message: 'satellite 25544 is not in the catalogue' })
  })
})
