/** GET /api/v1/satellites/:noradId/passes through app.handle: shape, parameters, edge cases and every error. */
import { beforeAll, describe, expect, test } from 'bun:test'
import { buildCatalog, type Catalog } from '../../../src/domain/catalog/catalog.ts'
import { parseTle } from '../../../src/domain/catalog/elements.ts'
import { CatalogStore } from '../../../src/domain/catalog/store.ts'
import { createApp } from '../../../src/http/app.ts'
import { appFor, embeddedCatalog, request } from '../../helpers/catalog.ts'
import { declaredParameters, describeParameters } from '../../helpers/params.ts'
import { makeTle } from '../../helpers/tle.ts'
import { NO_AGE_LIMIT } from '../../../src/domain/orbit/validity.ts'

const NOW = Date.UTC(2026, 4, 31, 6)
const SYDNEY = 'latitude=-33.8688&longitude=151.2093&altitude=58'
const PARIS = 'latitude=48.8566&longitude=2.3522'
const T0 = '2026-05-31T00:00:00Z'

const PASS_KEYS = ['brightest', 'culmination', 'duration', 'rise', 'set', 'visible', 'visibleWindow', 'visibleWindows']
const METADATA_KEYS = [
  'days',
  'elementAgeDays',
  'elevationThreshold',
  'epoch',
  'from',
  'magnitudeLimit',
  'name',
  'noPosition',
  'noradId',
  'observer',
  'standardMagnitude',
  'to',
  'total',
  'visibleOnly',
]

let catalog: Catalog
let app: ReturnType<typeof appFor>
beforeAll(async () => {
  catalog = await embeddedCatalog()
  app = appFor(catalog, NOW)
})

const passes = (noradId: number | string, query: string, on = app) => request(on, `/api/v1/satellites/${noradId}/passes?${query}`)
const ms = (iso: string) => Date.parse(iso)

describe('GET /api/v1/satellites/:noradId/passes', () => {
  test('the ISS over Sydney for a day: passes in order, each with rise, culmination and set', async () => {
    const { status, body, headers } = await passes(25544, `${SYDNEY}&time=${T0}`)
    expect(status).toBe(200)
    expect(headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(Object.keys(body.metadata).sort()).toEqual(METADATA_KEYS)
    expect(body.metadata).toEqual({
      total: body.data.length,
      noradId: 25544,
      name: catalog.get(25544)!.name,
      epoch: new Date(catalog.get(25544)!.elements.epochMs).toISOString(),
      elementAgeDays: Math.round(((Date.parse('2026-05-31T00:00:00Z') - catalog.get(25544)!.elements.epochMs) / 86_400_000) * 1000) / 1000,
      observer: { latitude: -33.8688, longitude: 151.2093, altitude: 58 },
      from: '2026-05-31T00:00:00.000Z',
      to: '2026-06-01T00:00:00.000Z',
      days: 1,
      elevationThreshold: 10,
      visibleOnly: false,
      magnitudeLimit: 4.5,
      standardMagnitude: -1.8,
      noPosition: [],
    })
    expect(body.data.length).toBeGreaterThanOrEqual(3)
    let previousEnd = ms(body.metadata.from)
    for (const p of body.data) {
      expect(Object.keys(p).sort()).toEqual(PASS_KEYS)
      expect(Object.keys(p.rise).sort()).toEqual(['azimuth', 'datetime', 'elevation', 'rangeRate'])
      expect(Object.keys(p.set).sort()).toEqual(['azimuth', 'datetime', 'elevation', 'rangeRate'])
      expect(Object.keys(p.culmination).sort()).toEqual(['azimuth', 'datetime', 'elevation', 'magnitude', 'range', 'rangeRate'])
      if (p.brightest) expect(Object.keys(p.brightest).sort()).toEqual(['azimuth', 'datetime', 'elevation', 'magnitude', 'range', 'rangeRate'])
      // Approaching at the rise, receding at the set, all but still at the culmination (a low orbit: several km/s at the ends).
      expect(p.rise.rangeRate).toBeLessThan(-1)
      expect(p.set.rangeRate).toBeGreaterThan(1)
      expect(Math.abs(p.culmination.rangeRate)).toBeLessThan(0.05)
      // Visible exactly when the brightest moment sunlit in a dark sky is bright enough, and that moment lies in a visible window.
      expect(p.visible).toBe(p.brightest !== null && p.brightest.magnitude <= 4.5)
      if (p.visible) {
        const t = ms(p.brightest.datetime)
        expect(p.visibleWindows.some((w: any) => t >= ms(w.from) - 50 && t <= ms(w.to) + 50)).toBe(true)
      }
      for (const point of [p.rise, p.culmination, p.set]) {
        expect(point.datetime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        expect(point.azimuth).toBeGreaterThanOrEqual(0)
        expect(point.azimuth).toBeLessThan(360)
      }
      expect(ms(p.rise.datetime)).toBeGreaterThan(previousEnd)
      expect(ms(p.rise.datetime)).toBeLessThan(ms(p.culmination.datetime))
      expect(ms(p.culmination.datetime)).toBeLessThan(ms(p.set.datetime))
      expect(p.rise.elevation).toBeCloseTo(10, 2)
      expect(p.set.elevation).toBeCloseTo(10, 2)
      expect(p.culmination.elevation).toBeGreaterThan(10)
      expect(p.culmination.range).toBeGreaterThan(400)
      expect(p.culmination.range).toBeLessThan(1600)
      expect(p.duration).toBe((ms(p.set.datetime) - ms(p.rise.datetime)) / 1000)
      expect(p.duration).toBeLessThan(800)
      expect(p.visibleWindow).toEqual(p.visibleWindows[0] ?? null)
      expect(p.visible).toBe(p.visibleWindows.length > 0)
      for (const w of p.visibleWindows) {
        expect(ms(w.from)).toBeGreaterThanOrEqual(ms(p.rise.datetime))
        expect(ms(w.to)).toBeLessThanOrEqual(ms(p.set.datetime))
        expect(ms(w.to)).toBeGreaterThan(ms(w.from))
      }
      previousEnd = ms(p.set.datetime)
    }
    // Before dawn on 31 May (19:00Z, 05:00 in Sydney) the ISS comes out of the Earth's shadow: visible.
    expect(body.data.some((p: any) => p.visible)).toBe(true)
    expect(body.data.some((p: any) => !p.visible)).toBe(true)
  })

  test('defaults: now, one day, 10°; days, the threshold and the observer altitude are applied and echoed', async () => {
    const defaults = (await passes(25544, PARIS)).body.metadata
    expect(defaults.from).toBe(new Date(NOW).toISOString())
    expect(defaults.to).toBe(new Date(NOW + 86_400_000).toISOString())
    expect([defaults.days, defaults.elevationThreshold, defaults.visibleOnly, defaults.observer.altitude]).toEqual([1, 10, false, 0])

    const low = (await passes(25544, `${PARIS}&time=${T0}&days=3&elevation-threshold=0`)).body
    const high = (await passes(25544, `${PARIS}&time=${T0}&days=3&elevation-threshold=45&altitude=1200`)).body
    expect(low.metadata.to).toBe('2026-06-03T00:00:00.000Z')
    expect(high.metadata).toMatchObject({ days: 3, elevationThreshold: 45, observer: { altitude: 1200 } })
    expect(high.data.length).toBeGreaterThan(0)
    expect(high.data.length).toBeLessThan(low.data.length)
    for (const p of high.data) expect(p.culmination.elevation).toBeGreaterThanOrEqual(45)
    for (const p of low.data) expect(p.rise.elevation).toBeCloseTo(0, 2)
    // Each pass above 45° lies within one above the horizon.
    for (const p of high.data) {
      expect(low.data.some((q: any) => ms(q.rise.datetime) < ms(p.rise.datetime) && ms(q.set.datetime) > ms(p.set.datetime))).toBe(true)
    }
  })

  test('a time zone offset in time is honoured', async () => {
    const { body } = await passes(25544, `${PARIS}&time=2026-05-31T02:00:00%2B02:00`)
    expect(body.metadata.from).toBe('2026-05-31T00:00:00.000Z')
  })

  test('visible-only keeps exactly the visible passes', async () => {
    const all = (await passes(25544, `${SYDNEY}&time=${T0}&days=3`)).body
    const visible = (await passes(25544, `${SYDNEY}&time=${T0}&days=3&visible-only=true`)).body
    expect(visible.metadata.visibleOnly).toBe(true)
    expect(visible.data).toEqual(all.data.filter((p: any) => p.visible))
    expect(visible.metadata.total).toBe(visible.data.length)
    expect(visible.data.length).toBeGreaterThan(0)
    expect(visible.data.length).toBeLessThan(all.data.length)
  })

  test('a high ISS pass at night (Sydney, before dawn on 2 June 2026) is naked-eye visible, between magnitude -4.5 and -0.5', async () => {
    const { body } = await passes(25544, `${SYDNEY}&time=2026-06-01T19:45:00Z`)
    const p = body.data[0]
    expect(p.culmination.datetime).toStartWith('2026-06-01T19:56:1')
    expect(p.culmination.elevation).toBeGreaterThan(60)
    expect(p.visible).toBe(true)
    for (const m of [p.culmination.magnitude, p.brightest.magnitude]) {
      expect(m).toBeGreaterThan(-4.5)
      expect(m).toBeLessThan(-0.5)
    }
    expect(p.brightest.magnitude).toBeLessThanOrEqual(p.culmination.magnitude)
    expect(p.brightest.elevation).toBeGreaterThan(30)
    // The same instant through /nearby: the same magnitude (the same formula; the engine's positions).
    const near = await request(app, `/api/v1/satellites/nearby?${SYDNEY}&time=${p.brightest.datetime}&visible-only=true`)
    const iss = near.body.satellites.find((s: any) => s.noradId === 25544)
    expect(iss.visible).toBe(true)
    expect(Math.abs(iss.magnitude - p.brightest.magnitude)).toBeLessThanOrEqual(0.0100001)
    // A limit brighter than its brightest moment: not visible, no window.
    const strict = (await passes(25544, `${SYDNEY}&time=2026-06-01T19:45:00Z&magnitude-limit=${Math.floor(p.brightest.magnitude * 10) / 10 - 0.1}`)).body
    expect(strict.metadata.magnitudeLimit).toBeLessThan(p.brightest.magnitude)
    expect([strict.data[0].visible, strict.data[0].visibleWindows]).toEqual([false, []])
    expect(strict.data[0].brightest).toEqual(p.brightest)
  })

  test('the visible windows hold the magnitude limit: a fainter limit widens them', async () => {
    const query = `${SYDNEY}&time=2026-06-01T19:45:00Z`
    const duration = (b: any) => b.data[0].visibleWindows.reduce((sum: number, w: any) => sum + ms(w.to) - ms(w.from), 0)
    const bright = (await passes(25544, `${query}&magnitude-limit=-3`)).body
    const normal = (await passes(25544, query)).body
    expect(duration(bright)).toBeGreaterThan(0)
    expect(duration(bright)).toBeLessThan(duration(normal))
  })

  test('a geostationary satellite is never naked-eye visible by default, nor at the darkest skies\' limit', async () => {
    for (const limit of ['', '&magnitude-limit=8']) {
      const { body } = await passes(29055, `${PARIS}&time=${T0}&days=2${limit}`)
      const [p] = body.data
      expect(p.visible).toBe(false)
      expect(p.brightest).not.toBeNull()
      expect(p.brightest.magnitude).toBeGreaterThan(8)
    }
  })

  test('a pass in progress at the start has rise null and starts at `from`', async () => {
    const first = (await passes(25544, `${SYDNEY}&time=${T0}`)).body.data[0]
    const midPass = new Date((ms(first.rise.datetime) + ms(first.culmination.datetime)) / 2).toISOString()
    const { body } = await passes(25544, `${SYDNEY}&time=${midPass}`)
    const cut = body.data[0]
    expect(cut.rise).toBeNull()
    // The same pass, found from another grid: the same instants to a few ms.
    expect(Math.abs(ms(cut.set.datetime) - ms(first.set.datetime))).toBeLessThan(10)
    expect(Math.abs(ms(cut.culmination.datetime) - ms(first.culmination.datetime))).toBeLessThan(10)
    expect(cut.culmination.elevation).toBeCloseTo(first.culmination.elevation, 5)
    expect(cut.duration).toBe((ms(cut.set.datetime) - ms(body.metadata.from)) / 1000)
  })

  test('a geostationary satellite above the threshold never sets: one pass over the whole time, rise and set null', async () => {
    const { body } = await passes(29055, `${PARIS}&time=${T0}&days=2`)
    expect(body.data.length).toBe(1)
    const [p] = body.data
    expect([p.rise, p.set, p.duration]).toEqual([null, null, 2 * 86_400])
    expect(ms(p.culmination.datetime)).toBeGreaterThanOrEqual(ms(T0))
    expect(ms(p.culmination.datetime)).toBeLessThanOrEqual(ms(body.metadata.to))
  })

  test('a satellite that never rises above the threshold: no passes', async () => {
    const geo = await passes(29055, `latitude=78.2232&longitude=15.6267&time=${T0}&days=2`)
    expect(geo.status).toBe(200)
    expect(geo.body.data).toEqual([])
    expect(geo.body.metadata.total).toBe(0)
    expect((await passes(25544, `latitude=-90&longitude=0&time=${T0}&elevation-threshold=0`)).body.data).toEqual([])
  })

  describe('stale elements', () => {
    // An invented satellite at ~370 km with heavy drag: it decays about a day after its epoch (30 May 12:00).
    let staleApp: ReturnType<typeof appFor>
    beforeAll(() => {
      const tle = makeTle({ noradId: 90201, name: 'DECAYING', epochMs: Date.UTC(2026, 4, 30, 12), meanMotionRevPerDay: 16.2, bstar: ' 10000-1' })
      const parsed = parseTle(tle.name, tle.line1, tle.line2)
      if (!parsed.ok) throw new Error(parsed.reason)
      staleApp = appFor(buildCatalog([{ group: 'test', elements: [parsed.elements] }], { source: 'snapshot', obtainedAtMs: 0 }, 0), NOW)
    })

    test('passes only while it has a position; the rest is listed in metadata.noPosition', async () => {
      const { status, body } = await passes(90201, `${PARIS}&time=2026-05-30T00:00:00Z&days=4&elevation-threshold=0`, staleApp)
      expect(status).toBe(200)
      // Before the epoch (drag run backwards lifts the orbit past the plausible ceiling) and from the decay on.
      const gap = body.metadata.noPosition.at(-1)
      expect(gap.to).toBe(body.metadata.to)
      expect(gap.reason).toMatch(/^decayed at 2026-05-31T[\d:.]+Z \(.*\); no later positions$/)
      expect(body.data.length).toBeGreaterThan(0)
      for (const p of body.data) expect(ms(p.set?.datetime ?? body.metadata.to)).toBeLessThan(ms(gap.from))
    })

    test('no position anywhere in the searched time: 422 saying why', async () => {
      const { status, body } = await passes(90201, `${PARIS}&time=2026-06-10T00:00:00Z`, staleApp)
      expect(status).toBe(422)
      expect(body.statusCode).toBe(422)
      expect(body.message).toStartWith(
        'satellite 90201 has no valid position between 2026-06-10T00:00:00.000Z and 2026-06-11T00:00:00.000Z: at 2026-06-10T00:00:00.000Z, decayed at 2026-05-31T',
      )
    })
  })

  test('unknown satellite: 404', async () => {
    const { status, body } = await passes(99999, PARIS)
    expect(status).toBe(404)
    expect(body).toEqual({ statusCode: 404, message: 'satellite 99999 is not in the catalogue' })
  })

  test('parameters: as declared (each refused outside its declaration with a 400 naming it: test/http/plugins/params.test.ts)', () => {
    expect(describeParameters(declaredParameters(app).get('/api/v1/satellites/:noradId/passes')!)).toEqual([
      'noradId: integer 1..999999999 (path)',
      'latitude: number -90..90 required',
      'longitude: number -180..180 required',
      'altitude: number -1000..100000 = 0',
      'time: instant',
      'days: integer 1..10 = 1',
      'elevation-threshold: number 0..90 = 10',
      'visible-only: boolean = false',
      'magnitude-limit: number -5..8 = 4.5',
      'frequency: number 0.001..300000',
      'format: json|ics = json',
    ])
  })

  test('unknown parameters are ignored; HEAD answers; other methods get 405 with Allow', async () => {
    expect((await passes(25544, `${PARIS}&time=${T0}&foo=bar`)).status).toBe(200)
    const head = await app.handle(new Request(`http://localhost/api/v1/satellites/25544/passes?${PARIS}&time=${T0}`, { method: 'HEAD' }))
    expect(head.status).toBe(200)
    const post = await request(app, `/api/v1/satellites/25544/passes?${PARIS}`, { method: 'POST' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toContain('GET')
    expect(post.body.statusCode).toBe(405)
  })

  test('the OpenAPI document describes the route, its parameters, answers and edge cases', async () => {
    const { body } = await request(app, '/openapi/json')
    const operation = body.paths['/api/v1/satellites/{noradId}/passes'].get
    expect(operation.parameters.map((p: any) => p.name).sort()).toEqual(
      ['altitude', 'days', 'elevation-threshold', 'format', 'frequency', 'latitude', 'longitude', 'magnitude-limit', 'noradId', 'time', 'visible-only'].sort(),
    )
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '404', '422', '503'])
    expect(operation.description).toContain('`rise: null`')
    expect(operation.description).toContain('Never sets')
    expect(operation.description).toContain('metadata.noPosition')
    expect(operation.description).toContain('`magnitude-limit`')
    expect(operation.parameters.find((p: any) => p.name === 'magnitude-limit').schema).toMatchObject({ minimum: -5, maximum: 8, default: 4.5 })
  })

  test('more long searches than may run and wait: 503 with Retry-After and the error body; the searches under way still answer', async () => {
    const busy = createApp({ store: new CatalogStore(catalog), clock: () => NOW, heavyWork: { maxRunning: 1, maxQueued: 0 } })
    const running = passes(25544, `${PARIS}&time=${T0}&days=3`, busy)
    const refused = await passes(25544, `${PARIS}&time=${T0}&days=3`, busy)
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('2')
    expect(refused.body).toEqual({ statusCode: 503, message: expect.stringContaining('too many long computations under way (1 running, 0 waiting)') })
    expect((await running).status).toBe(200)
  })

  test('a 10-day ISS search (timing printed, not asserted)', async () => {
    await passes(25544, `${PARIS}&time=${T0}`) // warm up
    const started = performance.now()
    const { status, body } = await passes(25544, `${PARIS}&time=${T0}&days=10`)
    const elapsed = performance.now() - started
    console.log(`GET /passes: ISS over Paris, 10 days: ${body.data.length} passes in ${elapsed.toFixed(1)} ms`)
    expect(status).toBe(200)
    expect(body.metadata.to).toBe('2026-06-10T00:00:00.000Z')
  })
})

describe('a search that would run past 2100-01-01', () => {
  /** Every instant an answer holds (its `datetime` fields and the metadata's span). */
  const instantsIn = (value: unknown): number[] =>
    typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value)
      ? [Date.parse(value)]
      : value !== null && typeof value === 'object'
        ? Object.values(value).flatMap(instantsIn)
        : []

  test('ends there, the last instant time accepts, and says so in metadata.to: no instant after it', async () => {
    // ONEWEB-0012 keeps a position for decades with no age limit (1,200 km: no decay by 2100).
    const noLimit = appFor((await embeddedCatalog()).withPolicy(NO_AGE_LIMIT), NOW)
    const { status, body } = await passes(44057, `${PARIS}&time=2099-12-30T00:00:00Z&days=10`, noLimit)
    expect(status).toBe(200)
    expect(body.metadata.from).toBe('2099-12-30T00:00:00.000Z')
    expect(body.metadata.to).toBe('2100-01-01T00:00:00.000Z')
    expect(body.metadata.days).toBe(10)
    expect(body.data.length).toBeGreaterThan(5)
    expect(Math.max(...instantsIn(body))).toBeLessThanOrEqual(Date.UTC(2100, 0, 1))
    // At 2100-01-01 itself the span is empty: no pass, and no error.
    const last = await passes(44057, `${PARIS}&time=2100-01-01T00:00:00Z`, noLimit)
    expect(last.status).toBe(200)
    expect(last.body.metadata.to).toBe('2100-01-01T00:00:00.000Z')
    expect(last.body.data).toEqual([])
  })
})
