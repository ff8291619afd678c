/** GET /api/v1/satellites/:noradId/positions: ground tracks as points and as GeoJSON. */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { CatalogStore } from '../../../src/domain/catalog/store.ts'
import { createApp } from '../../../src/http/app.ts'
import { appFor, embeddedCatalog, request } from '../../helpers/catalog.ts'
import { NO_AGE_LIMIT } from '../../../src/domain/orbit/validity.ts'
import { declaredParameters, describeParameters } from '../../helpers/params.ts'

const NOW = Date.UTC(2026, 4, 31, 6)
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

let catalog: Catalog
let app: ReturnType<typeof appFor>
beforeAll(async () => {
  catalog = await embeddedCatalog()
  app = appFor(catalog, NOW)
})

const positions = (id: number, query = '') => request(app, `/api/v1/satellites/${id}/positions${query ? `?${query}` : ''}`)

describe('JSON points', () => {
  test('from, from + step, … to (inclusive); each point equals the geoposition at its instant', async () => {
    const { status, headers, body } = await positions(25544, 'from=2026-05-31T00:00:00Z&to=2026-05-31T00:10:00Z&step=120')
    expect(status).toBe(200)
    expect(headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(body.data.map((p: any) => p.datetime)).toEqual([0, 2, 4, 6, 8, 10].map((m) => `2026-05-31T00:${String(m).padStart(2, '0')}:00.000Z`))
    expect(body.metadata).toEqual({
      noradId: 25544,
      name: 'ISS (ZARYA)',
      epoch: catalog.get(25544)!.epoch,
      from: '2026-05-31T00:00:00.000Z',
      to: '2026-05-31T00:10:00.000Z',
      step: 120,
      total: 6,
      omitted: 0,
      omittedReason: null,
      elementAgeDays: Math.round(((Date.parse('2026-05-31T00:00:00Z') - catalog.get(25544)!.elements.epochMs) / 86_400_000) * 1000) / 1000,
    })
    for (const p of body.data) {
      expect(Object.keys(p)).toEqual(['datetime', 'latitude', 'longitude', 'altitude'])
      const geo = (await request(app, `/api/v1/satellites/25544/geoposition?time=${p.datetime}`)).body
      expect(p).toEqual({ datetime: geo.datetime, latitude: geo.latitude, longitude: geo.longitude, altitude: geo.altitude })
    }
  })

  test('to between steps is not sampled; to = from is one point', async () => {
    expect((await positions(25544, 'from=2026-05-31T00:00:00Z&to=2026-05-31T00:02:59Z&step=60')).body.metadata.total).toBe(3)
    expect((await positions(25544, 'from=2026-05-31T00:00:00Z&to=2026-05-31T00:00:00Z')).body.data).toHaveLength(1)
  })

  test('defaults: from now, one orbital period, a point a minute', async () => {
    const { body } = await positions(25544)
    const periodMin = catalog.get(25544)!.orbitalParams.orbitalPeriod
    expect(body.metadata.from).toBe(new Date(NOW).toISOString())
    expect(body.metadata.step).toBe(60)
    expect(body.data).toHaveLength(Math.floor(periodMin) + 1)
    expect(Date.parse(body.metadata.to) - NOW).toBe(Math.round(periodMin * 60_000))
    expect(body.data[0].datetime).toMatch(ISO_MS)
  })

  test('the default interval is shortened to what 10,000 points allow', async () => {
    const { status, body } = await positions(25544, 'from=2026-05-31T00:00:00Z&step=1')
    expect(status).toBe(200)
    expect(body.data).toHaveLength(Math.min(10_000, Math.floor(catalog.get(25544)!.orbitalParams.orbitalPeriod * 60) + 1))
  })

  test('the ISS stays within its inclination and height band', async () => {
    const { body } = await positions(25544, 'from=2026-05-31T00:00:00Z&to=2026-06-01T00:00:00Z&step=30')
    expect(body.data).toHaveLength(2881)
    for (const p of body.data) {
      expect(Math.abs(p.latitude)).toBeLessThan(52)
      expect(p.altitude).toBeGreaterThan(370)
      expect(p.altitude).toBeLessThan(450)
    }
  })

  test('instants without a position are left out and counted; none at all is a 422', async () => {
    // STARLINK-3004's elements decay a few months after their epoch.
    const partial = await positions(48880, 'from=2026-06-01T00:00:00Z&to=2026-11-22T00:00:00Z&step=86400')
    expect(partial.status).toBe(200)
    expect(partial.body.metadata.total).toBeGreaterThan(0)
    expect(partial.body.metadata.omitted).toBeGreaterThan(0)
    expect(partial.body.metadata.total + partial.body.metadata.omitted).toBe(175)
    const none = await positions(48880, 'from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z&step=3600')
    expect(none.status).toBe(422)
    expect(none.body.message).toMatch(/^satellite 48880 has no valid position between 2026-11-22T00:00:00.000Z and 2026-11-23T00:00:00.000Z: at 2026-11-22T00:00:00.000Z, decayed at 2026-06-14T[\d:.]+Z \(the lowest point of its orbit is below 80 km\); no later positions$/)
    expect(partial.body.metadata.omittedReason).toMatch(/^decayed at 2026-06-/)
    // GeoJSON says the same.
    const geo = await positions(48880, 'from=2026-06-01T00:00:00Z&to=2026-11-22T00:00:00Z&step=86400&format=geojson')
    expect(geo.body.metadata).toMatchObject({ omitted: partial.body.metadata.omitted, omittedReason: partial.body.metadata.omittedReason })
  })
})

describe('GeoJSON', () => {
  const lineJumps = (coordinates: number[][]) =>
    coordinates.slice(1).map((c, i) => Math.abs(c[0]! - coordinates[i]![0]!))

  test.each([
    ['ISS (51.6°)', 25544, 60],
    ['a polar Sun-synchronous orbit, sampled coarsely', 0, 300],
  ])('a FeatureCollection of LineStrings cut at the antimeridian: %s', async (_label, id, step) => {
    const noradId = id || catalog.satellites.find((s) => s.orbitalParams.inclination > 97 && s.orbitalParams.inclination < 99 && s.labels.includes('LEO'))!.noradId
    const query = `from=2026-05-31T00:00:00Z&to=2026-06-01T00:00:00Z&step=${step}`
    const { status, headers, body } = await positions(noradId, `${query}&format=geojson`)
    expect(status).toBe(200)
    expect(headers.get('content-type')).toBe('application/geo+json')
    expect(body.type).toBe('FeatureCollection')
    // A LEO satellite crosses the antimeridian about once an orbit: some 15 lines a day.
    expect(body.features.length).toBeGreaterThan(12)
    const json = (await positions(noradId, query)).body
    const points = json.data
    // The age and the omissions, as the JSON form gives them (a foreign member and feature properties).
    expect(body.metadata).toEqual({
      noradId,
      epoch: json.metadata.epoch,
      elementAgeDays: json.metadata.elementAgeDays,
      omitted: json.metadata.omitted,
      omittedReason: json.metadata.omittedReason,
    })
    let vertices = 0
    for (const feature of body.features) {
      expect(feature.type).toBe('Feature')
      expect(feature.geometry.type).toBe('LineString')
      expect(feature.properties.noradId).toBe(noradId)
      expect(feature.properties.from).toMatch(ISO_MS)
      expect(feature.properties.to).toMatch(ISO_MS)
      expect(feature.properties.epoch).toBe(json.metadata.epoch)
      expect(feature.properties.elementAgeDays).toBeCloseTo((Date.parse(feature.properties.from) - Date.parse(json.metadata.epoch)) / 86_400_000, 2)
      const coordinates: number[][] = feature.geometry.coordinates
      expect(coordinates.length).toBeGreaterThanOrEqual(2)
      for (const [lon, lat] of coordinates) {
        expect(lon!).toBeGreaterThanOrEqual(-180)
        expect(lon!).toBeLessThanOrEqual(180)
        expect(Math.abs(lat!)).toBeLessThanOrEqual(90)
      }
      for (const jump of lineJumps(coordinates)) expect(jump).toBeLessThanOrEqual(180)
      vertices += coordinates.length
    }
    // Every sampled point is a vertex, plus two edge points per cut.
    expect(vertices).toBe(points.length + 2 * (body.features.length - 1))
    // Consecutive lines meet on opposite edges at the same latitude.
    for (let i = 1; i < body.features.length; i++) {
      const end = body.features[i - 1].geometry.coordinates.at(-1)
      const start = body.features[i].geometry.coordinates[0]
      expect(Math.abs(end[0])).toBe(180)
      expect(start[0]).toBe(-end[0])
      expect(start[1]).toBe(end[1])
    }
  })

  test('the OpenAPI document declares the GeoJSON answer beside the JSON one, with the schema a GeoJSON answer meets', async () => {
    const { Value } = await import('@sinclair/typebox/value')
    const { TrackGeoJsonSchema } = await import('../../../src/http/routes/tracks/model.ts')
    const { withoutNullable } = await import('../../../src/http/plugins/docs.ts')
    const content = (await request(app, '/openapi/json')).body.paths['/api/v1/satellites/{noradId}/positions'].get.responses[200].content
    expect(Object.keys(content).sort()).toEqual(['application/geo+json', 'application/json'])
    // The model's schema, in the document's JSON Schema (null admitted without OpenAPI 3.0's `nullable`).
    expect(content['application/geo+json'].schema).toEqual(withoutNullable(JSON.parse(JSON.stringify(TrackGeoJsonSchema))))
    const { body } = await positions(25544, 'from=2026-05-31T00:00:00Z&to=2026-05-31T02:00:00Z&step=60&format=geojson')
    expect(Value.Check(TrackGeoJsonSchema, body)).toBe(true)
  })

  test('the raw points do jump across the map (the cut is needed)', async () => {
    const { body } = await positions(25544, 'from=2026-05-31T00:00:00Z&to=2026-06-01T00:00:00Z&step=60')
    const jumps = lineJumps(body.data.map((p: any) => [p.longitude, p.latitude]))
    expect(jumps.some((j) => j > 180)).toBe(true)
  })
})

describe('bad requests', () => {
  test.each([
    ['from=2026-05-31T00:10:00Z&to=2026-05-31T00:00:00Z', 400, 'to (2026-05-31T00:00:00.000Z) must not be before from (2026-05-31T00:10:00.000Z)'],
    // `to` alone: from is now (the app's clock, 2026-05-31T06:00Z), and the message says so.
    ['to=2026-05-31T05:00:00Z', 400, 'to (2026-05-31T05:00:00.000Z) must not be before from (not given: now, 2026-05-31T06:00:00.000Z)'],
    ['from=2026-05-31T00:00:00Z&to=2026-06-30T00:00:00Z', 400, 'give 43201 points; at most 10000'],
    ['from=2026-05-31T00:00:00Z&to=2026-05-31T02:46:40Z&step=1', 400, 'give 10001 points; at most 10000'],
  ])('%s → %i', async (query, status, message) => {
    const res = await positions(25544, query)
    expect(res.status).toBe(status)
    expect(res.body).toEqual({ statusCode: status, message: expect.stringContaining(message) })
  })

  test('exactly 10,000 points is allowed', async () => {
    const { status, body } = await positions(25544, 'from=2026-05-31T00:00:00Z&to=2026-05-31T02:46:39Z&step=1')
    expect(status).toBe(200)
    expect(body.data).toHaveLength(10_000)
  })

  test('unknown satellite: 404', async () => {
    expect((await positions(999999)).status).toBe(404)
  })

  test('parameters: as declared (each refused outside its declaration with a 400 naming it: test/http/plugins/params.test.ts)', () => {
    expect(describeParameters(declaredParameters(app).get('/api/v1/satellites/:noradId/positions')!)).toEqual([
      'noradId: integer 1..999999999 (path)',
      'from: instant',
      'to: instant',
      'step: integer 1..86400 = 60',
      'format: json|geojson = json',
    ])
  })
})

test('documented in the OpenAPI document', async () => {
  const spec = (await request(app, '/openapi/json')).body
  const operation = spec.paths['/api/v1/satellites/{noradId}/positions'].get
  expect(operation.parameters.map((p: any) => p.name).sort()).toEqual(['format', 'from', 'noradId', 'step', 'to'])
  expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '404', '422', '503'])
})

describe('long tracks, written a piece at a time', () => {
  test('the streamed JSON is exactly JSON.stringify of the whole track (10,000 points, and a stale satellite with omitted instants); it matches the schema', async () => {
    const { Value } = await import('@sinclair/typebox/value')
    const { groundTrack } = await import('../../../src/domain/orbit/track.ts')
    const { trackJson, TrackSchema } = await import('../../../src/http/routes/tracks/model.ts')
    const cases: [number, string, number, number][] = [
      [25544, 'from=2026-05-30T00:00:00Z&to=2026-06-05T22:39:00Z&step=60', Date.UTC(2026, 4, 30), Date.UTC(2026, 5, 5, 22, 39)],
      [25544, 'from=2026-05-30T00:00:00Z&to=2026-05-30T00:16:41Z&step=1', Date.UTC(2026, 4, 30), Date.UTC(2026, 4, 30, 0, 16, 41)],
    ]
    // A satellite whose elements stop giving positions part-way (decayed or stale): instants are omitted in the stream too.
    const { positionAt, siderealTimeRad } = await import('../../../src/domain/orbit/position.ts')
    const hasPosition = (s: (typeof catalog.satellites)[number], ms: number) =>
      positionAt(catalog, catalog.indexOf(s.noradId)!, new Date(ms), siderealTimeRad(new Date(ms))).ok
    const stale = catalog.satellites.find((s) => hasPosition(s, NOW + 1500 * 600_000) && !hasPosition(s, NOW + 5000 * 600_000))
    if (stale) cases.push([stale.noradId, `from=${new Date(NOW).toISOString()}&to=${new Date(NOW + 5000 * 600_000).toISOString()}&step=600`, NOW, NOW + 5000 * 600_000])
    for (const [id, query, fromMs, toMs] of cases) {
      const response = await app.handle(new Request(`http://localhost/api/v1/satellites/${id}/positions?${query}`))
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
      const text = await response.text()
      const satellite = catalog.get(id)!
      const stepS = Number(/step=(\d+)/.exec(query)![1])
      const plain = trackJson(satellite, groundTrack(catalog, catalog.indexOf(id)!, fromMs, toMs, stepS * 1000), fromMs, toMs, stepS)
      expect(text).toBe(JSON.stringify(plain))
      expect(Value.Check(TrackSchema, JSON.parse(text))).toBe(true)
    }
    expect(cases.length).toBe(3)
  }, 60_000)
})

test('GeoJSON tracks are heavy work: more than may run and wait get 503 with Retry-After; the one under way answers', async () => {
  const busy = createApp({ store: new CatalogStore(catalog), clock: () => NOW, heavyWork: { maxRunning: 1, maxQueued: 0 } })
  const path = '/api/v1/satellites/25544/positions?from=2026-05-31T00:00:00Z&step=10&to=2026-06-01T03:46:30Z&format=geojson'
  const running = request(busy, path)
  const refused = await request(busy, path)
  expect(refused.status).toBe(503)
  expect(refused.headers.get('retry-after')).toBe('2')
  expect(refused.body.statusCode).toBe(503)
  const answered = await running
  expect(answered.status).toBe(200)
  expect(answered.body.type).toBe('FeatureCollection')
})

describe('a default span that would run past 2100-01-01', () => {
  test('ends there, the last instant from and to accept', async () => {
    const noLimit = appFor((await embeddedCatalog()).withPolicy(NO_AGE_LIMIT), NOW)
    const { status, body } = await request(noLimit, '/api/v1/satellites/44057/positions?from=2099-12-31T23:00:00Z')
    expect(status).toBe(200)
    expect(body.metadata.to).toBe('2100-01-01T00:00:00.000Z')
    expect(body.data.at(-1).datetime).toBe('2100-01-01T00:00:00.000Z')
    expect(body.metadata.total).toBe(61)
  })
})
