/**
 * The clients of N2YO, Open Notify and wheretheiss.at against the compiled
 * executable on loopback: their exact calls replayed (test/reference/
 * compat_clients.py: requests, aiohttp and dacite as the clients use them),
 * every field they read checked with the type they expect, and the values
 * compared with the executable's native routes at the same instant.
 *
 * Two instances, both from the real ISS, HST, Tiangong, Starlink and
 * geostationary element sets of the embedded snapshot with their epoch moved
 * (`--snapshot`), so that the tests hold whatever today's date and the
 * embedded data's age: six hours ago, so that "now" has positions under the
 * default rules (30-day element age), and 60 days ago, so that it has none:
 * every client must then see an error in its API's shape, never a position.
 *
 * Libraries that install from npm run for real on what the service serves:
 * tle.js on the GP feed's TLE and satellite.js's json2satrec on its OMM JSON;
 * Skyfield and PyEphem (Debian) are the independent references; JSONP runs in
 * Chromium.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { degreesLat, degreesLong, eciToGeodetic, gstime, json2satrec, propagate } from 'satellite.js'
import { getSatelliteInfo } from 'tle.js'
import { ommRecordOf } from '../../src/domain/catalog/omm.ts'
import { compassPoint } from '../../src/domain/orbit/observing.ts'
import { embeddedCatalog } from '../helpers/catalog.ts'
import { CHROMIUM, CHROMIUM_ARGS, call, requireChromium, type Service, startService } from './harness.ts'

setDefaultTimeout(60_000)

const PYTHON = '/usr/bin/python3'
const SCRIPT = join(import.meta.dir, '../reference/compat_clients.py')
/** N2YO's documentation example observer (Dryden, NY): 41.702, -76.014, 0 m; here at 250 m. */
const OBSERVER = { lat: 41.702, lon: -76.014, alt: 250 }

let fresh: Service
let stale: Service
let folders: string[] = []
let freshRun: any
let staleRun: any

/** The Python replay against `base`, as JSON. */
async function replay(base: string, scenario: 'fresh' | 'stale') {
  const proc = Bun.spawn([PYTHON, SCRIPT, base, scenario, String(OBSERVER.lat), String(OBSERVER.lon), String(OBSERVER.alt)], {
    stdout: 'pipe',
    stderr: 'pipe',
    // Loopback only: no proxy may intercept it.
    env: { ...process.env, no_proxy: '*', NO_PROXY: '*', http_proxy: '', HTTP_PROXY: '', https_proxy: '', HTTPS_PROXY: '' },
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) throw new Error(`compat_clients.py ${scenario} failed (exit ${code}); \`make deps-test\` installs python3-requests, python3-aiohttp, python3-dacite, python3-skyfield and python3-ephem:\n${stderr}`)
  return JSON.parse(stdout)
}

/** A folder of OMM JSON groups: real element sets of the embedded snapshot with their epoch moved to `epochMs`. */
async function movedSnapshot(epochMs: number): Promise<string> {
  const catalog = await embeddedCatalog()
  const epoch = new Date(epochMs).toISOString().replace('Z', '000')
  const starlinks = catalog.satellites.filter((s) => s.groups.includes('starlink')).slice(0, 400)
  const groups: Record<string, number[]> = { stations: [25544, 48274], science: [20580], geo: [19548], starlink: starlinks.map((s) => s.noradId) }
  const dir = mkdtempSync(join(tmpdir(), 'sattrack-compat-'))
  for (const [group, ids] of Object.entries(groups)) {
    writeFileSync(join(dir, `${group}.json`), JSON.stringify(ids.map((id) => ({ ...ommRecordOf(catalog.get(id)!.elements), EPOCH: epoch }))))
  }
  return dir
}

beforeAll(async () => {
  const now = Math.floor(Date.now() / 1000) * 1000
  folders = [await movedSnapshot(now - 6 * 3_600_000), await movedSnapshot(now - 60 * 86_400_000)]
  const [freshFolder, staleFolder] = folders as [string, string]
  ;[fresh, stale] = await Promise.all([startService({ args: ['--snapshot', freshFolder] }), startService({ args: ['--snapshot', staleFolder] })])
  ;[freshRun, staleRun] = await Promise.all([replay(fresh.url, 'fresh'), replay(stale.url, 'stale')])
}, 120_000)

afterAll(async () => {
  if (fresh) expect(await fresh.stop()).toBe(0)
  if (stale) expect(await stale.stop()).toBe(0)
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})

const native = async (service: Service, path: string) => (await call(service.url, path)).json
const iso = (seconds: number) => new Date(seconds * 1000).toISOString()
const unix = (text: string) => Math.round(Date.parse(text) / 1000)
const angleDiff = (a: number, b: number) => Math.abs(((a - b + 540) % 360) - 180)

/** Passes from the native route for each second a call may have started in: the compatible routes search from the current second. */
async function nativePasses(service: Service, seconds: [number, number], query: string) {
  const out: any[][] = []
  for (let s = seconds[0]; s <= seconds[1]; s++) out.push((await native(service, `/api/v1/satellites/25544/passes?${query}&time=${iso(s)}`)).data)
  return out
}

describe('N2YO clients', () => {
  test('n2yo (requests, path + params): tle, positions, passes and above, equal to the native routes at their second', async () => {
    const got = freshRun.n2yo
    const satellite = (await native(fresh, '/api/v1/satellites/25544')).data
    expect(got.tle.transactionscount).toBe(0)
    expect(got.tle.info).toEqual({ satid: 25544, satname: 'ISS (ZARYA)', transactionscount: 0 })
    expect(got.tle.tle).toBe(`${satellite.tle.line1}\r\n${satellite.tle.line2}`)

    const p = got.positions
    expect(p.timestamps).toHaveLength(2)
    expect(p.timestamps[0]).toBeGreaterThanOrEqual(p.before)
    expect(p.timestamps[0]).toBeLessThanOrEqual(p.after)
    expect(p.timestamps[1]).toBe(p.timestamps[0] + 1)
    for (const [i, s] of p.timestamps.entries()) {
      const geo = await native(fresh, `/api/v1/satellites/25544/geoposition?time=${iso(s)}`)
      expect(p.positions[i]).toEqual([geo.latitude, geo.longitude, geo.altitude])
      // Skyfield on the TLE N2YO served: look angles and topocentric RA/Dec of date.
      const ref = freshRun.skyfield[i]
      expect(angleDiff(p.azels[i][0], ref.azimuth)).toBeLessThan(0.01)
      expect(Math.abs(p.azels[i][1] - ref.elevation)).toBeLessThan(0.01)
      expect(angleDiff(p.radecs[i][0], ref.ra)).toBeLessThan(0.01)
      expect(Math.abs(p.radecs[i][1] - ref.dec)).toBeLessThan(0.01)
    }

    for (const kind of ['radiopasses', 'visualpasses'] as const) {
      const r = got[kind]
      expect(r.info.passescount).toBe(r.passes.length)
      const candidates = await nativePasses(fresh, [r.before, r.after], `latitude=${OBSERVER.lat}&longitude=${OBSERVER.lon}&altitude=${OBSERVER.alt}&elevation-threshold=0&days=2${kind === 'visualpasses' ? '&visible-only=true' : ''}`)
      const matches = candidates.some((data) => {
        if (kind === 'radiopasses') {
          const expected = data.filter((x: any) => x.culmination.elevation >= 10 && x.rise && x.set)
          return JSON.stringify(r.passes.map((x: any) => [x.startUTC, x.maxUTC, x.endUTC, x.maxEl, x.startAzCompass])) === JSON.stringify(expected.map((x: any) => [unix(x.rise.datetime), unix(x.culmination.datetime), unix(x.set.datetime), x.culmination.elevation, compassPoint(x.rise.azimuth)]))
        }
        const expected = data.filter((x: any) => x.visibleWindows.reduce((sum: number, w: any) => sum + Date.parse(w.to) - Date.parse(w.from), 0) >= 300_000)
        return JSON.stringify(r.passes.map((x: any) => [x.startUTC, x.endUTC, x.mag])) === JSON.stringify(expected.map((x: any) => [unix(x.visibleWindows[0].from), unix(x.visibleWindows.at(-1).to), x.brightest.magnitude]))
      })
      expect({ kind, matches }).toEqual({ kind, matches: true })
    }
    expect(got.radiopasses.passes.length).toBeGreaterThan(0)

    // above: everything over the horizon; its satellites are the ones /nearby lists above 10°, plus those between 0° and 10°.
    const above = got.above
    expect(above.info).toMatchObject({ category: 'ANY', transactionscount: 0, satcount: above.above.length })
    const nearbySets = []
    for (let s = above.before; s <= above.after; s++) nearbySets.push((await native(fresh, `/api/v1/satellites/nearby?latitude=${OBSERVER.lat}&longitude=${OBSERVER.lon}&altitude=${OBSERVER.alt}&time=${iso(s)}`)).satellites.map((x: any) => x.noradId))
    const ids = new Set(above.above.map((a: any) => a.satid))
    expect(nearbySets.some((set) => set.every((id: number) => ids.has(id)))).toBe(true)
  })

  test('the first n2yo releases ("%d/%f/%f/%f/%d", positions without any key) and N2YO\'s own URL form (&apiKey= glued to the path, even after a slash)', async () => {
    const printf = freshRun.n2yo_printf
    expect(printf.transactionscount).toBe(0)
    for (const [i, s] of printf.positions.timestamps.entries()) {
      const geo = await native(fresh, `/api/v1/satellites/25544/geoposition?time=${iso(s)}`)
      expect(printf.positions.latlng[i]).toEqual([geo.latitude, geo.longitude])
    }
    expect(printf.radiopasses).toBeGreaterThanOrEqual(0)
    expect(Number.isInteger(printf.above_satcount)).toBe(true)
    const hand = freshRun.n2yo_handbuilt
    const satellite = (await native(fresh, '/api/v1/satellites/25544')).data
    expect(hand.lines).toEqual([satellite.tle.line1, satellite.tle.line2])
    expect(hand.radiopasses_status).toBe(200)
    expect(hand.radiopasses.info).toMatchObject({ satid: 25544, transactionscount: 0 })
  })

  test('n2yo-api-wrapper: every answer fits its typed dataclasses (dacite: int fields are integers, lists are there even when empty)', () => {
    const got = freshRun.n2yo_wrapper
    expect(got.tle_satid).toBe(25544)
    expect(got.positions).toBe(5)
    expect(got.radio).toBeGreaterThan(0)
    expect(got.above).toBeGreaterThan(0)
    expect(got.above_starlink.length).toBeLessThanOrEqual(got.above)
    for (const p of got.visual) {
      expect(Number.isInteger(p.duration)).toBe(true)
      expect(p.mag === 100000 || (p.mag > -6 && p.mag < 9)).toBe(true)
    }
  })

  test("n2yoasync as Home Assistant's hasatellitetracker drives it (aiohttp: the answers must be application/json; the category enum itself in the URL)", async () => {
    const got = freshRun.n2yoasync
    expect(got.config_tle).toBe(25544)
    expect(got.location_sensor.state).toBe(freshRun.n2yo.above.above.length > 0 ? got.location_sensor.state : 0)
    expect(got.location_sensor.state).toBeGreaterThan(0)
    for (const [satid, satname, launchDate, lat, lng, alt] of got.location_sensor.attributes) {
      expect(Number.isInteger(satid)).toBe(true)
      expect(typeof satname).toBe('string')
      expect(launchDate).toBe('')
      for (const v of [lat, lng, alt]) expect(typeof v).toBe('number')
    }
    expect(got.device_tracker.every((v: unknown) => typeof v === 'number')).toBe(true)
    for (const sensor of got.radio_sensors) {
      expect(Number.isInteger(sensor.state)).toBe(true)
      expect(sensor.state).toBeGreaterThan(0)
      for (const [i, c] of sensor.compasses.entries()) expect(c).toBe(compassPoint(sensor.azimuths[i]))
    }
    expect(got.radio_sensors.length).toBeGreaterThan(0)
    for (const sensor of got.visual_sensors) expect(sensor.state).toBeGreaterThan(300)
    expect(got.warning_inputs[0]).toBeGreaterThan(Date.now() / 1000 - 600)
  })

  test('stale data (elements 60 days old): n2yoasync reads an "error" and raises, as for any N2YO error; the TLE is still served', () => {
    expect(staleRun.n2yoasync).toMatchObject({ status: 422, raises: true })
    expect(staleRun.n2yoasync.error).toMatch(/^satellite 25544 has no valid position at .*: the elements are \d+ days old/)
    expect(staleRun.n2yo_tle.info).toEqual({ satid: 25544, satname: 'ISS (ZARYA)', transactionscount: 0 })
  })
})

describe('Open Notify clients', () => {
  test('pyiss and Home Assistant: current location (strings), is_ISS_above, next_rise, people (unknown: null)', async () => {
    const got = freshRun.pyiss
    expect(got.current_location.ok).toBe(true)
    const location = got.current_location.value
    expect(typeof location.latitude).toBe('string')
    expect(location.latitude).toMatch(/^-?\d+\.\d{4}$/)
    const [lat, lon, timestamp] = got.script.value
    const geo = await native(fresh, `/api/v1/satellites/25544/geoposition?time=${iso(timestamp)}`)
    expect([lat, lon]).toEqual([Number(geo.latitude.toFixed(4)), Number(geo.longitude.toFixed(4))])
    expect(got.people).toMatchObject({ ok: true, value: { message: 'success', number: null, people: [] } })
    expect(got.number_of_people_in_space).toEqual({ ok: true, value: null })
    expect(got.home_assistant.state).toBeNull()
    expect(typeof got.home_assistant.attributes.lat).toBe('string')
    expect(got.is_ISS_above.ok).toBe(true)
    expect(typeof got.is_ISS_above.value).toBe('boolean')
    expect(got.next_rise.ok).toBe(true)
    expect(Date.parse(got.next_rise.value)).toBeGreaterThan(Date.now() - 3_600_000)
  })

  test('iss-pass: the native passes at 10° from request.datetime, and Skyfield\'s find_events at 10° on the TLE served', async () => {
    const r = freshRun.iss_pass.value
    expect(r.message).toBe('success')
    expect(r.request).toMatchObject({ altitude: 100, latitude: OBSERVER.lat, longitude: OBSERVER.lon, passes: 10 })
    const start = r.request.datetime
    expect(start).toBeGreaterThanOrEqual(freshRun.iss_pass.before)
    expect(start).toBeLessThanOrEqual(freshRun.iss_pass.after)
    const data = (await native(fresh, `/api/v1/satellites/25544/passes?latitude=${OBSERVER.lat}&longitude=${OBSERVER.lon}&altitude=100&elevation-threshold=10&days=5&time=${iso(start)}`)).data
    const expected = data
      .slice(0, 10)
      .filter((p: any) => p.rise && p.set)
      .map((p: any) => ({ duration: Math.trunc((Date.parse(p.set.datetime) - Date.parse(p.rise.datetime)) / 1000), risetime: Math.floor(Date.parse(p.rise.datetime) / 1000) }))
      .filter((p: any) => p.duration > 60)
    expect(r.response).toEqual(expected)
    expect(r.response.length).toBeGreaterThanOrEqual(5)
    // Skyfield on the TLE the service serves. Its altitude crosses 10° within the second after each risetime and
    // within the two seconds after risetime + duration (Open Notify cuts both down to whole seconds), to 0.01°
    // (UT1 taken as UTC here moves the sky by ~0.002°; the ISS moves ~0.05°/s near 10°).
    const { passes: found, altitudes } = freshRun.iss_pass_skyfield
    expect(altitudes.length).toBe(r.response.length)
    r.response.forEach((pass: any, k: number) => {
      const { rise, set } = altitudes[k]
      const crossings = { rising: rise[0] <= 10.01 && rise[1] >= 9.99, setting: set[0] >= 9.99 && set[1] <= 10.01 }
      expect({ pass, rise, set, crossings }).toEqual({ pass, rise, set, crossings: { rising: true, setting: true } })
    })
    // And its find_events finds the same passes: each one served within 15 s of one of its own (find_events places
    // an event to within ~13 s, see test/reference/compat_clients.py), and none of its own missing from the served
    // ones (those over 90 s: Open Notify leaves out passes of a minute or less, and find_events' durations are rough).
    for (const pass of r.response) expect({ pass, found: found.some((x: any) => Math.abs(x.risetime - pass.risetime) <= 15) }).toEqual({ pass, found: true })
    const lastServed = r.response.at(-1).risetime
    for (const event of found.filter((x: any) => x.risetime <= lastServed && x.duration > 90)) {
      expect({ event, served: r.response.some((p: any) => Math.abs(p.risetime - event.risetime) <= 15) }).toEqual({ event, served: true })
    }
  })

  test('stale data: pyiss raises ("Error server n 422") on the position and the passes; people still answers', () => {
    const got = staleRun.pyiss
    expect(got.current_location).toEqual({ ok: false, error: 'Exception: Error server n 422' })
    expect(got.is_ISS_above).toEqual({ ok: false, error: 'Exception: Error server n 422' })
    expect(got.script.ok).toBe(false)
    expect(got.script.error).toMatch(/^HTTPError: 422/)
    expect(got.people.ok).toBe(true)
  })

  test('JSONP in Chromium: a <script> with ?callback= calls the page back with the answer', async () => {
    requireChromium()
    const { chromium } = await import('playwright-core')
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
    try {
      const page = await browser.newPage()
      const foreign: string[] = []
      page.on('request', (request) => {
        if (!request.url().startsWith(fresh.url)) foreign.push(request.url())
      })
      await page.goto(`${fresh.url}/api/v1/service/healthcheck`)
      const answer = await page.evaluate(
        (base) =>
          new Promise((resolve, reject) => {
            ;(window as any).issNow = resolve
            const script = document.createElement('script')
            script.src = `${base}/iss-now.json?callback=issNow`
            script.onerror = () => reject(new Error('script failed'))
            document.head.appendChild(script)
          }),
        fresh.url,
      )
      expect(answer).toMatchObject({ message: 'success', iss_position: { latitude: expect.any(String), longitude: expect.any(String) } })
      // wheretheiss.at's browser clients: fetch, then the numbers.
      const where = await page.evaluate(async (base) => {
        const { latitude, longitude, altitude, timestamp } = await (await fetch(`${base}/v1/satellites/25544`)).json()
        return [Number(latitude), Number(longitude), altitude, timestamp]
      }, fresh.url)
      const geo = await native(fresh, `/api/v1/satellites/25544/geoposition?time=${iso(where[3] as number)}`)
      expect(where.slice(0, 3)).toEqual([geo.latitude, geo.longitude, geo.altitude])
      expect(foreign).toEqual([])
    } finally {
      await browser.close()
    }
  })
})

describe('wheretheiss.at clients', () => {
  test('position, 9-point track and miles: the native values at their timestamps; the sub-solar point as PyEphem has it', async () => {
    const got = freshRun.wheretheiss
    const p = got.position
    const geo = await native(fresh, `/api/v1/satellites/25544/geoposition?time=${iso(p.timestamp)}`)
    expect([p.latitude, p.longitude, p.altitude]).toEqual([geo.latitude, geo.longitude, geo.altitude])
    expect(p).toMatchObject({ name: 'iss', id: 25544, units: 'kilometers', visibility: expect.stringMatching(/^(daylight|eclipsed)$/) })
    expect(Math.abs(p.solar_lat - freshRun.subsolar.latitude)).toBeLessThan(0.02)
    expect(angleDiff(p.solar_lon, freshRun.subsolar.longitude)).toBeLessThan(0.02)
    expect(got.track).toHaveLength(9)
    for (const point of got.track) {
      const at = await native(fresh, `/api/v1/satellites/25544/geoposition?time=${iso(point.timestamp)}`)
      expect([point.latitude, point.longitude, point.altitude]).toEqual([at.latitude, at.longitude, at.altitude])
    }
    expect(got.miles.units).toBe('miles')
  })

  test('coordinates (str(float) and "%.6f, %.6f"), and the TLE as Open Notify\'s own updater read it', async () => {
    const got = freshRun.wheretheiss
    expect(got.coordinates.latitude).toBe(String(got.position.latitude))
    expect(typeof got.coordinates.offset).toBe('number')
    expect(got.country === 'None' || /^[A-Z]{2}$/.test(got.country)).toBe(true)
    expect(got.coordinates_spaced).toEqual(['Europe/Paris', 'FR', 'https://maps.google.com/maps?q=48.856600,2.352200&z=4'])
    const satellite = (await native(fresh, '/api/v1/satellites/25544')).data
    expect(got.tles).toMatchObject({ id: '25544', name: 'iss', header: 'ISS (ZARYA)', line1: satellite.tle.line1, line2: satellite.tle.line2, tle_timestamp: Math.floor(Date.parse(satellite.epoch) / 1000) })
  })

  test('stale data: {"error", "status": 422}', () => {
    expect(staleRun.wheretheiss.status).toBe(422)
    expect(staleRun.wheretheiss.body).toEqual({ error: expect.stringMatching(/^satellite 25544 has no valid position/), status: 422 })
  })
})

describe('libraries from npm on what the service serves', () => {
  test("tle.js on the GP feed's TLE and satellite.js's json2satrec on its OMM JSON give the compatible routes' positions", async () => {
    const text = (await call(fresh.url, '/NORAD/elements/gp.php?CATNR=25544&FORMAT=TLE')).text
    const omm = (await call(fresh.url, '/NORAD/elements/gp.php?CATNR=25544&FORMAT=JSON')).json[0]
    const satrec = json2satrec(omm)
    const stamps = Array.from({ length: 5 }, (_, i) => Math.floor(Date.now() / 1000) + i * 600)
    const track = (await call(fresh.url, `/v1/satellites/25544/positions?timestamps=${stamps.join(',')}`)).json
    for (const [i, s] of stamps.entries()) {
      // tle.js (satellite.js 6 inside, its own time handling): within 0.0001° (~10 m).
      const info = getSatelliteInfo(text.trim(), s * 1000, 10, 10, 0)
      expect(Math.abs(info.lat - track[i].latitude)).toBeLessThan(1e-4)
      expect(angleDiff(info.lng, track[i].longitude)).toBeLessThan(1e-4)
      const date = new Date(s * 1000)
      const pv = propagate(satrec, date)
      if (!pv || typeof pv.position === 'boolean') throw new Error('json2satrec: no position')
      const g = eciToGeodetic(pv.position, gstime(date))
      expect(Math.abs(degreesLat(g.latitude) - track[i].latitude)).toBeLessThan(1e-4)
      expect(angleDiff(degreesLong(g.longitude), track[i].longitude)).toBeLessThan(1e-4)
      expect(Math.abs(g.height - track[i].altitude)).toBeLessThan(0.01)
    }
  })
})
