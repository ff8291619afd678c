/** GET /api/v1/passes through app.handle: shape, order, paging, equality with the per-satellite route, limits, its parameters and errors. */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { HeavyWork } from '../../../src/io/heavy-work.ts'
import { createApp } from '../../../src/http/app.ts'
import { CatalogStore } from '../../../src/domain/catalog/store.ts'
import { MAX_SATELLITE_HOURS, visibleBudget } from '../../../src/http/routes/sky-passes/index.ts'
import { appFor, embeddedCatalog, request } from '../../helpers/catalog.ts'
import { NO_AGE_LIMIT } from '../../../src/domain/orbit/validity.ts'
import { declaredParameters, describeParameters } from '../../helpers/params.ts'

const NOW = Date.UTC(2026, 4, 31, 6)
const PARIS = 'latitude=48.8566&longitude=2.3522&altitude=35'
const NIGHT = '2026-05-31T18:00:00Z'

let catalog: Catalog
let app: ReturnType<typeof appFor>
beforeAll(async () => {
  catalog = await embeddedCatalog()
  app = appFor(catalog, NOW)
})

const skyPasses = (query: string, on = app) => request(on, `/api/v1/passes?${query}`)
/** What a catalogue-wide entry holds of the per-satellite pass (the rest: noradId, name, elementAgeDays, magnitude). */
const passOf = ({ noradId, name, elementAgeDays, magnitude, ...pass }: any) => pass

describe('GET /api/v1/passes', () => {
  test('a night of the stations group over Paris: every pass, ordered by start, each as /:noradId/passes gives it', async () => {
    const { status, body } = await skyPasses(`${PARIS}&time=${NIGHT}&hours=24&group=stations`)
    expect(status).toBe(200)
    expect(body.metadata).toMatchObject({
      total: body.data.length,
      observer: { latitude: 48.8566, longitude: 2.3522, altitude: 35 },
      from: '2026-05-31T18:00:00.000Z',
      to: '2026-06-01T18:00:00.000Z',
      hours: 24,
      elevationThreshold: 10,
      visibleOnly: false,
      magnitudeLimit: 4.5,
      group: 'stations',
      satellites: catalog.satellites.filter((s) => s.groups.includes('stations')).length,
      leftOut: { elementAge: 0, decayed: 0 },
      maxElementAgeDays: 30,
      noPosition: [],
    })
    expect(body.metadata.page).toBeUndefined()
    expect(body.data.length).toBeGreaterThan(30)
    const starts = body.data.map((p: any) => Date.parse(p.rise?.datetime ?? body.metadata.from))
    for (let i = 1; i < starts.length; i++) expect(starts[i]).toBeGreaterThanOrEqual(starts[i - 1])
    // Both ways, for every satellite of the group: the same passes as the per-satellite route over the same day.
    const ids = [...new Set<number>(catalog.satellites.filter((s) => s.groups.includes('stations')).map((s) => s.noradId))]
    let compared = 0
    for (const id of ids) {
      const one = (await request(app, `/api/v1/satellites/${id}/passes?${PARIS}&time=${NIGHT}&days=1`)).body
      const mine = body.data.filter((p: any) => p.noradId === id)
      expect(mine.map(passOf)).toEqual(one.data)
      for (const p of mine) {
        expect(p.name).toBe(one.metadata.name)
        expect(p.magnitude).toBe(p.brightest?.magnitude ?? null)
        expect(p.elementAgeDays).toBeCloseTo((Date.parse(p.rise?.datetime ?? body.metadata.from) - Date.parse(one.metadata.epoch)) / 86_400_000, 2)
      }
      compared += one.data.length
    }
    expect(compared).toBe(body.data.length)
  })

  test('visible-only over the whole catalogue for a night: only visible passes, equal to the per-satellite route for each', async () => {
    const { status, body } = await skyPasses(`${PARIS}&time=${NIGHT}&hours=12&visible-only=true`)
    expect(status).toBe(200)
    expect(body.metadata.satellites).toBeGreaterThan(11_000)
    expect(body.data.length).toBeGreaterThan(20)
    for (const p of body.data) {
      expect(p.visible).toBe(true)
      expect(p.magnitude).toBeLessThanOrEqual(4.5)
    }
    // Names the ISS's and a few others' passes exactly as their own route (over the same 12 hours: days=1, then cut).
    const sample = [...new Set<number>(body.data.map((p: any) => p.noradId))].slice(0, 12)
    for (const id of sample) {
      const one = (await request(app, `/api/v1/satellites/${id}/passes?${PARIS}&time=${NIGHT}&days=1&visible-only=true`)).body
      const within = one.data.filter((p: any) => Date.parse(p.set?.datetime ?? one.metadata.to) <= Date.parse(body.metadata.to))
      expect(body.data.filter((p: any) => p.noradId === id).map(passOf)).toEqual(within)
    }
  }, 60_000)

  test('paging: pages cut the same ordered list; total, page, pageSize and pages in metadata; a page past the last is empty', async () => {
    const all = (await skyPasses(`${PARIS}&time=${NIGHT}&hours=48&group=stations`)).body
    const pageSize = 7
    const pages = Math.ceil(all.data.length / pageSize)
    const joined: any[] = []
    for (let page = 1; page <= pages; page++) {
      const { body } = await skyPasses(`${PARIS}&time=${NIGHT}&hours=48&group=stations&page=${page}&page-size=${pageSize}`)
      expect(body.metadata).toMatchObject({ total: all.data.length, page, pageSize, pages })
      joined.push(...body.data)
    }
    expect(joined).toEqual(all.data)
    const past = (await skyPasses(`${PARIS}&time=${NIGHT}&hours=48&group=stations&page=${pages + 1}&page-size=${pageSize}`)).body
    expect(past.data).toEqual([])
    expect((await skyPasses(`${PARIS}&time=${NIGHT}&hours=48&group=stations&page=2`)).body.metadata.pageSize).toBe(100)
  })

  test('frequency adds dopplerShiftHz to every point; group matching ignores case; an unknown group matches nothing', async () => {
    const { body } = await skyPasses(`${PARIS}&time=${NIGHT}&hours=6&group=STATIONS&frequency=145.8`)
    expect(body.metadata.frequency).toBe(145.8)
    expect(body.data.length).toBeGreaterThan(0)
    for (const p of body.data) {
      for (const point of [p.rise, p.culmination, p.set, p.brightest].filter(Boolean)) {
        expect(point.dopplerShiftHz).toBeCloseTo((-145.8e6 * point.rangeRate) / 299_792.458, 6)
      }
    }
    const none = (await skyPasses(`${PARIS}&time=${NIGHT}&group=no-such-group`)).body
    expect(none).toMatchObject({ data: [], metadata: { total: 0, satellites: 0 } })
  })

  test('stale elements: months after the data nothing has a position; counted, with a notice saying what to do', async () => {
    const { status, body } = await skyPasses(`${PARIS}&time=2026-11-25T18:00:00Z&visible-only=true`)
    expect(status).toBe(200)
    expect(body.data).toEqual([])
    expect(body.metadata.satellites).toBe(0)
    expect(body.metadata.leftOut.elementAge + body.metadata.leftOut.decayed).toBe(catalog.size)
    // Decay first, as /nearby counts them at the same instant (and as the refusals say it).
    const nearby = (await request(app, `/api/v1/satellites/nearby?${PARIS}&time=2026-11-25T18:00:00Z`)).body
    expect(nearby.metadata.leftOut.decayed).toBeGreaterThan(100)
    expect(body.metadata.leftOut).toEqual(nearby.metadata.leftOut)
    expect(body.metadata.notice).toMatch(/satellites are left out: \d+ have elements more than 30 days from the searched time, \d+ have decayed by then/)
  })

  test('the age limit inside the searched time: passes only before it, the rest listed in noPosition', async () => {
    // 30 days after the ISS's epoch (2026-05-30T12:25Z) the limit falls inside these 24 hours.
    const { body } = await skyPasses(`${PARIS}&time=2026-06-29T00:00:00Z&hours=24&group=stations`)
    const iss = body.metadata.noPosition.filter((s: any) => s.noradId === 25544)
    expect(iss).toHaveLength(1)
    expect(iss[0].reason).toContain('--max-element-age')
    for (const p of body.data.filter((p: any) => p.noradId === 25544)) expect(Date.parse(p.set?.datetime ?? iss[0].from)).toBeLessThanOrEqual(Date.parse(iss[0].from))
    const one = (await request(app, `/api/v1/satellites/25544/passes?${PARIS}&time=2026-06-29T00:00:00Z&days=1`)).body
    expect(body.data.filter((p: any) => p.noradId === 25544).map(passOf)).toEqual(one.data)
  })

  test('format=ics: the passes (of the page) as text/calendar', async () => {
    const response = await app.handle(new Request(`http://localhost/api/v1/passes?${PARIS}&time=${NIGHT}&group=stations&hours=24&format=ics&page=1&page-size=5`))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/calendar; charset=utf-8')
    const text = await response.text()
    expect(text.match(/BEGIN:VEVENT/g)).toHaveLength(5)
    expect(text).toStartWith('BEGIN:VCALENDAR\r\n')
  })

  test('too costly: 400 saying what is allowed', async () => {
    const all = await skyPasses(`${PARIS}&time=${NIGHT}`)
    expect(all.status).toBe(400)
    expect(all.body.message).toStartWith(`too costly: without visible-only, satellites searched × hours must be at most ${MAX_SATELLITE_HOURS}`)
    expect(all.body.message).toContain('visible-only=true')
    const stations = catalog.satellites.filter((s) => s.groups.includes('stations')).length
    expect((await skyPasses(`${PARIS}&time=${NIGHT}&hours=48&group=stations`)).status).toBe(200)
    const weather = await skyPasses(`${PARIS}&time=${NIGHT}&hours=48&group=starlink`)
    expect(weather.status).toBe(400)
    expect(weather.body.message).toContain('the group "starlink" has')
    const faint = await skyPasses(`${PARIS}&time=${NIGHT}&visible-only=true&magnitude-limit=8`)
    expect(faint.status).toBe(400)
    expect(faint.body.message).toStartWith(`too costly: with visible-only at magnitude-limit 8, satellites that can look bright enough × hours must be at most ${visibleBudget(8)}`)
    expect(faint.body.message).toContain('a brighter magnitude-limit')
    expect(stations).toBeGreaterThan(10)
  })

  test('too costly counts, with visible-only, the satellites that can look bright enough, also those the age limit cuts the time of', async () => {
    // A night a month after the data: the age limit cuts it for thousands of satellites, most of them never bright enough.
    const night = `${PARIS}&time=2026-06-28T20:27:00Z&visible-only=true`
    const day = await skyPasses(`${night}&hours=20`)
    expect(day.status).toBe(200)
    expect(day.body.metadata.noPosition.length).toBeGreaterThan(1000)
    const two = await skyPasses(`${night}&hours=48`)
    expect(two.status).toBe(400)
    const can = Number(two.body.message.match(/\((\d+) of the catalogue can/)![1])
    expect(can).toBeLessThan(catalog.size / 2)
    expect(can * 48).toBeGreaterThan(visibleBudget(4.5))
  })

  test('parameters: as declared (each refused outside its declaration with a 400 naming it: test/http/plugins/params.test.ts)', async () => {
    expect(describeParameters(declaredParameters(app).get('/api/v1/passes')!)).toEqual([
      'latitude: number -90..90 required',
      'longitude: number -180..180 required',
      'altitude: number -1000..100000 = 0',
      'time: instant',
      'hours: integer 1..48 = 12',
      'elevation-threshold: number 0..90 = 10',
      'visible-only: boolean = false',
      'magnitude-limit: number -5..8 = 4.5',
      'group: text 1..100',
      'page: integer 1..1000000',
      'page-size: integer 1..1000',
      'frequency: number 0.001..300000',
      'format: json|ics = json',
    ])
    // One refusal through the route itself: the error body.
    const { status, body } = await skyPasses(`${PARIS}&hours=49`)
    expect([status, body.statusCode]).toEqual([400, 400])
    expect(body.message).toStartWith('hours must be an integer between 1 and 48')
  })

  test('runs as heavy work: more searches than may run and wait are refused with 503 and Retry-After', async () => {
    const busy = createApp({ store: new CatalogStore(catalog), clock: () => NOW, heavyWork: { maxRunning: 1, maxQueued: 0 } })
    const first = skyPasses(`${PARIS}&time=${NIGHT}&visible-only=true`, busy)
    const second = await skyPasses(`${PARIS}&time=${NIGHT}&visible-only=true&hours=11`, busy)
    expect(second.status).toBe(503)
    expect(second.headers.get('retry-after')).toBeString()
    expect((await first).status).toBe(200)
    expect(new HeavyWork().maxRunning).toBe(2)
  }, 30_000)

  test('the OpenAPI document describes the route, its parameters and answers', async () => {
    const { body } = await request(app, '/openapi/json')
    const operation = body.paths['/api/v1/passes'].get
    expect(operation.parameters.map((p: any) => p.name).sort()).toEqual(
      ['altitude', 'elevation-threshold', 'format', 'frequency', 'group', 'hours', 'latitude', 'longitude', 'magnitude-limit', 'page', 'page-size', 'time', 'visible-only'].sort(),
    )
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '503'])
    expect(operation.description).toContain('**Limits**')
  })
})

describe('a search that would run past 2100-01-01', () => {
  test('ends there, the last instant time accepts (metadata.to): every pass within it', async () => {
    const noLimit = appFor((await embeddedCatalog()).withPolicy(NO_AGE_LIMIT), NOW)
    const { status, body } = await skyPasses(`${PARIS}&time=2099-12-31T20:00:00Z&hours=12&group=science`, noLimit)
    expect(status).toBe(200)
    expect(body.metadata.to).toBe('2100-01-01T00:00:00.000Z')
    expect(body.metadata.hours).toBe(12)
    expect(body.data.length).toBeGreaterThan(0)
    const end = Date.UTC(2100, 0, 1)
    for (const pass of body.data) {
      for (const point of [pass.rise, pass.culmination, pass.set]) if (point) expect(Date.parse(point.datetime)).toBeLessThanOrEqual(end)
    }
  })

  test('its cost counts the hours searched: 48 asked for from 22:00 are 2, and from 2100-01-01 none', async () => {
    const noLimit = appFor((await embeddedCatalog()).withPolicy(NO_AGE_LIMIT), NOW)
    // 644 OneWeb satellites: 48 hours would be too costly without visible-only, the 2 searched are not.
    const asked = await skyPasses(`${PARIS}&time=2099-12-31T22:00:00Z&hours=48&group=oneweb`, noLimit)
    expect(asked.status).toBe(200)
    expect(asked.body.metadata.to).toBe('2100-01-01T00:00:00.000Z')
    expect(asked.body.data.length).toBeGreaterThan(0)
    const empty = await skyPasses(`${PARIS}&time=2100-01-01T00:00:00Z&group=oneweb`, noLimit)
    expect(empty.status).toBe(200)
    expect(empty.body.data).toEqual([])
    // Two hours earlier the same 48 hours are refused, naming what is allowed.
    const refused = await skyPasses(`${PARIS}&time=2099-12-29T22:00:00Z&hours=48&group=oneweb`, noLimit)
    expect(refused.status).toBe(400)
    expect(refused.body.message).toContain('too costly')
  })
})

describe('the notice when most are left out', () => {
  test('when what is left out has decayed (no age limit), the notice does not advise changing the age limit', async () => {
    const noLimit = appFor((await embeddedCatalog()).withPolicy(NO_AGE_LIMIT), NOW)
    const { status, body } = await skyPasses(`${PARIS}&time=2031-06-01T00:00:00Z&group=stations`, noLimit)
    expect(status).toBe(200)
    expect(body.metadata.leftOut.elementAge).toBe(0)
    expect(body.metadata.leftOut.decayed).toBeGreaterThan(12)
    const dataTime = (await request(noLimit, '/api/v1/service/status')).body.catalog.freshness.dataTime
    expect(body.metadata.notice).toMatch(/^\d+ of \d+ satellites of the group "stations" are left out: \d+ have decayed by then \(/)
    expect(body.metadata.notice).toEndWith(`. Load newer data (--snapshot, --refresh-url, make snapshot) or ask for a time near the data's (time=${dataTime}).`)
  })
})
