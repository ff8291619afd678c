/**
 * --compat: which of the N2YO, Open Notify and wheretheiss.at families are
 * mounted (all by default, none with `none`), each in its own section of the
 * OpenAPI document; answers the same with response checks on and off.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { createApp } from '../../../src/http/app.ts'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { CatalogStore } from '../../../src/domain/catalog/store.ts'
import { parseConfig } from '../../../src/config.ts'
import { log } from '../../../src/io/log.ts'
import { COMPAT_FAMILIES, type CompatFamily } from '../../../src/http/routes/compat/families.ts'
import { embeddedCatalog, request } from '../../helpers/catalog.ts'

const NOW = Date.UTC(2026, 4, 31, 6, 0, 0, 437)
const SAMPLES: Record<CompatFamily, string[]> = {
  n2yo: ['/rest/v1/satellite/tle/25544&apiKey=K', '/rest/v1/satellite/above/0/0/0/90/0'],
  'open-notify': ['/iss-now.json', '/iss-pass.json?lat=0&lon=0'],
  wheretheiss: ['/v1/satellites', '/v1/satellites/25544'],
}

let catalog: Catalog
beforeAll(async () => {
  catalog = await embeddedCatalog()
})

const appWith = (compat?: CompatFamily[], checkResponses = true, accessLog = false) =>
  createApp({ store: new CatalogStore(catalog), clock: () => NOW, compat, checkResponses, operations: { accessLog } })

describe('--compat and SATTRACK_COMPAT', () => {
  const config = (argv: string[], env: Record<string, string> = {}) => parseConfig(argv, { HOME: '/home/test', ...env })

  test('all three by default; a list picks some (in any order, any case); none, none', () => {
    const compat = (argv: string[], env: Record<string, string> = {}) => {
      const r = config(argv, env)
      return r.kind === 'run' ? r.config.compat : r
    }
    expect(compat([])).toEqual(['n2yo', 'open-notify', 'wheretheiss'])
    expect(compat(['--compat', 'wheretheiss,N2YO'])).toEqual(['n2yo', 'wheretheiss'])
    expect(compat(['--compat=open-notify'])).toEqual(['open-notify'])
    expect(compat(['--compat', 'none'])).toEqual([])
    expect(compat([], { SATTRACK_COMPAT: 'none' })).toEqual([])
    expect(compat(['--compat', 'n2yo'], { SATTRACK_COMPAT: 'none' })).toEqual(['n2yo'])
  })

  test('anything else stops the start with one line naming the option and the value', () => {
    for (const [argv, env, expected] of [
      [['--compat', 'celestrak'], {}, /^--compat: must be a comma-separated list of n2yo, open-notify, wheretheiss, or none \(got "celestrak"\)$/],
      [['--compat', 'n2yo,,wheretheiss'], {}, /^--compat: must be a comma-separated list/],
      [[], { SATTRACK_COMPAT: 'all' }, /^SATTRACK_COMPAT: must be a comma-separated list/],
    ] as const) {
      const r = config([...argv], { ...env })
      expect(r.kind).toBe('error')
      if (r.kind === 'error') expect(r.message).toMatch(expected)
    }
  })
})

describe('mounted families', () => {
  test('by default every family answers', async () => {
    const app = appWith()
    for (const path of Object.values(SAMPLES).flat()) expect({ path, status: (await request(app, path)).status }).toEqual({ path, status: 200 })
  })

  test('a family switched off is not there: the service 404 {message, statusCode}, and nothing of it in the OpenAPI document', async () => {
    for (const only of ['n2yo', 'open-notify', 'wheretheiss'] as const) {
      const app = appWith([only])
      for (const [family, paths] of Object.entries(SAMPLES)) {
        for (const path of paths) {
          const r = await request(app, path)
          if (family === only) expect({ path, status: r.status }).toEqual({ path, status: 200 })
          else expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 404, body: { message: expect.stringMatching(/^no such path/), statusCode: 404 } })
        }
      }
      const spec = (await request(app, '/openapi/json')).body
      expect(spec.tags.map((t: any) => t.name).filter((n: string) => Object.hasOwn(SAMPLES, n))).toEqual([only])
    }
    const none = appWith([])
    for (const path of Object.values(SAMPLES).flat()) expect((await request(none, path)).status).toBe(404)
    // sattrack's own routes are all still there.
    expect((await request(none, '/api/v1/satellites/25544')).status).toBe(200)
  })

  test("an unknown path under a family's prefix is a 404 in the family's body; switched off, the service's", async () => {
    const cases: [CompatFamily, string, (body: any) => string][] = [
      ['n2yo', '/rest/v1/satellite/unknown/1', (b) => b.error],
      ['wheretheiss', '/v1/satellites/25544/unknown', (b) => b.error],
      ['wheretheiss', '/v1/unknown', (b) => b.error],
      ['wheretheiss', '/v1/coordinates/48.85,2.35/x', (b) => b.error],
      ['open-notify', '/iss-now/v2/', (b) => b.reason],
      ['open-notify', '/iss/unknown?callback=cb', (b) => b.reason],
      ['open-notify', '/astros/v1/x', (b) => b.reason],
    ]
    const all = appWith()
    for (const [family, path, message] of cases) {
      const r = await request(all, path)
      expect({ path, status: r.status, type: r.headers.get('content-type') }).toEqual({ path, status: 404, type: 'application/json; charset=utf-8' })
      const shape = { n2yo: ['error'], wheretheiss: ['error', 'status'], 'open-notify': ['message', 'reason'] }[family]
      expect({ path, keys: Object.keys(r.body) }).toEqual({ path, keys: shape })
      if (family === 'wheretheiss') expect(r.body.status).toBe(404)
      if (family === 'open-notify') expect(r.body.message).toBe('failure')
      expect(message(r.body)).toMatch(/^no such /)
      if (family !== 'n2yo') expect(message(r.body)).toContain(path.split('?')[0]!)
      const off = await request(appWith(COMPAT_FAMILIES.filter((f) => f !== family)), path)
      expect({ path, status: off.status, body: off.body }).toEqual({ path, status: 404, body: { message: expect.stringMatching(/^no such path/), statusCode: 404 } })
    }
  })

  test('each family is a section of the OpenAPI document: a tag with a description, on its documented operations only', async () => {
    const spec = (await request(appWith(), '/openapi/json')).body
    for (const family of Object.keys(SAMPLES)) expect(spec.tags.find((t: any) => t.name === family)?.description).toMatch(/^Compatible with /)
    const tagged = (family: string) =>
      Object.entries(spec.paths)
        .filter(([, ops]: [string, any]) => ops.get?.tags?.includes(family))
        .map(([path]) => path)
        .sort()
    expect(tagged('n2yo')).toEqual([
      '/rest/v1/satellite/above/{observer_lat}/{observer_lng}/{observer_alt}/{search_radius}/{category_id}',
      '/rest/v1/satellite/positions/{id}/{observer_lat}/{observer_lng}/{observer_alt}/{seconds}',
      '/rest/v1/satellite/radiopasses/{id}/{observer_lat}/{observer_lng}/{observer_alt}/{days}/{min_elevation}',
      '/rest/v1/satellite/tle/{id}',
      '/rest/v1/satellite/visualpasses/{id}/{observer_lat}/{observer_lng}/{observer_alt}/{days}/{min_visibility}',
    ])
    expect(tagged('open-notify')).toEqual(['/astros.json', '/iss-now.json', '/iss-pass.json'])
    expect(tagged('wheretheiss')).toEqual(['/v1/coordinates/{coordinates}', '/v1/satellites', '/v1/satellites/{id}', '/v1/satellites/{id}/positions', '/v1/satellites/{id}/tles'])
    // Their error bodies are documented in the family's shape.
    expect(Object.keys(spec.paths['/rest/v1/satellite/tle/{id}'].get.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '422']))
  })

  test("the OpenAPI document declares the sattrack headers on the answers that carry them (the data's age is nowhere else)", async () => {
    const spec = (await request(appWith(), '/openapi/json')).body
    const declared = (path: string) => Object.keys(spec.paths[path].get.responses[200].headers ?? {}).sort()
    const age = ['Sattrack-Element-Age-Days', 'Sattrack-Element-Epoch']
    const pass = [...age, 'Sattrack-No-Position', 'Sattrack-No-Position-Reason'].sort()
    const byPath = Object.fromEntries(Object.keys(spec.paths).map((path) => [path, spec.paths[path].get?.tags?.[0] === undefined ? null : declared(path)]))
    expect(byPath).toMatchObject({
      '/iss-now.json': age,
      '/iss-pass.json': pass,
      '/astros.json': [],
      '/rest/v1/satellite/tle/{id}': age,
      '/rest/v1/satellite/positions/{id}/{observer_lat}/{observer_lng}/{observer_alt}/{seconds}': age,
      '/rest/v1/satellite/visualpasses/{id}/{observer_lat}/{observer_lng}/{observer_alt}/{days}/{min_visibility}': pass,
      '/rest/v1/satellite/radiopasses/{id}/{observer_lat}/{observer_lng}/{observer_alt}/{days}/{min_elevation}': pass,
      '/rest/v1/satellite/above/{observer_lat}/{observer_lng}/{observer_alt}/{search_radius}/{category_id}': age,
      '/v1/satellites': [],
      '/v1/satellites/{id}': age,
      '/v1/satellites/{id}/positions': age,
      '/v1/satellites/{id}/tles': age,
    })
    // The feed's 304 carries them too.
    expect(Object.keys(spec.paths['/NORAD/elements/gp.php'].get.responses[304].headers).sort()).toEqual(age)
    expect(declared('/NORAD/elements/gp.php')).toEqual(age)
    // The 200's body schema stays beside the headers.
    expect(spec.paths['/iss-now.json'].get.responses[200].content['application/json'].schema.properties.iss_position).toBeDefined()
  })

  test('HEAD answers the headers; the answers are byte for byte the same with response checks off (as the executable runs)', async () => {
    const checked = appWith()
    const unchecked = appWith(undefined, false)
    const statuses = new Set<number>()
    for (const path of [...Object.values(SAMPLES).flat(), '/rest/v1/satellite/tle/1', '/iss-pass.json?lat=x&lon=0', '/v1/satellites/1', '/v1/coordinates/0,0', '/iss-now.json?callback=cb', '/astros.json']) {
      const a = await checked.handle(new Request(`http://localhost${path}`))
      const b = await unchecked.handle(new Request(`http://localhost${path}`))
      statuses.add(a.status)
      expect({ path, status: b.status, body: await b.text() }).toEqual({ path, status: a.status, body: await a.text() })
      const head = await checked.handle(new Request(`http://localhost${path}`, { method: 'HEAD' }))
      expect(head.status).toBe(a.status)
      expect(await head.text()).toBe('')
    }
    expect([...statuses].sort()).toEqual([200, 400, 404])
  })
})

describe('refusals', () => {
  test('show the value received as the native routes do: printable ASCII, the rest percent-encoded, cut after 64 characters', async () => {
    const app = appWith()
    const long = `${'x'.repeat(70)}\u00e9`
    const native = await request(app, `/api/v1/satellites/nearby?latitude=0&longitude=0&mode=${encodeURIComponent(long)}`)
    const compat = await request(app, `/v1/satellites/25544?units=${encodeURIComponent(long)}`)
    const cut = `"${'x'.repeat(64)}…"`
    expect(native.body.message).toEndWith(`(got ${cut})`)
    expect(compat.status).toBe(400)
    expect(compat.body.error).toBe(`units must be kilometers or miles (got ${cut})`)
    const odd = await request(app, `/v1/satellites/25544?units=km%00%C3%A9`)
    expect(odd.body.error).toBe('units must be kilometers or miles (got "km%00%C3%A9")')
  })
})

describe('the access log', () => {
  /** The access log's entries for the requests `run` makes (the log's sink caught meanwhile). */
  const accessLogOf = async (run: () => Promise<void>): Promise<any[]> => {
    const lines: string[] = []
    log.configure({ sink: (line) => lines.push(line) })
    try {
      await run()
      await Bun.sleep(20)
    } finally {
      log.configure({ sink: null })
    }
    return lines.map((l) => JSON.parse(l))
  }

  test("never writes an observer's place or a key that a compatible route carries in its path: the route pattern instead", async () => {
    const entries = await accessLogOf(async () => {
      const app = appWith(undefined, true, true)
      await request(app, '/rest/v1/satellite/positions/25544/48.856613/2.352222/35/1&apiKey=SECRET-KEY')
      await request(app, '/rest/v1/satellite/tle/25544&apiKey=SECRET-KEY')
      await request(app, '/rest/v1/satellite/radiopasses/25544/48.856613/2.352222/35/1/5/&apiKey=SECRET-KEY')
      await request(app, '/v1/coordinates/48.856613,2.352222')
      await request(app, '/iss-pass.json?lat=48.856613&lon=2.352222')
      await request(app, '/v1/satellites/25544')
    })
    expect(entries.map((e) => e.path)).toEqual([
      '/rest/v1/satellite/positions/:id/:observer_lat/:observer_lng/:observer_alt/:seconds',
      '/rest/v1/satellite/tle/:id',
      '/rest/v1/satellite/*',
      '/v1/coordinates/:coordinates',
      '/iss-pass.json',
      '/v1/satellites/25544',
    ])
    // Everything but the timings (a durationMs of 2.35 is no place): no key, no coordinate, in any field.
    const written = entries.map(({ durationMs, time, ...rest }) => JSON.stringify(rest)).join('\n')
    for (const secret of ['SECRET', '48.85', '2.35']) expect(written).not.toContain(secret)
  })

  test('a path under those routes\' prefixes that matches none of them (a near-miss, another case, the family off) is written as the prefix and …, never the place', async () => {
    const entries = await accessLogOf(async () => {
      const app = appWith(undefined, true, true)
      for (const path of ['/v1/coordinates/48.856613,2.352222/x', '/V1/Coordinates/48.856613,2.352222', '//v1/coordinates/48.856613,2.352222', '/v1/%63oordinates/48.856613,2.352222', '/rest/v1/satellite//positions/25544/48.856613/2.352222/35/1&apiKey=SECRET-KEY']) {
        await request(app, path)
      }
      const off = appWith(['open-notify'], true, true)
      await request(off, '/rest/v1/satellite/positions/25544/48.856613/2.352222/35/1&apiKey=SECRET-KEY')
      await request(off, '/v1/coordinates/48.856613,2.352222')
      // Paths elsewhere are written as they are.
      await request(off, '/v1/satellites/25544/x')
    })
    expect(entries.map((e) => [e.path, e.status])).toEqual([
      ['/v1/coordinates/…', 404],
      ['/v1/coordinates/…', 404],
      ['/v1/coordinates/…', 404],
      ['/v1/coordinates/…', 404],
      ['/rest/v1/satellite/*', 404],
      ['/rest/v1/satellite/…', 404],
      ['/v1/coordinates/…', 404],
      ['/v1/satellites/25544/x', 404],
    ])
    const written = entries.map(({ durationMs, time, ...rest }) => JSON.stringify(rest)).join('\n')
    for (const secret of ['SECRET', '48.85', '2.35']) expect(written).not.toContain(secret)
  })
})

describe("the element sets' age in headers (the families' bodies have no field for it)", () => {
  const epochOf = (id: number) => catalog.get(id)!.epoch
  const ageAt = (id: number, ms: number) => Math.round(((ms - catalog.get(id)!.elements.epochMs) / 86_400_000) * 1000) / 1000
  const second = Math.floor(NOW / 1000) * 1000

  test('every answer with ISS positions, passes or its element set names the epoch of its elements and their age at its instant', async () => {
    const app = appWith()
    for (const [path, instantMs] of [
      ['/iss-now.json', second],
      ['/iss-now.json?callback=cb', second],
      ['/iss-pass.json?lat=48.85&lon=2.35', second],
      ['/rest/v1/satellite/positions/25544/48.85/2.35/0/2&apiKey=K', second],
      ['/rest/v1/satellite/visualpasses/25544/48.85/2.35/0/2/60&apiKey=K', second],
      ['/rest/v1/satellite/radiopasses/25544/48.85/2.35/0/2/10&apiKey=K', second],
      ['/v1/satellites/25544', second],
      ['/v1/satellites/25544?timestamp=1780185600', 1_780_185_600_000],
      ['/v1/satellites/25544/positions?timestamps=1780185660,1780185600', 1_780_185_660_000],
      // The element set itself (served whatever its age): its age now.
      ['/rest/v1/satellite/tle/25544&apiKey=K', NOW],
      ['/v1/satellites/25544/tles', NOW],
      ['/v1/satellites/25544/tles?format=text', NOW],
    ] as const) {
      const r = await request(app, path)
      expect(r.status, path).toBe(200)
      expect(r.headers.get('sattrack-element-epoch'), path).toBe(epochOf(25544))
      expect(Number(r.headers.get('sattrack-element-age-days')), path).toBe(ageAt(25544, instantMs))
      expect(r.headers.get('access-control-expose-headers'), path).toBe('ETag, Retry-After, sattrack-element-epoch, sattrack-element-age-days')
      // Positions throughout: nothing said of stretches without them.
      expect(r.headers.get('sattrack-no-position'), path).toBeNull()
    }
  })

  test('pass answers whose search meets the age limit say where it had no positions (a short list is not "no more passes")', async () => {
    // 29.5 days after the ISS's epoch: the 30-day limit ends positions half a day later.
    const at = catalog.get(25544)!.elements.epochMs + 29.5 * 86_400_000
    const late = createApp({ store: new CatalogStore(catalog), clock: () => at })
    const start = Math.floor(at / 1000) * 1000
    const iso = (ms: number) => new Date(ms).toISOString()
    // Where the native route puts the edge, for the same search.
    const native = await request(late, `/api/v1/satellites/25544/passes?latitude=48.85&longitude=2.35&elevation-threshold=0&days=2&time=${iso(start)}`)
    const edge = native.body.metadata.noPosition[0]
    expect(Date.parse(edge.from) - catalog.get(25544)!.elements.epochMs).toBeCloseTo(30 * 86_400_000, -1)
    for (const [path, endMs] of [
      ['/rest/v1/satellite/radiopasses/25544/48.85/2.35/0/2/0&apiKey=K', start + 2 * 86_400_000],
      ['/rest/v1/satellite/visualpasses/25544/48.85/2.35/0/2/0&apiKey=K', start + 2 * 86_400_000],
      // Open Notify looks up to 60 days ahead for n passes: it stops where positions end, none after.
      ['/iss-pass.json?lat=48.85&lon=2.35&n=100', start + 60 * 86_400_000],
    ] as const) {
      const r = await request(late, path)
      expect(r.status, path).toBe(200)
      expect(r.headers.get('sattrack-no-position'), path).toBe(`${edge.from}/${iso(endMs)}`)
      expect(r.headers.get('sattrack-no-position-reason'), path).toBe(edge.reason)
      expect(r.headers.get('access-control-expose-headers'), path).toBe('ETag, Retry-After, sattrack-element-epoch, sattrack-element-age-days, sattrack-no-position, sattrack-no-position-reason')
    }
    // Fewer than asked for, and the headers say why; as many as asked for: the list is whole, nothing said.
    expect((await request(late, '/iss-pass.json?lat=48.85&lon=2.35&n=100')).body.response.length).toBeLessThan(10)
    const whole = await request(late, '/iss-pass.json?lat=48.85&lon=2.35&n=1')
    expect(whole.body.request.passes).toBe(1)
    expect(whole.headers.get('sattrack-no-position')).toBeNull()
  })

  test("N2YO's passes leave out a pass the positions end in the middle of: the data shows no set, nor the end of its visibility there", async () => {
    const epochMs = catalog.get(25544)!.elements.epochMs
    const iso = (ms: number) => new Date(ms).toISOString()
    const sydney = { path: '-33.87/151.21/0', query: 'latitude=-33.87&longitude=151.21' }
    // The ISS's first visible pass over Sydney after its epoch, without an age limit.
    const open = createApp({ store: new CatalogStore(catalog.withPolicy({ maxElementAgeMs: null })), clock: () => epochMs })
    const found = await request(open, `/api/v1/satellites/25544/passes?${sydney.query}&visible-only=true&days=3&time=${iso(epochMs)}`)
    const pass = found.body.data[0]
    const [riseMs, setMs] = [Date.parse(pass.rise.datetime), Date.parse(pass.set.datetime)]
    const [fromMs, toMs] = [Date.parse(pass.visibleWindow.from), Date.parse(pass.visibleWindow.to)]
    // Searches from ten minutes before the rise, with the age limit falling at `cutMs`.
    const n2yoWith = (cutMs: number) => {
      const app = createApp({ store: new CatalogStore(catalog.withPolicy({ maxElementAgeMs: cutMs - epochMs })), clock: () => riseMs - 600_000 })
      return async (kind: 'radiopasses' | 'visualpasses') => (await request(app, `/rest/v1/satellite/${kind}/25544/${sydney.path}/1/0&apiKey=K`)).body.passes
    }
    // The limit in the middle of the visible stretch: the native route shows the pass without a set; N2YO's fields have no way to.
    const midMs = Math.round((fromMs + toMs) / 2)
    const native = await request(
      createApp({ store: new CatalogStore(catalog.withPolicy({ maxElementAgeMs: midMs - epochMs })), clock: () => riseMs - 600_000 }),
      `/api/v1/satellites/25544/passes?${sydney.query}&elevation-threshold=0&days=1`,
    )
    expect(native.body.data.length).toBe(1)
    expect(native.body.data[0].set).toBeNull()
    const cut = n2yoWith(midMs)
    expect(await cut('radiopasses')).toEqual([])
    expect(await cut('visualpasses')).toEqual([])
    // The limit ten minutes after the set: the whole pass is listed (above the horizon: longer than above 10°).
    const whole = n2yoWith(setMs + 600_000)
    const [radio] = await whole('radiopasses')
    expect(radio.startUTC * 1000).toBeLessThan(riseMs)
    expect(radio.endUTC * 1000).toBeGreaterThan(setMs)
    const [visual] = await whole('visualpasses')
    expect(visual.endUTC * 1000).toBeGreaterThanOrEqual(toMs)
  })

  test("N2YO's above: the oldest element set of the satellites it lists", async () => {
    const r = await request(appWith(), '/rest/v1/satellite/above/48.85/2.35/0/90/0&apiKey=K')
    expect(r.status).toBe(200)
    const ids: number[] = r.body.above.map((s: { satid: number }) => s.satid)
    expect(ids.length).toBeGreaterThan(10)
    const oldest = ids.reduce((a, b) => (catalog.get(b)!.elements.epochMs < catalog.get(a)!.elements.epochMs ? b : a))
    expect(r.headers.get('sattrack-element-epoch')).toBe(epochOf(oldest))
    expect(Number(r.headers.get('sattrack-element-age-days'))).toBe(ageAt(oldest, second))
  })

  test('answers without positions or satellites, and refusals, carry none', async () => {
    const app = appWith()
    for (const path of ['/v1/satellites', '/astros.json', '/iss-now.json?callback=1bad', '/v1/satellites/99999999']) {
      const r = await request(app, path)
      expect(r.headers.get('sattrack-element-epoch'), path).toBeNull()
    }
  })
})
