/** GET /api/v1/satellites/nearby through app.handle: filters, ordering, modes, echo and errors. */
import { NO_AGE_LIMIT } from '../../../src/domain/orbit/validity.ts'
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { findNearby } from '../../../src/domain/nearby/reference.ts'
import { inAzimuthWindow } from '../../../src/domain/nearby/selection.ts'
import { dopplerShiftHz } from '../../../src/domain/orbit/radio.ts'
import { NEARBY_DECIMALS as D, rounded, roundedAzimuth } from '../../../src/http/routes/nearby/precision.ts'
import { nearbyEntryJson } from '../../../src/http/routes/nearby/model.ts'
import { elementAgeDaysAt } from '../../../src/http/routes/satellites/model.ts'
import { appFor, embeddedCatalog, request } from '../../helpers/catalog.ts'
import { NEARBY_BASIC_KEYS } from '../../helpers/contract.ts'
import { declaredParameters, describeParameters } from '../../helpers/params.ts'

// London just after midnight on 31 May 2026: dark sky, many sunlit LEO satellites.
const NIGHT = 'latitude=51.5&longitude=-0.12&time=2026-05-31T00:30:00Z'
const NOW = Date.UTC(2026, 4, 31, 12)

let catalog: Catalog
let app: ReturnType<typeof appFor>
beforeAll(async () => {
  catalog = await embeddedCatalog()
  app = appFor(catalog, NOW)
})

const nearby = async (query: string) => request(app, `/api/v1/satellites/nearby?${query}`)

describe('GET /api/v1/satellites/nearby', () => {
  test('basic mode: fields, threshold 10° by default, highest first, observer echo', async () => {
    const { status, body } = await nearby(NIGHT)
    expect(status).toBe(200)
    // At the data's own date: every element set within the 30-day limit, none decayed yet.
    expect(body.metadata).toEqual({ total: body.satellites.length, mode: 'basic', magnitudeLimit: 4.5, leftOut: { elementAge: 0, decayed: 0 }, maxElementAgeDays: 30 })
    expect(body.observer).toEqual({ latitude: 51.5, longitude: -0.12, altitude: 0, datetime: '2026-05-31T00:30:00.000Z' })
    expect(body.satellites.length).toBeGreaterThan(100)
    const elevations = body.satellites.map((s: any) => s.elevation)
    expect(elevations).toEqual([...elevations].sort((a: number, b: number) => b - a))
    for (const s of body.satellites) {
      expect(Object.keys(s).sort()).toEqual(NEARBY_BASIC_KEYS)
      expect(s.elevation).toBeGreaterThanOrEqual(10)
      expect(s.azimuth).toBeGreaterThanOrEqual(0)
      expect(s.azimuth).toBeLessThan(360)
      expect(s.range).toBeGreaterThan(s.altitude - 1)
      expect(s.observerDaytime).toBe(false)
      // A magnitude exactly for the sunlit ones; visible: sunlit (the sky is dark) and no fainter than the limit.
      expect(s.magnitude === null).toBe(!s.satelliteSunlit)
      expect(s.visible).toBe(s.satelliteSunlit && s.magnitude <= 4.5)
    }
    expect(body.satellites.some((s: any) => s.visible)).toBe(true)
    // Sunlit but too faint for the naked eye: most of them (Starlink, OneWeb, small satellites).
    expect(body.satellites.filter((s: any) => s.satelliteSunlit && !s.visible).length).toBeGreaterThan(body.satellites.filter((s: any) => s.visible).length)
  })

  test('extended mode adds geoposition and orbitalParams', async () => {
    const { body } = await nearby(`${NIGHT}&mode=extended`)
    expect(body.metadata.mode).toBe('extended')
    for (const s of body.satellites) {
      expect(Object.keys(s).sort()).toEqual([...NEARBY_BASIC_KEYS, 'geoposition', 'orbitalParams'].sort())
      expect(Object.keys(s.geoposition).sort()).toEqual(['latitude', 'longitude'])
      expect(s.orbitalParams).toEqual(catalog.get(s.noradId)!.orbitalParams)
    }
  })

  test('the elevation threshold and observer altitude are applied and echoed', async () => {
    const all = (await nearby(NIGHT)).body.satellites
    const high = (await nearby(`${NIGHT}&elevation-threshold=45&altitude=250`)).body
    expect(high.observer.altitude).toBe(250)
    expect(high.satellites.length).toBeGreaterThan(0)
    expect(high.satellites.length).toBeLessThan(all.length)
    for (const s of high.satellites) expect(s.elevation).toBeGreaterThanOrEqual(45)
  })

  test('azimuth window: plain, wrapping through north, and a single azimuth', async () => {
    const all = (await nearby(NIGHT)).body.satellites
    const east = (await nearby(`${NIGHT}&azimuth-range-from=45&azimuth-range-to=135`)).body.satellites
    const north = (await nearby(`${NIGHT}&azimuth-range-from=300&azimuth-range-to=60`)).body.satellites
    expect(east.map((s: any) => s.noradId)).toEqual(all.filter((s: any) => s.azimuth >= 45 && s.azimuth <= 135).map((s: any) => s.noradId))
    expect(north.map((s: any) => s.noradId)).toEqual(all.filter((s: any) => s.azimuth >= 300 || s.azimuth <= 60).map((s: any) => s.noradId))
    expect(east.length).toBeGreaterThan(0)
    expect(north.length).toBeGreaterThan(0)
    // A window as narrow as the azimuth's stated precision (1e-6°) either side of a shown azimuth holds it.
    const one = all[0]
    const exact = (await nearby(`${NIGHT}&azimuth-range-from=${one.azimuth - 0.000001}&azimuth-range-to=${one.azimuth + 0.000001}`)).body.satellites
    expect(exact.map((s: any) => s.noradId)).toEqual([one.noradId])
  })

  test('inAzimuthWindow bounds are inclusive', () => {
    expect(inAzimuthWindow(45, 45, 135)).toBe(true)
    expect(inAzimuthWindow(135, 45, 135)).toBe(true)
    expect(inAzimuthWindow(135.0001, 45, 135)).toBe(false)
    expect(inAzimuthWindow(0, 300, 60)).toBe(true)
    expect(inAzimuthWindow(359.9, 300, 60)).toBe(true)
    expect(inAzimuthWindow(200, 300, 60)).toBe(false)
    expect(inAzimuthWindow(0, 0, 360)).toBe(true)
  })

  test('visible-only keeps exactly the visible ones', async () => {
    const all = (await nearby(NIGHT)).body.satellites
    const visible = (await nearby(`${NIGHT}&visible-only=true`)).body.satellites
    expect(visible.map((s: any) => s.noradId)).toEqual(all.filter((s: any) => s.visible).map((s: any) => s.noradId))
    expect(visible.length).toBeGreaterThan(0)
  })

  test('magnitude-limit: echoed, and visible is sunlit in a dark sky and no fainter than it', async () => {
    const all = (await nearby(NIGHT)).body.satellites
    for (const limit of [-1, 3, 6.5, 8]) {
      const { body } = await nearby(`${NIGHT}&magnitude-limit=${limit}`)
      expect(body.metadata.magnitudeLimit).toBe(limit)
      expect(body.satellites.map((s: any) => s.noradId)).toEqual(all.map((s: any) => s.noradId))
      for (const s of body.satellites) expect(s.visible).toBe(s.satelliteSunlit && s.magnitude <= limit)
      const only = (await nearby(`${NIGHT}&magnitude-limit=${limit}&visible-only=true`)).body.satellites
      expect(only.map((s: any) => s.noradId)).toEqual(body.satellites.filter((s: any) => s.visible).map((s: any) => s.noradId))
    }
    const faint = (await nearby(`${NIGHT}&magnitude-limit=8&visible-only=true`)).body.satellites.length
    const bright = (await nearby(`${NIGHT}&magnitude-limit=3&visible-only=true`)).body.satellites.length
    expect(faint).toBeGreaterThan(bright)
  })

  test('geostationary satellites are never naked-eye visible by default: Sydney at night', async () => {
    const sydney = 'latitude=-33.8688&longitude=151.2093&elevation-threshold=10'
    for (const time of ['2026-05-30T10:00:00Z', '2026-05-30T14:00:00Z', '2026-05-30T18:30:00Z']) {
      const { body } = await nearby(`${sydney}&time=${time}`)
      const geo = body.satellites.filter((s: any) => s.labels.includes('GEO'))
      expect(geo.length).toBeGreaterThan(50)
      expect(geo.filter((s: any) => s.satelliteSunlit).length).toBeGreaterThan(50)
      for (const s of geo) {
        expect(s.visible).toBe(false)
        if (s.satelliteSunlit) expect(s.magnitude).toBeGreaterThan(8)
      }
      const visible = (await nearby(`${sydney}&time=${time}&visible-only=true`)).body.satellites
      expect(visible.filter((s: any) => s.labels.includes('GEO'))).toEqual([])
    }
  })

  test('in daylight nothing is visible, and visible-only lists nothing', async () => {
    const day = 'latitude=51.5&longitude=-0.12&time=2026-05-31T12:00:00Z'
    const { body } = await nearby(day)
    expect(body.satellites.length).toBeGreaterThan(50)
    expect(body.satellites.every((s: any) => s.observerDaytime && !s.visible)).toBe(true)
    expect((await nearby(`${day}&visible-only=true`)).body).toMatchObject({ metadata: { total: 0 }, satellites: [] })
  })

  test('without time, the clock gives the instant', async () => {
    expect((await nearby('latitude=0&longitude=0')).body.observer.datetime).toBe(new Date(NOW).toISOString())
  })

  test('months after the data: every satellite is left out for its elements\' age, and the notice says what to do', async () => {
    const { status, body } = await nearby('latitude=0&longitude=0&elevation-threshold=10&time=2026-11-22T10:00:00Z')
    expect(status).toBe(200)
    expect(body.satellites).toEqual([])
    // Those decayed within 30 days of their epochs say so; every other one is too old (a decay SGP4 predicts months
    // later is not said: the elements cannot support it).
    const { elementAge, decayed } = body.metadata.leftOut
    expect(elementAge + decayed).toBe(catalog.size)
    expect(decayed).toBeGreaterThan(100)
    expect(decayed).toBeLessThan(400)
    expect(body.metadata.notice).toStartWith(
      `${catalog.size} of ${catalog.size} satellites are left out: ${elementAge} have elements more than 30 days from 2026-11-22T10:00:00.000Z, ${decayed} have decayed by then`,
    )
    const dataTime = (await request(app, '/api/v1/service/status')).body.catalog.freshness.dataTime
    expect(body.metadata.notice).toEndWith(
      `Load newer data (--snapshot, --refresh-url, make snapshot), ask for a time near the data's (time=${dataTime}), or change --max-element-age.`,
    )
    // Following the advice: the sky at the data's own time leaves nothing out.
    expect((await nearby(`latitude=0&longitude=0&time=${dataTime}`)).body.metadata.leftOut).toEqual({ elementAge: 0, decayed: 0 })
  })

  test('months before the data: the notice asks for element sets from around then, not newer ones (which the refresh and make snapshot fetch)', async () => {
    const { body } = await nearby('latitude=0&longitude=0&time=2026-01-01T00:00:00Z')
    expect(body.metadata.leftOut).toEqual({ elementAge: catalog.size, decayed: 0 })
    expect(body.metadata.notice).toContain("Load element sets from around that time (--snapshot; the refresh and make snapshot fetch today's), ask for a time near the data's (time=")
    expect(body.metadata.notice).not.toContain('newer')
  })

  test('with no age limit, decayed satellites are left out and counted, and no height is implausible', async () => {
    const open = appFor(catalog.withPolicy(NO_AGE_LIMIT), NOW)
    const { body } = await request(open, '/api/v1/satellites/nearby?latitude=0&longitude=0&elevation-threshold=10&time=2026-11-22T10:00:00Z&mode=extended')
    expect(body.metadata.leftOut.elementAge).toBe(0)
    expect(body.metadata.leftOut.decayed).toBeGreaterThan(500)
    expect(body.metadata.maxElementAgeDays).toBeNull()
    expect(body.satellites.length).toBeGreaterThan(0)
    for (const s of body.satellites) {
      expect(s.altitude).toBeGreaterThanOrEqual(80)
      expect(s.altitude).toBeLessThanOrEqual(1.1 * s.orbitalParams.apogeeHeight + 200 + 1)
      expect(s.elementAgeDays).toBeGreaterThan(170)
    }
  })

  test("before some satellites' launch year, the notice says those counted by age may have been launched later (with no age limit, that is all they are)", async () => {
    const launchedIn2026 = catalog.satellites.filter((s) => s.elements.intlDesignator.startsWith('26')).length
    expect(launchedIn2026).toBeGreaterThan(100)
    const open = appFor(catalog.withPolicy(NO_AGE_LIMIT), NOW)
    const before = await request(open, '/api/v1/satellites/nearby?latitude=0&longitude=0&time=2025-12-31T23:59:59Z')
    expect(before.body.metadata.leftOut.elementAge).toBe(launchedIn2026)
    const old = await request(open, '/api/v1/satellites/nearby?latitude=0&longitude=0&time=1990-01-01T00:00:00Z')
    const { elementAge, decayed } = old.body.metadata.leftOut
    expect(elementAge).toBeGreaterThan(catalog.size / 2)
    expect(old.body.metadata.notice).toStartWith(`${elementAge + decayed} of ${catalog.size} satellites are left out: ${elementAge} were launched in a later year (as their international designators say)`)
    expect(old.body.metadata.notice).not.toContain('--max-element-age') // no limit to change
    // With the age limit, both reasons may hold: said together.
    const limited = await nearby('latitude=0&longitude=0&time=2025-12-31T23:59:59Z')
    expect(limited.body.metadata.notice).toContain(`${catalog.size} have elements more than 30 days from 2025-12-31T23:59:59.000Z or were launched in a later year`)
  })

  test('parameters: as declared (each refused outside its declaration with a 400 naming it: test/http/plugins/params.test.ts)', async () => {
    expect(describeParameters(declaredParameters(app).get('/api/v1/satellites/nearby')!)).toEqual([
      'latitude: number -90..90 required',
      'longitude: number -180..180 required',
      'altitude: number -1000..100000 = 0',
      'mode: basic|extended = basic',
      'azimuth-range-from: number 0..360 = 0',
      'azimuth-range-to: number 0..360 = 360',
      'elevation-threshold: number 10..90 = 10',
      'visible-only: boolean = false',
      'magnitude-limit: number -5..8 = 4.5',
      'time: instant',
      'frequency: number 0.001..300000',
    ])
    // The observer's altitude says its unit.
    expect((await nearby('latitude=0&longitude=0&altitude=100001')).body).toEqual({ statusCode: 400, message: 'altitude must be a number between -1000 and 100000 (metres) (got "100001")' })
  })

  test('an entry is the spread of its parts: basic fields, radio fields, then the extended ones (same keys, order and values, to the stated precision)', () => {
    const instant = new Date(Date.UTC(2026, 4, 31, 0, 30))
    const { entries } = findNearby(catalog, { observer: { latitudeDeg: 51.5, longitudeDeg: -0.12, altitudeM: 0 }, instant, minElevationDeg: 10, azimuthFromDeg: 0, azimuthToDeg: 360, visibleOnly: false })
    expect(entries.length).toBeGreaterThan(100)
    expect(entries.some((e) => e.magnitude === null) && entries.some((e) => e.magnitude !== null)).toBe(true)
    const ms = instant.getTime()
    for (const e of entries) {
      for (const daytime of [false, true]) {
        for (const extended of [false, true]) {
          for (const frequency of [undefined, 437.8]) {
            const basic = {
              noradId: e.satellite.noradId,
              name: e.satellite.name,
              labels: e.satellite.labels,
              altitude: rounded(e.altitudeKm, D.km),
              velocityKmHs: rounded(e.speedKmH, D.kmPerHour),
              elevation: rounded(e.elevationDeg, D.degrees),
              azimuth: roundedAzimuth(e.azimuthDeg),
              range: rounded(e.rangeKm, D.km),
              rangeRate: rounded(e.rangeRateKmS, D.kmPerSecond),
              ...(frequency === undefined ? {} : { dopplerShiftHz: rounded(dopplerShiftHz(frequency * 1e6, e.rangeRateKmS), D.hertz) }),
              magnitude: e.magnitude === null ? null : rounded(e.magnitude, D.magnitude),
              visible: e.visible,
              observerDaytime: daytime,
              satelliteSunlit: e.sunlit,
              epoch: e.satellite.epoch,
              elementAgeDays: elementAgeDaysAt(e.satellite, ms),
            }
            const spread = extended
              ? { ...basic, geoposition: { latitude: rounded(e.latitudeDeg!, D.degrees), longitude: rounded(e.longitudeDeg!, D.degrees) }, orbitalParams: e.satellite.orbitalParams }
              : basic
            expect(JSON.stringify(nearbyEntryJson(e, daytime, extended, ms, frequency))).toBe(JSON.stringify(spread))
          }
        }
      }
    }
  })

  test('numbers to the stated precision: 0.001 km and km/h, 1e-6° and km/s, 0.01 Hz and magnitude', async () => {
    const { body } = await nearby(`${NIGHT}&mode=extended&frequency=437.8`)
    const decimals = (x: number) => (String(x).split('.')[1] ?? '').length
    const most = (field: (s: any) => number) => Math.max(...body.satellites.map((s: any) => decimals(field(s))))
    // Each kind uses its decimals (over hundreds of entries some need every one) and never more.
    expect(most((s) => s.altitude)).toBe(3)
    expect(most((s) => s.range)).toBe(3)
    expect(most((s) => s.velocityKmHs)).toBe(3)
    expect(most((s) => s.elevation)).toBe(6)
    expect(most((s) => s.azimuth)).toBe(6)
    expect(most((s) => s.rangeRate)).toBe(6)
    expect(most((s) => s.geoposition.latitude)).toBe(6)
    expect(most((s) => s.geoposition.longitude)).toBe(6)
    expect(most((s) => s.dopplerShiftHz)).toBe(2)
    expect(most((s) => s.magnitude ?? 0)).toBe(2)
    // Rounded half up; an azimuth that rounds to 360 is north.
    expect(rounded(467.9660092861359, D.km)).toBe(467.966)
    expect(rounded(-7.9999995, D.kmPerSecond)).toBe(-7.999999)
    expect(rounded(0.0000005, D.kmPerSecond)).toBe(0.000001)
    expect(roundedAzimuth(359.9999996)).toBe(0)
    expect(roundedAzimuth(359.9999994)).toBe(359.999999)
  })

  test('unknown parameters are ignored', async () => {
    expect((await nearby('latitude=0&longitude=0&foo=bar')).status).toBe(200)
  })
})
