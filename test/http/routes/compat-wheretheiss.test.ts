/**
 * The wheretheiss.at-compatible routes through app.handle: the field names,
 * types and units of its documentation, every value compared with the native
 * routes at the same instant, and what /v1/coordinates answers offline.
 */
import { NEARBY_DECIMALS, rounded } from '../../../src/http/routes/nearby/precision.ts'
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { footprintKm, julianDate } from '../../../src/domain/orbit/observing.ts'
import { appFor, embeddedCatalog, request } from '../../helpers/catalog.ts'

const NOW = Date.UTC(2026, 4, 31, 6, 0, 0, 437)
const SECOND = Math.floor(NOW / 1000)
const KM_PER_MILE = 1.609344

let catalog: Catalog
let app: ReturnType<typeof appFor>
beforeAll(async () => {
  catalog = await embeddedCatalog()
  app = appFor(catalog, NOW)
})

const get = (path: string, on = app) => request(on, path)
const iso = (seconds: number) => new Date(seconds * 1000).toISOString()

const POSITION_KEYS = ['altitude', 'daynum', 'footprint', 'id', 'latitude', 'longitude', 'name', 'solar_lat', 'solar_lon', 'timestamp', 'units', 'velocity', 'visibility']

/** The native answers for the ISS at a Unix second: geoposition, and /nearby seen from under it (speed, sunlit). */
async function nativeAt(seconds: number) {
  const geo = (await get(`/api/v1/satellites/25544/geoposition?time=${iso(seconds)}`)).body
  const nearby = (await get(`/api/v1/satellites/nearby?latitude=${geo.latitude}&longitude=${geo.longitude}&elevation-threshold=80&time=${iso(seconds)}`)).body.satellites
  return { geo, iss: nearby.find((s: any) => s.noradId === 25544) }
}

describe('/v1/satellites', () => {
  test('lists the ISS as wheretheiss.at does', async () => {
    const r = await get('/v1/satellites')
    expect(r.status).toBe(200)
    expect(r.body).toEqual([{ name: 'iss', id: 25544 }])
  })
})

describe('/v1/satellites/{id}', () => {
  test('now (the current second): the native position, speed and sunlight; footprint, Julian date and the sub-solar point', async () => {
    const r = await get('/v1/satellites/25544')
    expect(r.status).toBe(200)
    expect(Object.keys(r.body).sort()).toEqual(POSITION_KEYS)
    const { geo, iss } = await nativeAt(SECOND)
    expect(r.body).toMatchObject({ name: 'iss', id: 25544, latitude: geo.latitude, longitude: geo.longitude, altitude: geo.altitude, timestamp: SECOND, units: 'kilometers' })
    // /nearby interpolates between 10 s tables, SGP4's own values on them: 06:00:00 is on one.
    expect(rounded(r.body.velocity, NEARBY_DECIMALS.kmPerHour)).toBe(iss.velocityKmHs) // /nearby shows it to 0.001 km/h
    expect(r.body.visibility).toBe(iss.satelliteSunlit ? 'daylight' : 'eclipsed')
    expect(r.body.footprint).toBe(footprintKm(geo.altitude))
    expect(r.body.daynum).toBe(julianDate(SECOND * 1000))
    expect(r.body.solar_lon).toBeGreaterThanOrEqual(0)
    expect(r.body.solar_lon).toBeLessThan(360)
    for (const key of ['latitude', 'longitude', 'altitude', 'velocity', 'footprint', 'timestamp', 'daynum', 'solar_lat', 'solar_lon']) expect(typeof r.body[key]).toBe('number')
  })

  test('?timestamp= (whole or decimal seconds) and ?units=miles: the same instant, lengths and speeds in miles', async () => {
    const at = SECOND + 3600
    const km = await get(`/v1/satellites/25544?timestamp=${at}&units=kilometers`)
    const miles = await get(`/v1/satellites/25544?units=miles&timestamp=${at}`)
    const { geo } = await nativeAt(at)
    expect(km.body).toMatchObject({ latitude: geo.latitude, longitude: geo.longitude, altitude: geo.altitude, timestamp: at })
    expect(miles.body.units).toBe('miles')
    expect(miles.body.altitude).toBeCloseTo(km.body.altitude / KM_PER_MILE, 9)
    expect(miles.body.velocity).toBeCloseTo(km.body.velocity / KM_PER_MILE, 9)
    expect(miles.body.footprint).toBeCloseTo(km.body.footprint / KM_PER_MILE, 9)
    expect([miles.body.latitude, miles.body.longitude, miles.body.daynum]).toEqual([km.body.latitude, km.body.longitude, km.body.daynum])
    const decimal = await get(`/v1/satellites/25544?timestamp=${at}.25`)
    expect(decimal.body.timestamp).toBe(at + 0.25)
    const native = (await get(`/api/v1/satellites/25544/geoposition?time=${new Date(at * 1000 + 250).toISOString()}`)).body
    expect(decimal.body.latitude).toBe(native.latitude)
  })

  test('other satellites of the catalogue by their id (named as the catalogue names them)', async () => {
    const r = await get(`/v1/satellites/20580?timestamp=${SECOND}`)
    const native = (await get(`/api/v1/satellites/20580/geoposition?time=${iso(SECOND)}`)).body
    expect(r.body).toMatchObject({ name: 'HST', id: 20580, latitude: native.latitude, longitude: native.longitude })
  })

  test('errors are {"error", "status"}: unknown satellite 404, bad units or timestamp 400, no valid position 422', async () => {
    const cases: [string, number, RegExp][] = [
      ['/v1/satellites/99', 404, /^satellite not found$/],
      ['/v1/satellites/iss', 400, /^id must be a NORAD catalog number/],
      ['/v1/satellites/25544?units=feet', 400, /^units must be kilometers or miles \(got "feet"\)$/],
      ['/v1/satellites/25544?timestamp=yesterday', 400, /^timestamp must be Unix times in seconds/],
      ['/v1/satellites/25544?timestamp=4200000000', 400, /^timestamp must be Unix times/],
      ['/v1/satellites/25544?units=miles&units=kilometers', 400, /^units must be given only once \(got "miles", "kilometers"\)$/],
      [`/v1/satellites/25544?timestamp=${Date.UTC(2026, 10, 22, 10) / 1000}`, 422, /^satellite 25544 has no valid position at 2026-11-22T10:00:00.000Z: the elements are \d+ days old/],
      [`/v1/satellites/48880?timestamp=${Date.UTC(2026, 5, 20, 10) / 1000}`, 422, /decayed at 2026-06-14/],
    ]
    for (const [path, status, message] of cases) {
      const r = await get(path)
      expect({ path, status: r.status }).toEqual({ path, status })
      expect(r.body).toEqual({ error: expect.stringMatching(message), status })
    }
  })
})

describe('/v1/satellites/{id}/positions', () => {
  test('one position per timestamp, in their order, each what /v1/satellites/{id}?timestamp= answers', async () => {
    const stamps = Array.from({ length: 10 }, (_, i) => SECOND + i * 330)
    const r = await get(`/v1/satellites/25544/positions?timestamps=${stamps.join(',')}&units=kilometers`)
    expect(r.status).toBe(200)
    expect(r.body.map((p: any) => p.timestamp)).toEqual(stamps)
    for (const [i, at] of stamps.entries()) expect(r.body[i]).toEqual((await get(`/v1/satellites/25544?timestamp=${at}`)).body)
    const miles = await get(`/v1/satellites/25544/positions?timestamps=${SECOND}&units=miles`)
    expect(miles.body[0]).toEqual((await get(`/v1/satellites/25544?timestamp=${SECOND}&units=miles`)).body)
  })

  test('more than 10, none, or one without a valid position: 400 / 400 / 422', async () => {
    const eleven = Array.from({ length: 11 }, (_, i) => SECOND + i).join(',')
    expect((await get(`/v1/satellites/25544/positions?timestamps=${eleven}`)).body).toEqual({ error: 'timestamps must list at most 10 Unix times (got 11)', status: 400 })
    expect((await get('/v1/satellites/25544/positions')).status).toBe(400)
    expect((await get(`/v1/satellites/25544/positions?timestamps=${SECOND},x`)).status).toBe(400)
    const late = Date.UTC(2026, 10, 22, 10) / 1000
    expect((await get(`/v1/satellites/25544/positions?timestamps=${SECOND},${late}`)).status).toBe(422)
  })
})

describe('/v1/satellites/{id}/tles', () => {
  test('the published lines, id as a string, header the name, tle_timestamp the epoch; format=text the three lines', async () => {
    const r = await get('/v1/satellites/25544/tles')
    const native = (await get('/api/v1/satellites/25544')).body.data
    expect(r.body).toEqual({
      requested_timestamp: SECOND,
      tle_timestamp: Math.floor(Date.parse(native.epoch) / 1000),
      id: '25544',
      name: 'iss',
      header: native.name,
      line1: native.tle.line1,
      line2: native.tle.line2,
    })
    const text = await get('/v1/satellites/25544/tles?format=text')
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(text.text).toBe(`${native.name}\n${native.tle.line1}\n${native.tle.line2}`)
    expect((await get('/v1/satellites/25544/tles?format=xml')).body).toEqual({ error: 'format must be json or text (got "xml")', status: 400 })
    // An empty value is the parameter left out (compat.md), as for units, timestamp and timestamps.
    expect((await get('/v1/satellites/25544/tles?format=')).body).toEqual(r.body)
    expect((await get(`/v1/satellites/25544?timestamp=&units=`)).body).toEqual((await get('/v1/satellites/25544')).body)
    expect((await get('/v1/satellites/25544/positions?timestamps=')).body.error).toStartWith('timestamps is required')
  })
})

describe('/v1/coordinates/{lat},{lon}', () => {
  test('time zone, its offset now, and the country, answered offline; ?? at sea (in a nautical Etc/GMT zone)', async () => {
    // NOW is 2026-05-31: northern summer time.
    const cases: [string, string, number, string][] = [
      ['37.795517,-122.393693', 'America/Los_Angeles', -7, 'US'],
      ['48.8566,2.3522', 'Europe/Paris', 2, 'FR'],
      ['51.5,-0.12', 'Europe/London', 1, 'GB'],
      ['-33.87,151.21', 'Australia/Sydney', 10, 'AU'],
      ['28.6,77.2', 'Asia/Kolkata', 5.5, 'IN'],
      ['18.2,-66.5', 'America/Puerto_Rico', -4, 'PR'],
      ['0,-30', 'Etc/GMT+2', -2, '??'],
      ['-40,-120', 'Etc/GMT+8', -8, '??'],
    ]
    for (const [coordinates, timezone_id, offset, country_code] of cases) {
      const r = await get(`/v1/coordinates/${coordinates}`)
      const [latitude, longitude] = coordinates.split(',')
      expect(r.body).toEqual({ latitude, longitude, timezone_id, offset, country_code, map_url: `https://maps.google.com/maps?q=${latitude},${longitude}&z=4` })
    }
    // Clients that format "%.6f, %.6f" send a space after the comma.
    expect((await get('/v1/coordinates/48.856600,%202.352200')).body).toMatchObject({ latitude: '48.856600', longitude: '2.352200', country_code: 'FR' })
  })

  test('the offset follows the date: Paris is +1 in winter', async () => {
    expect((await get('/v1/coordinates/48.8566,2.3522', appFor(catalog, Date.UTC(2026, 0, 15)))).body.offset).toBe(1)
  })

  test('anything but two numbers in range is a 400 {"error", "status"}', async () => {
    for (const bad of ['91,0', '0,181', 'abc,1', '1', '1,2,3', '1,', ',1', 'NaN,0']) {
      const r = await get(`/v1/coordinates/${bad}`)
      expect({ bad, status: r.status }).toEqual({ bad, status: 400 })
      expect(r.body.error).toMatch(/^coordinates must be latitude,longitude/)
      expect(r.body.status).toBe(400)
    }
  })
})
