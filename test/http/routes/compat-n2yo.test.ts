/**
 * The N2YO-compatible routes through app.handle: the URL shapes real clients
 * build, N2YO's fields and types, and every value compared with the native
 * routes at the same instant (the compatible routes compute from the current
 * second: the clock here stands at NOW, 437 ms into a second).
 */
import { NEARBY_DECIMALS as D, rounded, roundedAzimuth } from '../../../src/http/routes/nearby/precision.ts'
import { beforeAll, describe, expect, test } from 'bun:test'
import { buildCatalog, type Catalog } from '../../../src/domain/catalog/catalog.ts'
import type { ElementSet } from '../../../src/domain/catalog/elements.ts'
import { findNearby } from '../../../src/domain/nearby/reference.ts'
import { compassPoint } from '../../../src/domain/orbit/observing.ts'
import { appFor, embeddedCatalog, request } from '../../helpers/catalog.ts'
import { NO_AGE_LIMIT } from '../../../src/domain/orbit/validity.ts'

const NOW = Date.UTC(2026, 4, 31, 6, 0, 0, 437)
const SECOND = Math.floor(NOW / 1000)
const T = new Date(SECOND * 1000).toISOString()
const BASE = '/rest/v1/satellite'

let catalog: Catalog
let app: ReturnType<typeof appFor>
beforeAll(async () => {
  catalog = await embeddedCatalog()
  app = appFor(catalog, NOW)
})

const get = (path: string, on = app) => request(on, path)
const unix = (iso: string) => Math.round(Date.parse(iso) / 1000)

/** What N2YO documents for each field, as the clients' models declare it (g1ampy's dataclasses, n2yo-ts, bluesat's interfaces). */
function expectTypes(object: Record<string, unknown>, types: Record<string, 'int' | 'float' | 'string' | 'boolean'>) {
  expect(Object.keys(object).sort()).toEqual(Object.keys(types).sort())
  for (const [key, type] of Object.entries(types)) {
    const value = object[key]
    if (type === 'int') expect({ key, ok: Number.isInteger(value) }).toEqual({ key, ok: true })
    else if (type === 'float') expect({ key, ok: typeof value === 'number' && Number.isFinite(value) }).toEqual({ key, ok: true })
    else expect({ key, type: typeof value }).toEqual({ key, type })
  }
}

describe('URL shapes', () => {
  test('the key glued to the path, after a slash, in the query, or none: the same answer', async () => {
    const shapes = [
      `${BASE}/tle/25544&apiKey=ABCDEF-123`, // N2YO's documentation, requests with a hand-built URL
      `${BASE}/tle/25544/?apiKey=ABCDEF-123`, // n2yo-api-wrapper: path/ + params
      `${BASE}/tle/25544?apiKey=ABCDEF-123`, // n2yo, n2yoasync: path + params
      `${BASE}/tle/25544`, // no key at all
      `${BASE}/tle/25544/&apiKey=K`,
    ]
    const bodies = await Promise.all(shapes.map((p) => get(p)))
    for (const r of bodies) {
      expect(r.status).toBe(200)
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8')
      expect(r.text).toBe(bodies[0]!.text)
    }
  })

  test("%f numbers (41.702000), Python's repr, and the key after a trailing slash (…/1/5/&apiKey=K) on the passes routes", async () => {
    const a = await get(`${BASE}/radiopasses/25544/41.702000/-76.014000/0.000000/1/5/&apiKey=K`)
    const b = await get(`${BASE}/radiopasses/25544/41.702/-76.014/0.0/1/5?apiKey=K`)
    const c = await get(`${BASE}/radiopasses/25544/41.702/-76.014/0/1/5.000000`)
    expect(a.status).toBe(200)
    expect(b.text).toBe(a.text)
    expect(c.text).toBe(a.text)
    expect(a.body.passes.length).toBeGreaterThan(0)
  })

  test('errors are {"error": …} (clients test for that key), JSON, with a status that says what', async () => {
    const cases: [string, number, RegExp][] = [
      [`${BASE}/tle/999999&apiKey=K`, 404, /satellite 999999 is not in the catalogue/],
      [`${BASE}/tle/abc`, 400, /^id must be a NORAD catalog number/],
      [`${BASE}/tle/1000000000`, 400, /^id must be a NORAD catalog number/],
      [`${BASE}/tle/0`, 400, /^id must be a NORAD catalog number/],
      [`${BASE}/positions/25544/91/0/0/1`, 400, /^observer_lat must be a number between -90 and 90 \(got "91"\)/],
      [`${BASE}/positions/25544/0/0/0/301`, 400, /^seconds must be an integer between 1 and 300/],
      [`${BASE}/positions/25544/0/0/0/1.5`, 400, /^seconds must be an integer/],
      [`${BASE}/positions/25544/0/0/0`, 400, /^positions takes 5 path segments: .*\(got 4\)/],
      [`${BASE}/visualpasses/25544/0/0/0/11/60`, 400, /^days must be an integer between 1 and 10/],
      [`${BASE}/radiopasses/25544/0/0/0/1/91`, 400, /^min_elevation must be a number between 0 and 90/],
      [`${BASE}/above/0/0/0/-1/0`, 400, /^search_radius must be a number between 0 and 180/],
      [`${BASE}/above/0/nan/0/90/0`, 400, /^observer_lng must be a number/],
      [`${BASE}/whatsup/1`, 404, /^no such N2YO endpoint: "whatsup"/],
      [`${BASE}/`, 404, /^no such N2YO endpoint: ""/],
    ]
    for (const [path, status, message] of cases) {
      const r = await get(path)
      expect({ path, status: r.status }).toEqual({ path, status })
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8')
      expect(Object.keys(r.body)).toEqual(['error'])
      expect(r.body.error).toMatch(message)
    }
    // Leading zeros, as the native routes read them.
    expect((await get(`${BASE}/tle/0000000000025544`)).body.info.satid).toBe(25544)
  })
})

describe('tle', () => {
  test('info.satid, satname, transactionscount (an integer), and the published lines joined by \\r\\n', async () => {
    const r = await get(`${BASE}/tle/25544&apiKey=K`)
    const native = (await get('/api/v1/satellites/25544')).body.data
    expect(Object.keys(r.body).sort()).toEqual(['info', 'tle'])
    expectTypes(r.body.info, { satid: 'int', satname: 'string', transactionscount: 'int' })
    expect(r.body.info).toEqual({ satid: 25544, satname: native.name, transactionscount: 0 })
    expect(r.body.tle).toBe(`${native.tle.line1}\r\n${native.tle.line2}`)
    // What clients do with it: split on \r\n into the two lines.
    expect(r.body.tle.split('\r\n')).toEqual([native.tle.line1, native.tle.line2])
  })
})

describe('positions', () => {
  test('one a second from the current second, each equal to the native answers at that second', async () => {
    // The observer under the ISS (its sub-satellite point at T, as %f writes it): the ISS is overhead, so /nearby lists it.
    const geo = (await get(`/api/v1/satellites/25544/geoposition?time=${T}`)).body
    const lat = geo.latitude.toFixed(6)
    const lng = geo.longitude.toFixed(6)
    const r = await get(`${BASE}/positions/25544/${lat}/${lng}/0.000000/3&apiKey=K`)
    expect(r.status).toBe(200)
    expectTypes(r.body.info, { satname: 'string', satid: 'int', transactionscount: 'int' })
    expect(r.body.info).toEqual({ satname: 'ISS (ZARYA)', satid: 25544, transactionscount: 0 })
    expect(r.body.positions.map((p: any) => p.timestamp)).toEqual([SECOND, SECOND + 1, SECOND + 2])
    for (const p of r.body.positions) {
      expectTypes(p, { satlatitude: 'float', satlongitude: 'float', sataltitude: 'float', azimuth: 'float', elevation: 'float', ra: 'float', dec: 'float', timestamp: 'int', eclipsed: 'boolean' })
      const time = new Date(p.timestamp * 1000).toISOString()
      const native = (await get(`/api/v1/satellites/25544/geoposition?time=${time}`)).body
      expect([p.satlatitude, p.satlongitude, p.sataltitude]).toEqual([native.latitude, native.longitude, native.altitude])
      const nearby = (await get(`/api/v1/satellites/nearby?latitude=${lat}&longitude=${lng}&elevation-threshold=80&time=${time}`)).body.satellites
      const iss = nearby.find((s: any) => s.noradId === 25544)
      // /nearby interpolates between its 10 s tables (SGP4's own values on them): within 0.001°, equal at 06:00:00.
      expect(Math.abs(p.azimuth - iss.azimuth)).toBeLessThan(1e-3)
      expect(Math.abs(p.elevation - iss.elevation)).toBeLessThan(1e-3)
      if (p.timestamp % 10 === 0) expect([roundedAzimuth(p.azimuth), rounded(p.elevation, D.degrees)]).toEqual([iss.azimuth, iss.elevation]) // at /nearby's precision
      expect(p.eclipsed).toBe(!iss.satelliteSunlit)
      expect(p.elevation).toBeGreaterThan(80)
      expect(p.ra).toBeGreaterThanOrEqual(0)
      expect(p.ra).toBeLessThan(360)
    }
  })

  test('up to 300; stale or decayed elements: 422 {"error"} saying why, never a position', async () => {
    expect((await get(`${BASE}/positions/25544/0/0/0/300`)).body.positions).toHaveLength(300)
    const stale = await get(`${BASE}/positions/25544/0/0/0/1`, appFor(catalog, Date.UTC(2026, 10, 22, 10)))
    expect(stale.status).toBe(422)
    expect(stale.body.error).toMatch(/^satellite 25544 has no valid position at 2026-11-22T10:00:00.000Z: the elements are \d+ days old/)
    const decayed = await get(`${BASE}/positions/48880/0/0/0/1`, appFor(catalog, Date.UTC(2026, 5, 20, 10)))
    expect(decayed.status).toBe(422)
    expect(decayed.body.error).toMatch(/decayed at 2026-06-14/)
  })
})

describe('radiopasses and visualpasses', () => {
  const SYDNEY = { lat: -33.87, lng: 151.21 }

  test('radio passes: the native passes above the horizon (rise, culmination, set) whose highest point reaches min_elevation', async () => {
    const min = 25
    const r = await get(`${BASE}/radiopasses/25544/${SYDNEY.lat}/${SYDNEY.lng}/0/2/${min}&apiKey=K`)
    const native = (await get(`/api/v1/satellites/25544/passes?latitude=${SYDNEY.lat}&longitude=${SYDNEY.lng}&elevation-threshold=0&days=2&time=${T}`)).body.data
    const expected = native.filter((p: any) => p.culmination.elevation >= min && p.rise && p.set)
    expect(expected.length).toBeGreaterThan(0)
    expect(native.length).toBeGreaterThan(expected.length)
    expectTypes(r.body.info, { satid: 'int', satname: 'string', transactionscount: 'int', passescount: 'int' })
    expect(r.body.info.passescount).toBe(r.body.passes.length)
    expect(r.body.passes).toEqual(
      expected.map((p: any) => ({
        startAz: p.rise.azimuth,
        startAzCompass: compassPoint(p.rise.azimuth),
        startUTC: unix(p.rise.datetime),
        maxAz: p.culmination.azimuth,
        maxAzCompass: compassPoint(p.culmination.azimuth),
        maxEl: p.culmination.elevation,
        maxUTC: unix(p.culmination.datetime),
        endAz: p.set.azimuth,
        endAzCompass: compassPoint(p.set.azimuth),
        endUTC: unix(p.set.datetime),
      })),
    )
    for (const p of r.body.passes) {
      expectTypes(p, { startAz: 'float', startAzCompass: 'string', startUTC: 'int', maxAz: 'float', maxAzCompass: 'string', maxEl: 'float', maxUTC: 'int', endAz: 'float', endAzCompass: 'string', endUTC: 'int' })
      expect(p.startUTC).toBeLessThanOrEqual(p.maxUTC)
      expect(p.maxUTC).toBeLessThanOrEqual(p.endUTC)
    }
  })

  test('visual passes: the native visible windows (the naked-eye rule) over the horizon, mag the brightest, duration the seconds visible', async () => {
    const r = await get(`${BASE}/visualpasses/25544/${SYDNEY.lat}/${SYDNEY.lng}/0/4/0&apiKey=K`)
    const native = (await get(`/api/v1/satellites/25544/passes?latitude=${SYDNEY.lat}&longitude=${SYDNEY.lng}&elevation-threshold=0&visible-only=true&days=4&time=${T}`)).body.data
    expect(native.length).toBeGreaterThanOrEqual(2)
    expect(r.body.passes).toHaveLength(native.length)
    expect(r.body.info.passescount).toBe(native.length)
    native.forEach((p: any, i: number) => {
      const v = r.body.passes[i]
      expectTypes(v, {
        startAz: 'float', startAzCompass: 'string', startEl: 'float', startUTC: 'int',
        maxAz: 'float', maxAzCompass: 'string', maxEl: 'float', maxUTC: 'int',
        endAz: 'float', endAzCompass: 'string', endEl: 'float', endUTC: 'int',
        mag: 'float', duration: 'int',
      })
      const windows = p.visibleWindows
      expect(v.startUTC).toBe(unix(windows[0].from))
      expect(v.endUTC).toBe(unix(windows.at(-1).to))
      const seconds = windows.reduce((sum: number, w: any) => sum + (Date.parse(w.to) - Date.parse(w.from)) / 1000, 0)
      expect(v.duration).toBe(Math.round(seconds))
      expect(v.mag).toBe(p.brightest.magnitude)
      expect(v.startAzCompass).toBe(compassPoint(v.startAz))
      expect(v.endAzCompass).toBe(compassPoint(v.endAz))
      // The highest point between start and end: the culmination when it lies between them.
      expect(v.startUTC).toBeLessThanOrEqual(v.maxUTC)
      expect(v.maxUTC).toBeLessThanOrEqual(v.endUTC)
      expect(v.maxEl).toBeGreaterThanOrEqual(Math.max(v.startEl, v.endEl) - 1e-9)
      if (v.maxUTC > v.startUTC && v.maxUTC < v.endUTC) {
        expect([v.maxAz, v.maxEl, v.maxUTC]).toEqual([p.culmination.azimuth, p.culmination.elevation, unix(p.culmination.datetime)])
      }
    })
    // The README's pass: visible from 19:06:20.857Z at magnitude -1.3.
    expect(r.body.passes[0]).toMatchObject({ startUTC: unix('2026-05-31T19:06:21Z'), mag: -1.3 })
  })

  test('min_visibility leaves out passes visible for fewer seconds; none at all is an empty array, not a missing key', async () => {
    const all = (await get(`${BASE}/visualpasses/25544/${SYDNEY.lat}/${SYDNEY.lng}/0/4/0`)).body.passes
    const long = Math.max(...all.map((p: any) => p.duration))
    const some = (await get(`${BASE}/visualpasses/25544/${SYDNEY.lat}/${SYDNEY.lng}/0/4/${long}`)).body.passes
    expect(some.every((p: any) => p.duration >= long)).toBe(true)
    expect(some.length).toBeGreaterThanOrEqual(1)
    expect(some.length).toBeLessThan(all.length)
    const none = await get(`${BASE}/visualpasses/25544/${SYDNEY.lat}/${SYDNEY.lng}/0/4/86400`)
    expect(none.body).toEqual({ info: { satid: 25544, satname: 'ISS (ZARYA)', transactionscount: 0, passescount: 0 }, passes: [] })
    // The ISS never rises over the North Pole: no passes, the key still there.
    const geo = await get(`${BASE}/radiopasses/25544/89/0/0/1/0`)
    expect(geo.body.passes).toEqual([])
    expect(geo.body.info.passescount).toBe(0)
  })

  test('no position in the searched days (stale data): 422 {"error"} as the native /passes says it', async () => {
    const stale = appFor(catalog, Date.UTC(2026, 10, 22, 10))
    const r = await get(`${BASE}/radiopasses/25544/0/0/0/1/0`, stale)
    const native = await get('/api/v1/satellites/25544/passes?latitude=0&longitude=0&elevation-threshold=0', stale)
    expect(r.status).toBe(422)
    expect(r.body.error).toBe(native.body.message)
  })
})

describe('above', () => {
  const NYC = { lat: 40.7128, lng: -74.006 }

  test('the native /nearby at 90 − search_radius: the same satellites in the same order and places; intDesignator and launchDate as strings', async () => {
    for (const radius of [80, 45, 10]) {
      const r = await get(`${BASE}/above/${NYC.lat}/${NYC.lng}/0/${radius}/0&apiKey=K`)
      const native = (await get(`/api/v1/satellites/nearby?latitude=${NYC.lat}&longitude=${NYC.lng}&elevation-threshold=${90 - radius}&mode=extended&time=${T}`)).body.satellites
      expectTypes(r.body.info, { category: 'string', transactionscount: 'int', satcount: 'int' })
      expect(r.body.info).toEqual({ category: 'ANY', transactionscount: 0, satcount: native.length })
      expect(r.body.above.map((a: any) => a.satid)).toEqual(native.map((s: any) => s.noradId))
      r.body.above.forEach((a: any, i: number) => {
        expectTypes(a, { satid: 'int', satname: 'string', intDesignator: 'string', launchDate: 'string', satlat: 'float', satlng: 'float', satalt: 'float' })
        // /nearby shows them to its stated precision (1e-6°, 0.001 km).
        expect([a.satname, rounded(a.satlat, D.degrees), rounded(a.satlng, D.degrees), rounded(a.satalt, D.km)]).toEqual([native[i].name, native[i].geoposition.latitude, native[i].geoposition.longitude, native[i].altitude])
        expect(a.intDesignator).toMatch(/^\d{4}-\d{3}[A-Z]{1,3}$/)
        expect(a.launchDate).toBe('')
      })
    }
  })

  test('search_radius 90, and 180 (as clients send it), is the whole sky above the horizon: the plain search of every satellite at 0°', async () => {
    const r90 = await get(`${BASE}/above/${NYC.lat}/${NYC.lng}/0/90/0`)
    const r180 = await get(`${BASE}/above/${NYC.lat}/${NYC.lng}/0/180/0`)
    expect(r180.text).toBe(r90.text)
    const plain = findNearby(catalog, {
      observer: { latitudeDeg: NYC.lat, longitudeDeg: NYC.lng, altitudeM: 0 },
      instant: new Date(SECOND * 1000),
      minElevationDeg: 0,
      azimuthFromDeg: 0,
      azimuthToDeg: 360,
      visibleOnly: false,
    }).entries
    expect(r90.body.above.map((a: any) => a.satid)).toEqual(plain.map((e) => e.satellite.noradId))
    expect(r90.body.info.satcount).toBeGreaterThan(500)
  })

  test('a category narrows it (Starlink: 52); 0, an unknown number or text (n2yoasync sends its enum: N2YOSatelliteCategory.All) is every satellite', async () => {
    const all = (await get(`${BASE}/above/${NYC.lat}/${NYC.lng}/0/60/0`)).body
    for (const category of ['N2YOSatelliteCategory.All', '999', 'all', '0.000000']) {
      expect((await get(`${BASE}/above/${NYC.lat}/${NYC.lng}/0/60/${category}`)).body).toEqual(all)
    }
    const starlink = (await get(`${BASE}/above/${NYC.lat}/${NYC.lng}/0/60/52`)).body
    expect(starlink.info.category).toBe('Starlink')
    expect(starlink.above.length).toBeGreaterThan(0)
    expect(starlink.above.length).toBeLessThan(all.above.length)
    expect(starlink.above).toEqual(all.above.filter((a: any) => catalog.get(a.satid)!.groups.includes('starlink')))
    // A category whose satellites the catalogue does not hold (Iridium: no such group loaded, no such names): empty, not all.
    const iridium = (await get(`${BASE}/above/${NYC.lat}/${NYC.lng}/0/90/15`)).body
    expect(iridium).toEqual({ info: { category: 'Iridium', transactionscount: 0, satcount: 0 }, above: [] })
  })

  test('when the category has decayed (no age limit): 422 whose advice leaves the age limit out', async () => {
    const noLimit = appFor((await embeddedCatalog()).withPolicy(NO_AGE_LIMIT), Date.UTC(2031, 5, 1))
    const r = await get(`${BASE}/above/0/0/0/90/2`, noLimit)
    expect(r.status).toBe(422)
    expect(r.body.error).toMatch(/^\d+ of \d+ satellites of the category ISS are left out: \d+ have decayed by then \(/)
    expect(r.body.error).toEndWith('. Load newer data (--snapshot, --refresh-url, make snapshot): this route answers for the current second only.')
  })

  test('when most of the catalogue has no valid position (stale data): 422 {"error"} with the native notice, never an empty sky', async () => {
    const stale = appFor(catalog, Date.UTC(2026, 10, 22, 10))
    const r = await get(`${BASE}/above/0/0/0/90/0`, stale)
    const native = await get('/api/v1/satellites/nearby?latitude=0&longitude=0', stale)
    expect(r.status).toBe(422)
    // /nearby's notice, its advice without a time to ask for (this route has none).
    const [why] = native.body.metadata.notice.split('. Load ')
    expect(r.body.error).toBe(`${why}. Load newer data (--snapshot, --refresh-url, make snapshot) or change --max-element-age: this route answers for the current second only.`)
  })

  test('a category is judged by its own satellites: answered when they have positions though most of the catalogue has none', async () => {
    // Only the stations were refreshed: their elements moved to the stale instant, the rest left 175 days old.
    const at = Date.UTC(2026, 10, 22, 10)
    const shift = at - Date.UTC(2026, 4, 30, 12)
    const moved = (e: ElementSet): ElementSet => ({ ...e, epochMs: e.epochMs + shift, epochUs: undefined })
    const groups = ['stations', 'starlink'].map((group) => ({
      group,
      elements: catalog.satellites.filter((s) => s.groups[0] === group).map((s) => (group === 'stations' ? moved(s.elements) : s.elements)),
    }))
    const partly = appFor(buildCatalog(groups, { source: 'refresh', obtainedAtMs: at }, at), at)
    const iss = await get(`${BASE}/above/${NYC.lat}/${NYC.lng}/0/90/2`, partly)
    expect(iss.status).toBe(200)
    expect(iss.body.info.category).toBe('ISS')
    // The whole catalogue, and a category whose satellites are all too old: 422, the notice counting what was asked for.
    expect((await get(`${BASE}/above/${NYC.lat}/${NYC.lng}/0/90/0`, partly)).status).toBe(422)
    const starlink = await get(`${BASE}/above/${NYC.lat}/${NYC.lng}/0/90/52`, partly)
    expect(starlink.status).toBe(422)
    const members = catalog.satellites.filter((s) => s.groups[0] === 'starlink').length
    expect(starlink.body.error).toStartWith(`${members} of ${members} satellites of the category Starlink are left out: `)
  })
})

describe('near 2100-01-01, the last instant the native API accepts', () => {
  const END_S = Date.UTC(2100, 0, 1) / 1000
  test('positions stop there (fewer seconds), and passes are searched up to there', async () => {
    // ONEWEB-0012 keeps a position to 2100 with no age limit.
    const noLimit = (await embeddedCatalog()).withPolicy(NO_AGE_LIMIT)
    const positions = await get(`${BASE}/positions/44057/48.85/2.35/0/300`, appFor(noLimit, Date.UTC(2099, 11, 31, 23, 59, 0, 437)))
    expect(positions.status).toBe(200)
    expect(positions.body.positions.map((p: any) => p.timestamp)).toEqual(Array.from({ length: 61 }, (_, k) => END_S - 60 + k))
    const passes = await get(`${BASE}/radiopasses/44057/48.85/2.35/0/10/0`, appFor(noLimit, Date.UTC(2099, 11, 31)))
    expect(passes.status).toBe(200)
    expect(passes.body.passes.length).toBeGreaterThan(3)
    for (const pass of passes.body.passes) expect(pass.endUTC).toBeLessThanOrEqual(END_S)
  })
})
