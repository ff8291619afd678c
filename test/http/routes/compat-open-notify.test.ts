/**
 * The Open Notify-compatible routes through app.handle: iss-now (coordinates as
 * strings, JSONP with a strictly checked callback), the revived iss-pass with
 * the original rules (10°, passes over 60 s, a pass in progress counted but not
 * listed, as pyiss's is_ISS_above reads it) and astros; values compared with
 * the native routes at the same second.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { appFor, embeddedCatalog, request } from '../../helpers/catalog.ts'

const NOW = Date.UTC(2026, 4, 31, 6, 0, 0, 437)
const SECOND = Math.floor(NOW / 1000)
const T = new Date(SECOND * 1000).toISOString()

let catalog: Catalog
let app: ReturnType<typeof appFor>
beforeAll(async () => {
  catalog = await embeddedCatalog()
  app = appFor(catalog, NOW)
})

const get = (path: string, on = app) => request(on, path)

describe('iss-now', () => {
  test('/iss-now.json, /iss-now/ and /iss-now/v1/: the native ISS position at the current second, coordinates as strings with 4 decimals', async () => {
    const native = (await get(`/api/v1/satellites/iss?time=${T}`)).body.data.geoposition
    for (const path of ['/iss-now.json', '/iss-now/', '/iss-now/v1/']) {
      const r = await get(path)
      expect(r.status).toBe(200)
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8')
      expect(r.body).toEqual({
        message: 'success',
        timestamp: SECOND,
        iss_position: { latitude: native.latitude.toFixed(4), longitude: native.longitude.toFixed(4) },
      })
      // What clients do: float(data["iss_position"]["latitude"]).
      expect(Number.parseFloat(r.body.iss_position.latitude)).toBeCloseTo(native.latitude, 4)
      expect(Number.isInteger(r.body.timestamp)).toBe(true)
    }
  })

  test('JSONP: ?callback=name answers /**/name({...}); as application/javascript, the same JSON inside', async () => {
    const plain = (await get('/iss-now.json')).text
    for (const name of ['cb', 'jQuery112409_1617287232', '$', '_x', 'window.app.onIss']) {
      const r = await get(`/iss-now.json?callback=${name}`)
      expect(r.status).toBe(200)
      expect(r.headers.get('content-type')).toBe('application/javascript; charset=utf-8')
      expect(r.text).toBe(`/**/${name}(${plain});`)
      // It runs: the callback receives the answer.
      let received: unknown
      const scope: Record<string, unknown> = { cb: (x: unknown) => (received = x), jQuery112409_1617287232: (x: unknown) => (received = x), $: (x: unknown) => (received = x), _x: (x: unknown) => (received = x), window: { app: { onIss: (x: unknown) => (received = x) } } }
      new Function(...Object.keys(scope), r.text)(...Object.values(scope))
      expect(received).toEqual(JSON.parse(plain))
    }
    // An empty callback is no callback (as the original's `if callback:`).
    expect((await get('/iss-now.json?callback=')).text).toBe(plain)
  })

  test('a callback that is not a JavaScript name is refused: a JSON 400, never echoed as script', async () => {
    for (const name of ['alert(1)', 'a b', '1abc', 'a-b', '<script>', 'a;b', 'a..b', '.a', 'x'.repeat(101), '%E2%80%A8']) {
      const r = await get(`/iss-now.json?callback=${encodeURIComponent(name)}`)
      expect({ name, status: r.status }).toEqual({ name, status: 400 })
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8')
      expect(r.body.message).toBe('failure')
      expect(r.body.reason).toMatch(/^callback must be a JavaScript name/)
    }
    expect((await get('/iss-now.json?callback=a&callback=b')).status).toBe(400)
  })

  test('stale data: 422 {"message": "failure", "reason"} with the native reason, never a position', async () => {
    const stale = appFor(catalog, Date.UTC(2026, 10, 22, 10))
    const r = await get('/iss-now.json?callback=cb', stale)
    const native = await get('/api/v1/satellites/iss', stale)
    expect(r.status).toBe(422)
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(r.body).toEqual({ message: 'failure', reason: native.body.message })
  })
})

describe('iss-pass', () => {
  const SEATTLE = 'lat=47.6&lon=-122.3'

  test('the next n passes above 10°: risetime and duration from the native passes at 10° (whole seconds, as the original truncates them)', async () => {
    const r = await get(`/iss-pass.json?${SEATTLE}&n=6`)
    expect(r.status).toBe(200)
    // The same search as the first window iss-pass looks through (5 days from the current second).
    const native = (await get(`/api/v1/satellites/25544/passes?latitude=47.6&longitude=-122.3&altitude=100&elevation-threshold=10&days=5&time=${T}`)).body.data
    const expected = native
      .slice(0, 6)
      .filter((p: any) => p.rise && p.set)
      .map((p: any) => ({ duration: Math.trunc((Date.parse(p.set.datetime) - Date.parse(p.rise.datetime)) / 1000), risetime: Math.floor(Date.parse(p.rise.datetime) / 1000) }))
      .filter((p: any) => p.duration > 60)
    expect(expected.length).toBeGreaterThanOrEqual(4)
    expect(r.body).toEqual({
      message: 'success',
      request: { altitude: 100, datetime: SECOND, latitude: 47.6, longitude: -122.3, passes: 6 },
      response: expected,
    })
    for (const p of r.body.response) {
      expect(Number.isInteger(p.risetime)).toBe(true)
      expect(Number.isInteger(p.duration)).toBe(true)
    }
  })

  test('the same on /iss/ and /iss/v1/; alt and n default to 100 m and 5; JSONP too', async () => {
    const a = await get(`/iss-pass.json?${SEATTLE}`)
    expect(a.body.request).toMatchObject({ altitude: 100, passes: 5 })
    for (const path of ['/iss/', '/iss/v1/']) expect((await get(`${path}?${SEATTLE}`)).text).toBe(a.text)
    const j = await get(`/iss-pass.json?${SEATTLE}&callback=show`)
    expect(j.text).toBe(`/**/show(${a.text});`)
  })

  test("a pass in progress now counts as one of n but is not listed: pyiss's is_ISS_above (n=2, one result) is true exactly when the ISS is above 10°", async () => {
    // Under the ISS at T it is at the zenith; a quarter of the way round the Earth it is far below the horizon.
    const under = (await get(`/api/v1/satellites/25544/geoposition?time=${T}`)).body
    const above = await get(`/iss-pass.json?lat=${under.latitude}&lon=${under.longitude}&n=2`)
    expect(above.body.response).toHaveLength(1)
    const native = (await get(`/api/v1/satellites/25544/passes?latitude=${under.latitude}&longitude=${under.longitude}&altitude=100&elevation-threshold=10&time=${T}`)).body.data
    expect(native[0].rise).toBeNull() // in progress at T
    expect(above.body.response[0].risetime).toBe(Math.floor(Date.parse(native[1].rise.datetime) / 1000))
    const away = await get(`/iss-pass.json?lat=${-under.latitude}&lon=${under.longitude > 0 ? under.longitude - 180 : under.longitude + 180}&n=2`)
    expect(away.body.response).toHaveLength(2)
  })

  test('up to 100 passes, looked for window after window (no pass cut or listed twice where windows meet)', async () => {
    const r = await get(`/iss-pass.json?${SEATTLE}&n=100`)
    expect(r.status).toBe(200)
    const rises = r.body.response.map((p: any) => p.risetime)
    expect(rises.length).toBeGreaterThan(60)
    for (let i = 1; i < rises.length; i++) expect(rises[i]).toBeGreaterThan(rises[i - 1] + r.body.response[i - 1].duration)
    // The same passes as one native search over the days they span (20 days: within the element-age limit).
    const days = Math.ceil((rises.at(-1) - SECOND) / 86400) + 1
    const native: any[] = []
    for (let d = 0; d < days; d += 10) {
      const from = new Date((SECOND + d * 86400) * 1000).toISOString()
      native.push(...(await get(`/api/v1/satellites/25544/passes?latitude=47.6&longitude=-122.3&altitude=100&elevation-threshold=10&days=${Math.min(10, days - d)}&time=${from}`)).body.data)
    }
    // Searches started at other instants sample other grids: crossings agree to a few ms, so a whole second may differ by one.
    const whole = native.filter((p) => p.rise && p.set).map((p) => Date.parse(p.rise.datetime) / 1000)
    for (const rise of rises) expect(whole.some((w) => Math.abs(w - rise) < 1.01)).toBe(true)
  })

  test('fewer than n when the elements give no positions further on; none at all: 422', async () => {
    // 28 days after the epoch, positions end 2 days later (30-day limit): far fewer than 100 passes.
    const late = appFor(catalog, Date.UTC(2026, 5, 27, 12))
    const r = await get(`/iss-pass.json?${SEATTLE}&n=100`, late)
    expect(r.status).toBe(200)
    expect(r.body.response.length).toBeGreaterThan(3)
    expect(r.body.response.length).toBeLessThan(20)
    const stale = await get(`/iss-pass.json?${SEATTLE}`, appFor(catalog, Date.UTC(2026, 10, 22, 10)))
    expect(stale.status).toBe(422)
    expect(stale.body.message).toBe('failure')
    expect(stale.body.reason).toMatch(/^satellite 25544 has no valid position between/)
  })

  test("bad input: 400 with the original's reasons", async () => {
    const cases: [string, RegExp][] = [
      ['lon=1', /^Latitude must be specified\.$/],
      ['lat=1', /^Longitude must be specified\.$/],
      ['lat=91&lon=0', /^Latitude must be number between -90\.0 and 90\.0 \(got "91"\)$/],
      ['lat=abc&lon=0', /^Latitude must be number between -90\.0 and 90\.0/],
      ['lat=0&lon=181', /^Longitude must be number between -180\.0 and 180\.0/],
      ['lat=0&lon=0&alt=-1', /^Altitude must be number between 0 and 10,000/],
      ['lat=0&lon=0&n=0', /^Number of passes must be number between 1 and 100/],
      ['lat=0&lon=0&n=101', /^Number of passes must be number between 1 and 100/],
      ['lat=0&lat=1&lon=0', /^lat must be given only once \(got "0", "1"\)$/],
    ]
    for (const [query, reason] of cases) {
      const r = await get(`/iss-pass.json?${query}`)
      expect({ query, status: r.status }).toEqual({ query, status: 400 })
      expect(r.body.message).toBe('failure')
      expect(r.body.reason).toMatch(reason)
    }
    // A fraction of n is cut to its whole part, as the original's int(n) did; 0.5 is below 1.
    expect((await get('/iss-pass.json?lat=0&lon=0&n=2.7')).body.request.passes).toBe(2)
    expect((await get('/iss-pass.json?lat=0&lon=0&n=0.5')).status).toBe(400)
    // lat=0 is a latitude (the original refused it: 0.0 is false in Python).
    expect((await get('/iss-pass.json?lat=0&lon=0&n=1')).status).toBe(200)
  })
})

describe('astros', () => {
  test('who is in space is not known here: number null, people empty, and why; so pyiss and Home Assistant keep working', async () => {
    for (const path of ['/astros.json', '/astros/', '/astros/v1/']) {
      const r = await get(path)
      expect(r.status).toBe(200)
      expect(r.body).toMatchObject({ message: 'success', number: null, people: [] })
      expect(r.body.reason).toMatch(/not in orbital element sets/)
    }
  })
})
