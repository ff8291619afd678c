/**
 * Property: whatever a client sends to whatever route, the service answers
 * with a status below 500 and, for an error, the error body; it never throws.
 * Routes are read from app.routes, so routes added later are covered too.
 * Values: arbitrary strings (unicode and binary), numbers in every notation,
 * instants, percent-encoded bytes (valid and invalid UTF-8), repeats. An error
 * answer is the JSON error body unless the route documents another media type
 * for that status (the CelesTrak-compatible gp.php answers `Invalid query` as text).
 *
 * FUZZ_SEED=<n> replays a run; FUZZ_RUNS=<n> changes the runs per route.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { Value } from '@sinclair/typebox/value'
import type { TSchema } from '@sinclair/typebox'
import { createApp } from '../../src/http/app.ts'
import type { Catalog } from '../../src/domain/catalog/catalog.ts'
import { CatalogStore } from '../../src/domain/catalog/store.ts'
import { log } from '../../src/io/log.ts'
import { embeddedCatalog } from '../helpers/catalog.ts'

const NOW = Date.UTC(2026, 4, 31, 12)
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 120)
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED)

/** Parameter names of docs/contract.md that a route may read without declaring them in a schema. */
const DOCUMENTED_NAMES = ['time', 'latitude', 'longitude', 'altitude', 'mode', 'group', 'search', 'ids', 'page', 'page-size', 'from', 'to', 'step', 'days', 'GROUP', 'CATNR', 'NAME', 'INTDES', 'FORMAT']

let catalog: Catalog
let app: ReturnType<typeof createApp>
beforeAll(async () => {
  catalog = await embeddedCatalog()
  app = createApp({ store: new CatalogStore(catalog), clock: () => NOW, benchRoutes: true, operations: { rateLimit: null } })
})

/** Percent-encodes arbitrary bytes, so invalid UTF-8 (`%FF`, a cut `%E2%82`) reaches the service too. */
const rawBytes = fc.uint8Array({ maxLength: 12 }).map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join(''))

const numberText = fc.oneof(
  fc.double().map(String),
  fc.double({ noNaN: true, min: -1e6, max: 1e6 }).map((n) => n.toFixed(6)),
  fc.integer().map(String),
  fc.bigInt().map(String),
  fc.integer({ min: -200, max: 200 }).map((n) => n.toString(16)),
  fc.constantFrom('1e2', '0x10', '0b1', ' 1', '1 ', '1_000', '١٢', '+5', '-0', '.5', '5.', 'Infinity', '-Infinity', 'NaN', '', '10abc', '9'.repeat(400), '1e309', '25544', '0', '-1', '999999999', '1000000000'),
)

const instantText = fc.oneof(
  fc.date({ min: new Date(-8e15), max: new Date(8e15), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.date({ min: new Date(Date.UTC(1950, 0)), max: new Date(Date.UTC(2110, 0)), noInvalidDate: true }).map((d) => d.toISOString().replace('Z', '+25:00')),
  fc.tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 })).map(
    ([y, mo, d, h]) => `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}T${String(h).padStart(2, '0')}:00:00Z`,
  ),
  fc.constantFrom('2026-05-30T12:00:00Z', '2026-05-30T12:00:00+02:00', '2026-05-30 12:00:00 02:00', '2026-02-30T00:00:00Z', 'now', '1957-10-03T23:59:59Z', '2100-01-01T00:00:00.001Z'),
)

const anyText = fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constantFrom('true', 'false', 'basic', 'extended', 'tle', 'json', 'csv', 'stations', '%', '%%', '%G1', '%E2%82', '+', '&', '=', '..', '/', '\\', '\u0000'))

/** A value as it appears in the URL: properly encoded, or raw encoded bytes, or an encoded value with stray `%`/`+`. */
const encodedValue = fc.oneof(
  { weight: 5, arbitrary: fc.oneof(numberText, instantText, anyText).map(encodeURIComponent) },
  { weight: 2, arbitrary: rawBytes },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.oneof(numberText, anyText), fc.constantFrom('', '%', '%Z', '+', '%2'))
      .map(([v, tail]) => encodeURIComponent(v).replace(/%20/g, '+') + tail),
  },
)

interface RouteShape {
  method: string
  path: string
  pathParams: string[]
  queryNames: string[]
  /** Media types the route documents per status (OpenAPI `responses`), e.g. gp.php's text/plain 400. */
  documented: Record<string, string[]>
  /** The route's own response schemas per status (the compatible APIs' error bodies). */
  schemas: Record<string, TSchema>
}

/** What the property needs of an app. */
interface Target {
  routes: readonly { method: string; path: string; hooks?: unknown }[]
  handle(request: Request): Promise<Response>
}

function shapes(target: Target): RouteShape[] {
  const seen = new Set<string>()
  const out: RouteShape[] = []
  for (const route of target.routes) {
    const key = `${route.method} ${route.path}`
    if (seen.has(key)) continue
    seen.add(key)
    const hooks = route.hooks as {
      query?: { properties?: Record<string, unknown> }
      detail?: { responses?: Record<string, { content?: object }> }
      response?: Record<string, TSchema>
    }
    const query = hooks?.query
    const documented = Object.fromEntries(Object.entries(hooks?.detail?.responses ?? {}).map(([status, r]) => [status, Object.keys(r.content ?? {})]))
    out.push({
      documented,
      schemas: hooks?.response ?? {},
      method: route.method,
      path: route.path,
      pathParams: [...route.path.matchAll(/:([^/]+)/g)].map((m) => m[1]!),
      queryNames: Object.keys(query?.properties ?? {}),
    })
  }
  return out
}

function requestFor(shape: RouteShape) {
  const names = fc.constantFrom(...new Set([...shape.queryNames, ...DOCUMENTED_NAMES, 'x', '']))
  const pair = fc.tuple(fc.oneof({ weight: 4, arbitrary: names }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map(encodeURIComponent) }), encodedValue)
  return fc.record({
    pathValues: fc.array(fc.oneof(encodedValue, numberText.map(encodeURIComponent)), { minLength: shape.pathParams.length, maxLength: shape.pathParams.length }),
    pairs: fc.array(pair, { maxLength: 12 }),
    repeatOne: fc.boolean(),
    bareKey: fc.boolean(),
    method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'OPTIONS', 'POST', 'DELETE'),
    body: fc.option(fc.oneof(fc.string(), fc.constant('{"broken":'), fc.json()), { nil: undefined }),
    acceptEncoding: fc.option(fc.constantFrom('br', 'gzip', 'identity;q=0, *;q=0', 'br;q=abc', '*', 'x'), { nil: undefined }),
    ifNoneMatch: fc.option(fc.oneof(fc.constant('*'), fc.string({ maxLength: 20 }).filter((s) => /^[\x20-\x7e]*$/.test(s))), { nil: undefined }),
  })
}

function urlOf(shape: RouteShape, input: { pathValues: string[]; pairs: [string, string][]; repeatOne: boolean; bareKey: boolean }): string {
  let i = 0
  // An empty segment would route elsewhere; a fixed stand-in keeps the route under test.
  const path = shape.path.replace(/:[^/]+/g, () => input.pathValues[i++] || '_')
  const pairs = input.pairs.map(([k, v]) => `${k}=${v}`)
  if (input.repeatOne && input.pairs.length > 0) pairs.push(pairs[0]!)
  if (input.bareKey) pairs.push(shape.queryNames[0] ?? 'time')
  return `http://localhost${path}${pairs.length ? `?${pairs.join('&')}` : ''}`
}

async function firstChunk(response: Response): Promise<string> {
  if (!response.body) return '' // HEAD: the stream's headers, no body
  const reader = response.body.getReader()
  const { value } = await reader.read()
  await reader.cancel()
  return new TextDecoder().decode(value ?? new Uint8Array())
}

/** Sends one generated request; throws when the answer breaks the property. */
async function check(target: Target, shape: RouteShape, input: RequestInput): Promise<void> {
  const url = urlOf(shape, input)
  const headers: Record<string, string> = {}
  if (input.acceptEncoding) headers['accept-encoding'] = input.acceptEncoding
  if (input.ifNoneMatch) headers['if-none-match'] = input.ifNoneMatch
  const hasBody = input.body !== undefined && input.method !== 'GET' && input.method !== 'HEAD'
  if (hasBody) headers['content-type'] = 'application/json'
  const response = await target.handle(new Request(url, { method: input.method, headers, body: hasBody ? input.body : undefined }))
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  // An event stream never ends: its first event is enough.
  const text = mediaType === 'text/event-stream' ? await firstChunk(response) : await response.text()
  const where = `${input.method} ${url} → ${response.status} ${text.slice(0, 200)}`
  if (response.status >= 500) throw new Error(`server error: ${where}`)
  const documentedOtherwise = mediaType !== 'application/json' && (shape.documented[String(response.status)] ?? []).includes(mediaType)
  if (response.status >= 400 && input.method !== 'HEAD' && !documentedOtherwise) {
    let body: any
    try {
      body = JSON.parse(text)
    } catch {
      throw new Error(`error without the JSON error body: ${where}`)
    }
    // The route's own error body; or, when the path, once normalised (a `%2E` or `..` segment resolved), falls
    // under a family's catch-all route instead (`/v1/*`: its unknown paths), that route's.
    const pathname = new URL(url).pathname
    const catchAlls = shapes(target).filter((s) => s.path.endsWith('/*') && pathname.startsWith(s.path.slice(0, -1)))
    const owns = [shape, ...catchAlls].map((s) => s.schemas[String(response.status)]).filter((schema) => schema !== undefined)
    const isErrorBody = (b: any) => b?.statusCode === response.status && typeof b?.message === 'string' && b.message !== ''
    if (!owns.some((schema) => Value.Check(schema, body)) && !isErrorBody(body)) {
      throw new Error(`malformed error body: ${where}`)
    }
  }
}

type RequestInput = typeof requestFor extends (s: RouteShape) => fc.Arbitrary<infer T> ? T : never

describe('every route, every parameter', () => {
  test('routes are found (the property below covers each of them)', () => {
    const paths = shapes(app).map((s) => s.path)
    for (const p of ['/api/v1/satellites', '/api/v1/satellites/:noradId/geoposition', '/api/v1/satellites/nearby', '/metrics']) expect(paths).toContain(p)
  })

  test(
    'never a 500, never a thrown error; errors carry {message, statusCode}',
    async () => {
      for (const shape of shapes(app)) {
        await fc.assert(
          fc.asyncProperty(requestFor(shape), (input) => check(app, shape, input)),
          { numRuns: RUNS_PER_ROUTE, seed: SEED, endOnFailure: true },
        )
      }
    },
    240_000,
  )

  test('the property does catch a route that fails on some input', async () => {
    const canary = createApp({ store: new CatalogStore(catalog), clock: () => NOW }).get('/canary/:id', ({ request }) => {
      if (new URL(request.url).searchParams.size >= 3) throw new Error('three parameters break me')
      return { ok: true }
    })
    const shape = shapes(canary).find((s) => s.path === '/canary/:id')!
    log.configure({ sink: () => {} }) // the canary's 500s are logged as errors: not wanted in the test output
    const result = await fc
      .check(fc.asyncProperty(requestFor(shape), (input) => check(canary, shape, input)), { numRuns: 300, seed: 1 })
      .finally(() => log.configure({ sink: null }))
    expect(result.failed).toBe(true)
    expect(String(result.errorInstance)).toContain('server error')
  })
})
