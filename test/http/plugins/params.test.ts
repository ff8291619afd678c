/**
 * Strict parameter parsing (src/http/plugins/params.ts), the one place for the
 * rules of each parameter kind: what a number, an integer, a boolean, an enum,
 * an instant, an id list and free text accept, and the 400 message that names
 * the parameter and its rule otherwise; missing, empty and repeated values;
 * and every route of the app refusing what its declarations refuse. A route's
 * own declarations (its parameters and their bounds) are in its test file;
 * arbitrary input to every route is test/fuzz/every-route.test.ts.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { type App, createApp } from '../../../src/http/app.ts'
import { CatalogStore } from '../../../src/domain/catalog/store.ts'
import { type ParamSpec, paramsSchema, parseInstant, parseParams, routeParams } from '../../../src/http/plugins/params.ts'
import { shown } from '../../../src/http/plugins/edge.ts'
import { embeddedCatalog, request } from '../../helpers/catalog.ts'
import { type DeclaredParameter, declaredParameters, queryParser } from '../../helpers/params.ts'

const TIME_RULE = 'must be an ISO 8601 instant with a zone (e.g. 2026-05-30T12:00:00Z or +02:00) between 1957-10-04 and 2100-01-01'

/** A refused value and its whole message: the rule, then the value received. */
const breaks = (rule: string) => (raw: string): [string, string] => [raw, `${rule} (got "${raw}")`]
/** The same for a number: one that begins with a space (a "+" left unencoded) says so. */
const PLUS_HINT = ': a "+" left unencoded in a query string is a space; write %2B, or no sign'
const breaksNumber = (rule: string) => (raw: string): [string, string] => [raw, `${rule} (got "${raw}"${raw.startsWith(' ') ? PLUS_HINT : ''})`]

/** Per kind: a declaration, values it accepts (as parsed), values it refuses (with the whole message). */
const KINDS: { kind: string; spec: ParamSpec; accepted: [string, unknown][]; refused: [string, string][] }[] = [
  {
    kind: 'number',
    spec: { type: 'number', min: -90, max: 90, description: '' },
    accepted: [['-33.87', -33.87], ['10.', 10], ['.5', 0.5], ['-90', -90], ['90', 90], ['+1', 1], ['0', 0]],
    refused: ['', 'NaN', 'Infinity', '-Infinity', '0x10', '1e1', '10abc', ' 10', '90.0001', '-90.5', '1_0'].map(breaksNumber('x must be a number between -90 and 90')),
  },
  {
    kind: 'number with a unit',
    spec: { type: 'number', min: -1000, max: 100_000, unit: 'metres', description: '' },
    accepted: [['-1000', -1000], ['100000', 100_000]],
    refused: ['-1001', '100000.5'].map(breaks('x must be a number between -1000 and 100000 (metres)')),
  },
  {
    kind: 'integer',
    spec: { type: 'integer', min: 1, max: 999_999_999, description: '' },
    accepted: [['42', 42], ['007', 7], ['1', 1], ['999999999', 999_999_999]],
    refused: ['', '0', '1.5', '1.0', '+42', '-1', '1e3', 'abc', '1000000000', ' 1'].map(breaksNumber('x must be an integer between 1 and 999999999')),
  },
  {
    kind: 'boolean',
    spec: { type: 'boolean', default: false, description: '' },
    accepted: [['true', true], ['false', false]],
    refused: ['', 'TRUE', '1', 'yes', 'on'].map(breaks('x must be true or false')),
  },
  {
    kind: 'enum',
    spec: { type: 'enum', values: ['basic', 'extended'], default: 'basic', description: '' },
    accepted: [['basic', 'basic'], ['extended', 'extended']],
    refused: ['', 'full', 'Basic', ' basic'].map(breaks('x must be one of basic, extended')),
  },
  {
    kind: 'instant',
    spec: { type: 'time', description: '' },
    accepted: [['2026-05-30T12:25:10.469Z', '2026-05-30T12:25:10.469Z'], ['2026-05-30T14:25:10+02:00', '2026-05-30T12:25:10.000Z'], ['2026-05-30T14:25:10 02:00', '2026-05-30T12:25:10.000Z']],
    refused: ['', 'yesterday', 'now', '2026-05-31', '2026-05-31T00:00:00', '1957-10-03T23:59:59Z', '2100-01-01T00:00:01Z', '2100-01-02T00:00:00Z', '2026-02-30T00:00:00Z'].map(breaks(`x ${TIME_RULE}`)),
  },
  {
    kind: 'id list',
    spec: { type: 'ids', maxItems: 3, description: '' },
    accepted: [['25544,20580,1', [25544, 20580, 1]], ['007', [7]], ['999999999', [999_999_999]]],
    refused: [
      ...['', ',', '1,', ',1', '1,,2', '1 ,2', '25544, 20580', '25544;20580', '+1', '-1', '0', '1.0', '1e3', '0x10', 'a', '1000000000'].map(
        breaks('x must be a comma-separated list of 1 to 3 NORAD catalog numbers (integers between 1 and 999999999)'),
      ),
      ['1,2,3,4', 'x must list at most 3 catalog numbers (got 4)'],
      ['1,2,1', 'x must not repeat a catalog number (1 is given twice)'],
    ],
  },
  {
    kind: 'text',
    spec: { type: 'text', maxLength: 5, description: '' },
    // Taken as given: no trimming, no case folding.
    // Characters are code points, as JSON Schema counts them: 🛰 is one (two UTF-16 units).
    accepted: [['ISS (', 'ISS ('], [' a ', ' a '], ['abcde', 'abcde'], ['🛰🛰🛰🛰🛰', '🛰🛰🛰🛰🛰'], ['☃☃☃☃☃', '☃☃☃☃☃']],
    // Too long: how many characters were received (the value may be shown shortened; an emoji with a variation selector is two).
    refused: [
      ['', 'x must be 1 to 5 characters (got "")'],
      ['abcdef', 'x must be 1 to 5 characters (got "abcdef", 6 characters)'],
      ['🛰️🛰️🛰️', `x must be 1 to 5 characters (got "${'%F0%9F%9B%B0%EF%B8%8F'.repeat(3)}", 6 characters)`],
    ],
  },
]

describe('each kind of parameter', () => {
  for (const { kind, spec, accepted, refused } of KINDS) {
    const { parse, errorOf } = queryParser({ x: spec })
    test(`${kind}: accepted values, parsed`, () => {
      for (const [raw, value] of accepted) expect({ raw, value: parse(`x=${encodeURIComponent(raw)}`).x }).toEqual({ raw, value })
    })
    test(`${kind}: anything else is a 400 naming the parameter, its rule and the value received`, () => {
      for (const [raw, message] of refused) expect({ raw, message: errorOf(`x=${encodeURIComponent(raw)}`) }).toEqual({ raw, message })
    })
  }
})

describe('missing, repeated and undeclared parameters', () => {
  const specs = {
    latitude: { type: 'number', min: -90, max: 90, required: true, description: '' },
    altitude: { type: 'number', min: -1000, max: 100000, default: 0, unit: 'metres', description: '' },
    id: { type: 'integer', min: 1, max: 999999999, description: '' },
    flag: { type: 'boolean', default: false, description: '' },
    mode: { type: 'enum', values: ['basic', 'extended'], default: 'basic', description: '' },
    ids: { type: 'ids', maxItems: 3, description: '' },
    time: { type: 'time', description: '' },
  } as const
  const { parse, errorOf } = queryParser(specs)

  test('a missing optional parameter takes its default, or stays absent; undeclared names are ignored', () => {
    expect(parse('latitude=-33.87')).toEqual({ latitude: -33.87, altitude: 0, flag: false, mode: 'basic' })
    expect(parse('latitude=10.&altitude=.5&flag=true&mode=extended&id=42&ignored=x')).toEqual({ latitude: 10, altitude: 0.5, id: 42, flag: true, mode: 'extended' })
  })

  test('a missing required parameter is a 400 stating its rule', () => {
    expect(errorOf('')).toBe('latitude is required: a number between -90 and 90')
    const required = { ids: { type: 'ids', maxItems: 100, required: true, description: '' } } as const
    expect(() => parseParams(required, () => [])).toThrow('ids is required: a comma-separated list of 1 to 100 NORAD catalog numbers')
  })

  test('a parameter given twice is a 400, whatever the values', () => {
    expect(errorOf('latitude=1&latitude=1')).toBe('latitude must be given only once (got "1", "1")')
    expect(errorOf('latitude=1&ids=1&ids=2')).toBe('ids must be given only once (got "1", "2")')
    expect(errorOf('latitude=1&time=a&time=b')).toBe('time must be given only once (got "a", "b")')
  })
})

describe('parseInstant', () => {
  test('accepts Z, offsets, fractions and a "+" decoded to a space', () => {
    expect(parseInstant('2026-05-30T12:25:10.469Z')?.toISOString()).toBe('2026-05-30T12:25:10.469Z')
    expect(parseInstant('2026-05-30T14:25:10+02:00')?.toISOString()).toBe('2026-05-30T12:25:10.000Z')
    expect(parseInstant('2026-05-30T14:25:10 02:00')?.toISOString()).toBe('2026-05-30T12:25:10.000Z')
    expect(parseInstant('2026-05-30T10:25-02:00')?.toISOString()).toBe('2026-05-30T12:25:00.000Z')
    expect(parseInstant('2026-05-30T12:25:10.4696644Z')?.toISOString()).toBe('2026-05-30T12:25:10.470Z')
  })

  test.each([
    '2026-05-30',
    '2026-05-30T12:00:00',
    '2026-02-30T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-05-30T24:00:00Z',
    '2026-05-30T12:60:00Z',
    '2026-05-30T12:00:00+25:00',
    '1957-10-03T23:59:59Z',
    '2100-01-01T00:00:00.001Z',
    '0057-01-01T00:00:00Z',
    '1780142400000',
    ' 2026-05-30T12:00:00Z',
  ])('refuses %p', (text) => {
    expect(parseInstant(text)).toBeNull()
  })

  test('the range is inclusive', () => {
    expect(parseInstant('1957-10-04T00:00:00Z')).not.toBeNull()
    expect(parseInstant('2100-01-01T00:00:00Z')).not.toBeNull()
  })
})

describe('schemas', () => {
  test('the schema marks required and optional parameters and carries the bounds', () => {
    const schema = paramsSchema({
      latitude: { type: 'number', min: -90, max: 90, required: true, description: '' },
      altitude: { type: 'number', min: -1000, max: 100000, default: 0, unit: 'metres', description: '' },
    }) as any
    expect(schema.required).toEqual(['latitude'])
    expect(schema.properties.latitude.minimum).toBe(-90)
    expect(schema.properties.altitude.maximum).toBe(100000)
  })

  test('an id list is documented and validated as a string of digits and commas; text with its lengths', () => {
    const schema = paramsSchema({ ids: { type: 'ids', maxItems: 3, description: '' }, search: { type: 'text', maxLength: 5, description: '' } }) as any
    expect(schema.properties.ids.type).toBe('string')
    expect(new RegExp(schema.properties.ids.pattern).test('25544,20580')).toBe(true)
    expect(new RegExp(schema.properties.ids.pattern).test('25544,')).toBe(false)
    expect(schema.properties.search).toMatchObject({ type: 'string', minLength: 1, maxLength: 5 })
    expect(schema.required ?? []).toEqual([])
  })
})

describe('routeParams', () => {
  test('a route reads an id list as numbers, as its transform parsed them', async () => {
    const route = routeParams({ query: { ids: { type: 'ids', maxItems: 3, description: '' }, search: { type: 'text', maxLength: 5, description: '' }, n: { type: 'integer', min: 0, max: 9, default: 1, description: '' } } })
    const app = new Elysia().get(
      '/r',
      (ctx) => {
        const { query } = route.read(ctx.query)
        return { read: query, raw: ctx.query }
      },
      route.hooks,
    )
    const res = await app.handle(new Request('http://localhost/r?ids=3,1,2&search=abc'))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ read: { ids: [3, 1, 2], search: 'abc', n: 1 }, raw: { ids: [3, 1, 2], search: 'abc', n: 1 } })
    const without = await app.handle(new Request('http://localhost/r'))
    expect((await without.json()).read).toEqual({ n: 1 })
  })
})

/** A value each kind accepts (for the parameters a request needs besides the one under test). */
function validValue({ name, in: where, schema: s }: DeclaredParameter): string {
  if (s.enum) return s.enum[0]!
  if (s.type === 'boolean') return 'false'
  if (s.type === 'number' || s.type === 'integer') return where === 'path' && name === 'noradId' ? '25544' : String(Math.min(s.maximum!, Math.max(s.minimum!, 0)))
  if (s.format === 'date-time') return '2026-05-31T00:00:00Z'
  if (s.pattern) return '25544'
  return 'ISS'
}

/** Values each kind refuses, and the start of the message that names the parameter and its rule. */
function refusals({ name, in: where, schema: s }: DeclaredParameter): [string, string][] {
  const empty = where === 'query' ? [''] : [] // an empty path segment routes elsewhere
  if (s.enum) return ['no-such-value', ...empty].map((raw) => [raw, `${name} must be one of ${s.enum!.join(', ')}`])
  if (s.type === 'boolean') return ['yes', ...empty].map((raw) => [raw, `${name} must be true or false`])
  if (s.type === 'number' || s.type === 'integer') {
    const step = s.type === 'integer' ? 1 : 0.5
    const rule = `${name} must be ${s.type === 'integer' ? 'an integer' : 'a number'} between ${s.minimum} and ${s.maximum}`
    const malformed = s.type === 'integer' ? ['1.5', 'abc'] : ['abc', '1e1']
    return [String(s.minimum! - step), String(s.maximum! + step), ...malformed, ...empty].map((raw) => [raw, rule])
  }
  if (s.format === 'date-time') return ['tomorrow', '2026-05-31', ...empty].map((raw) => [raw, `${name} ${TIME_RULE}`])
  if (s.pattern) return ['abc', '1,,2', ...empty].map((raw) => [raw, `${name} must be a comma-separated list of 1 to `])
  return [...empty, 'x'.repeat(s.maxLength! + 1)].map((raw) => [raw, `${name} must be 1 to ${s.maxLength} characters`])
}

describe('every route of the app', () => {
  let app: App
  let routes: Map<string, DeclaredParameter[]>
  beforeAll(async () => {
    // The benchmark's routes too: they declare parameters the same way. Not the compatible APIs' routes: they
    // answer bad input in their originals' shapes (test/http/routes/compat-*.test.ts).
    app = createApp({ store: new CatalogStore(await embeddedCatalog()), clock: () => Date.UTC(2026, 4, 31), benchRoutes: true, compat: [] })
    routes = declaredParameters(app)
  })

  test('routes with parameters are found (each is checked below)', () => {
    expect([...routes.keys()]).toEqual(
      expect.arrayContaining(['/api/v1/satellites', '/api/v1/satellites/:noradId/geoposition', '/api/v1/satellites/nearby', '/api/v1/satellites/:noradId/passes', '/api/v1/satellites/:noradId/positions', '/api/v1/satellites/stream']),
    )
  })

  /** The URL of a route with its path parameters and required query parameters valid, then `override`. */
  function urlOf(path: string, declared: DeclaredParameter[], override: Record<string, string | null>, extra = ''): string {
    const pathPart = path.replace(/:([^/]+)/g, (_, name: string) => encodeURIComponent(override[name] ?? validValue(declared.find((p) => p.name === name)!)))
    const pairs: string[] = []
    for (const p of declared) {
      if (p.in !== 'query') continue
      const value = p.name in override ? override[p.name] : p.required ? validValue(p) : undefined
      if (value !== undefined && value !== null) pairs.push(`${p.name}=${encodeURIComponent(value)}`)
    }
    if (extra) pairs.push(extra)
    return pairs.length ? `${pathPart}?${pairs.join('&')}` : pathPart
  }

  test('each declared parameter: a value outside its declaration is a 400 that names the parameter, its rule and the value', async () => {
    const failures: string[] = []
    for (const [path, declared] of routes) {
      for (const parameter of declared) {
        for (const [raw, message] of refusals(parameter)) {
          const url = urlOf(path, declared, { [parameter.name]: raw })
          const { status, body } = await request(app, url)
          // Text too long also says how long (the value shown may be shortened).
          const got = parameter.schema.maxLength !== undefined && raw.length > parameter.schema.maxLength ? `(got "${shown(raw)}", ${raw.length} characters)` : `(got "${shown(raw)}")`
          if (status !== 400 || body?.statusCode !== 400 || typeof body.message !== 'string' || !body.message.startsWith(message) || !body.message.endsWith(got)) failures.push(`${url} → ${status} ${JSON.stringify(body)}; expected 400 "${message}… ${got}"`)
        }
      }
    }
    expect(failures).toEqual([])
  })

  test('a path segment that is not valid percent-encoding fails its parameter\'s rule, saying so and naming it', async () => {
    const failures: string[] = []
    let checked = 0
    for (const [path, declared] of routes) {
      for (const parameter of declared.filter((p) => p.in === 'path')) {
        for (const raw of ['%99%2C%F0', '%E0%A4', '%FF', '%ZZ', '25544%']) {
          const message = `${refusals(parameter)[0]![1]} (got "${raw}", which is not valid percent-encoding)`
          const url = urlOf(path, declared, {}).replace(`/${validValue(parameter)}`, `/${raw}`)
          const { status, body } = await request(app, url)
          checked++
          if (status !== 400 || Object.keys(body ?? {}).length !== 2 || body.statusCode !== 400 || body.message !== message) failures.push(`${url} → ${status} ${JSON.stringify(body)}; expected 400 "${message}"`)
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(15)
    expect(failures).toEqual([])
  })

  test("a query value that is not valid percent-encoding fails its parameter's rule, saying so and naming it; so does a name", async () => {
    const failures: string[] = []
    let checked = 0
    for (const [path, declared] of routes) {
      for (const parameter of declared.filter((p) => p.in === 'query')) {
        const rule = refusals(parameter)[0]![1]
        for (const raw of ['%ZZ', '%99%2C%F0', '%E0%A4', 'a%', '%FF']) {
          const url = urlOf(path, declared, { [parameter.name]: null }, `${parameter.name}=${raw}`)
          const { status, body } = await request(app, url)
          checked++
          const ending = `(got "${raw}", which is not valid percent-encoding)`
          if (status !== 400 || Object.keys(body ?? {}).length !== 2 || body.statusCode !== 400 || !body.message.startsWith(rule) || !body.message.endsWith(ending)) failures.push(`${url} → ${status} ${JSON.stringify(body)}; expected 400 "${rule}… ${ending}"`)
        }
      }
      if (!declared.some((p) => p.in === 'query')) continue
      const url = urlOf(path, declared, {}, 'x%ZZ=1')
      const { status, body } = await request(app, url)
      if (status !== 400 || body?.message !== 'a query parameter name must be valid percent-encoding (got "x%ZZ")') failures.push(`${url} → ${status} ${JSON.stringify(body)}`)
    }
    expect(checked).toBeGreaterThanOrEqual(50)
    expect(failures).toEqual([])
  })

  test('a refused value is shown as the client sent it: anything but printable ASCII percent-encoded, never a stand-in', async () => {
    const cases: [string, string][] = [
      ['/api/v1/satellites/%00', '(got "%00")'],
      ['/api/v1/satellites/25544%0A', '(got "25544%0A")'],
      ['/api/v1/satellites/%C3%A9t%C3%A9', '(got "%C3%A9t%C3%A9")'],
      ['/api/v1/satellites/25544/geoposition?time=2026%E2%80%9105', '(got "2026%E2%80%9105")'],
    ]
    for (const [url, ending] of cases) {
      const { status, body } = await request(app, url)
      expect({ url, status, ends: String(body?.message).endsWith(ending) }).toEqual({ url, status: 400, ends: true })
    }
    // A "+" left unencoded arrives as a space: the refusal says so, since the value it shows begins with one.
    const plus = await request(app, '/api/v1/satellites/nearby?latitude=+5&longitude=0')
    expect(plus.body.message).toBe(`latitude must be a number between -90 and 90 (got " 5"${PLUS_HINT})`)
    expect((await request(app, '/api/v1/satellites/nearby?latitude=%2B5&longitude=0')).status).toBe(200)
    expect(shown(`${'x'.repeat(62)}\u00e9`)).toBe(`${'x'.repeat(62)}…`) // never cut inside an escape
    expect(shown(`${'x'.repeat(58)}\u00e9`)).toBe(`${'x'.repeat(58)}%C3%A9`)
    expect(shown('\ud800')).toBe('%EF%BF%BD') // a lone surrogate: as a URL would carry it
  })

  test('each required query parameter missing, and each query parameter given twice: a 400 that says so', async () => {
    const failures: string[] = []
    for (const [path, declared] of routes) {
      for (const parameter of declared.filter((p) => p.in === 'query')) {
        const cases: [string, string][] = [[urlOf(path, declared, { [parameter.name]: validValue(parameter) }, `${parameter.name}=${encodeURIComponent(validValue(parameter))}`), `${parameter.name} must be given only once`]]
        if (parameter.required) cases.push([urlOf(path, declared, { [parameter.name]: null }), `${parameter.name} is required: `])
        for (const [url, message] of cases) {
          const { status, body } = await request(app, url)
          if (status !== 400 || !String(body?.message).startsWith(message)) failures.push(`${url} → ${status} ${JSON.stringify(body)}; expected 400 "${message}…"`)
        }
      }
    }
    expect(failures).toEqual([])
  })
})
