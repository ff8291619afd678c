/**
 * Property: whatever the request line (method, path) and the headers (Host
 * above all), the service answers below 500 with the JSON error body for an
 * error (or, on a route that documents another JSON error body, such as the
 * N2YO, Open Notify and wheretheiss.at routes, that body), routes by the path of the request line (never by an offset into the
 * URL, whatever the Host's length), refuses a bad Host with 400, an unknown
 * method with 501 (405 on a known path), and counts every answer in /metrics.
 * Through app.handle; test/e2e/edge-fuzz.test.ts sends the same kind of
 * requests over raw sockets to the executable (where Bun builds the URL).
 *
 * FUZZ_SEED=<n> replays a run; FUZZ_RUNS=<n> changes the number of runs.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { createApp } from '../../src/http/app.ts'
import { CatalogStore } from '../../src/domain/catalog/store.ts'
import { hostProblem, requestPath, requestTarget, STANDARD_METHODS } from '../../src/http/plugins/edge.ts'
import { embeddedCatalog } from '../helpers/catalog.ts'

const NOW = Date.UTC(2026, 4, 31, 12)
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500)
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED)

let app: ReturnType<typeof createApp>
/** Paths of the routes with their parameters filled (`:noradId` → 25544). */
let knownPaths: string[]
/** The routes' patterns (`:param` matches one segment; a trailing slash allowed, as the router does). */
let routePatterns: RegExp[]
/** Each route's pattern (a trailing `*` matching the rest) and its response schemas by status. */
let routeSchemas: { pattern: RegExp; schemas: Record<string, TSchema> }[]
beforeAll(async () => {
  app = createApp({ store: new CatalogStore(await embeddedCatalog()), clock: () => NOW, operations: { rateLimit: null } })
  await app.handle(new Request('http://localhost/api/v1/service/healthcheck'))
  knownPaths = [...new Set(app.routes.map((r) => r.path.replace(/:[^/]+/g, '25544')))]
  routePatterns = [...new Set(app.routes.map((r) => r.path))].map((p) => new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}/?$`))
  routeSchemas = app.routes.map((r) => ({
    pattern: new RegExp(`^${r.path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+').replace(/\/\*$/, '/.*')}/?$`),
    schemas: ((r.hooks as { response?: Record<string, TSchema> } | undefined)?.response ?? {}) as Record<string, TSchema>,
  }))
})

/** Methods: the read methods, the other standard ones, WebDAV and made-up tokens, in any case. */
const method = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('GET', 'HEAD', 'OPTIONS') },
  { weight: 2, arbitrary: fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'SEARCH', 'QUERY', 'PURGE', 'M-SEARCH') },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z-]{0,11}$/) },
  { weight: 1, arbitrary: fc.constantFrom('get', 'Get', 'head', 'options', 'foo', 'FOO') },
)

const hostChar = fc.constantFrom(...'abcxyz019.-_~%!$&\'()*+,;=:[]@/?# \t\\é'.split(''))
/** Host values: none, empty, well-formed names and addresses (short ones too), and junk. */
const host = fc.option(
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('', 'x', 'ab', 'abc', 'localhost', 'localhost:3000', '127.0.0.1:80', '[::1]', '[::1]:8080', 'example.org:', 'x:0', 'x:65535') },
    { weight: 2, arbitrary: fc.constantFrom('a b', 'a@b', 'x#y', 'a/b', 'a?b', 'x:99999', 'x:-1', 'x:1a', '[::1', '::1', 'h\\x', 'é', 'x:80:80') },
    { weight: 3, arbitrary: fc.string({ unit: hostChar, minLength: 1, maxLength: 12 }) },
  ),
  { nil: undefined, freq: 4 },
)

const segment = fc.oneof(
  fc.constantFrom('api', 'v1', 'satellites', 'service', 'status', 'healthcheck', '25544', 'xyz', 'a', '', '.', '..', '%2e%2e', '%2F', 'metrics', 'NORAD'),
  fc.string({ maxLength: 8 }).map(encodeURIComponent),
  fc.uint8Array({ maxLength: 4 }).map((b) => [...b].map((x) => `%${x.toString(16).padStart(2, '0')}`).join('')),
)
/** Paths: a known route's path, the same with something before it, and made-up ones. */
const pathInput = fc.record({
  kind: fc.constantFrom('known', 'prefixed', 'random'),
  pick: fc.nat(),
  prefix: fc.array(segment, { minLength: 1, maxLength: 3 }),
  random: fc.array(segment, { maxLength: 6 }),
  query: fc.option(fc.constantFrom('?', '?x=1', '?page=1&page-size=1', '?a=%ZZ', '?==&&'), { nil: '' }),
})

const headerName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/).filter((n) => !['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'expect'].includes(n.toLowerCase()))
const headerValue = fc.string({ unit: fc.constantFrom(...' abcXYZ09,;=/*"\'%:\t'.split('')), maxLength: 20 }).map((v) => v.trim())
const extraHeaders = fc.array(
  fc.oneof(
    fc.tuple(headerName, headerValue),
    fc.tuple(fc.constantFrom('accept-encoding', 'if-none-match', 'accept', 'origin', 'x-forwarded-for', 'access-control-request-method', 'range', 'cookie'), headerValue),
  ),
  { maxLength: 4 },
)

function pathOf(input: { kind: string; pick: number; prefix: string[]; random: string[]; query: string }): string {
  const known = knownPaths[input.pick % knownPaths.length]!
  const path = input.kind === 'known' ? known : input.kind === 'prefixed' ? `/${input.prefix.join('/')}${known}` : `/${input.random.join('/')}`
  return path + input.query
}

/** The request as app.handle gets it, or null when the Fetch API itself refuses it (an invalid token). */
function build(m: string, h: string | undefined, path: string, headers: [string, string][]): Request | null {
  try {
    const init = new Headers()
    for (const [k, v] of headers) init.append(k, v)
    if (h !== undefined) init.set('host', h)
    return new Request(`http://localhost${path}`, { method: m, headers: init })
  } catch {
    return null
  }
}

/** The body; of an event stream (which never ends), the first chunk. */
async function bodyText(response: Response): Promise<string> {
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return response.text()
  if (!response.body) return ''
  const reader = response.body.getReader()
  const { value } = await reader.read()
  await reader.cancel()
  return new TextDecoder().decode(value ?? new Uint8Array())
}

const sum = (metrics: string) =>
  metrics
    .split('\n')
    .filter((l) => l.startsWith('sattrack_http_requests_total{'))
    .reduce((total, l) => total + Number(l.slice(l.lastIndexOf(' ') + 1)), 0)

async function scrape(target = app): Promise<number> {
  return sum(await (await target.handle(new Request('http://localhost/metrics'))).text())
}

describe('request line and headers', () => {
  test('edge helpers: the path of the request line, absolute URL or bare target', () => {
    expect(requestPath('http://x/xyz/api/v1/service/status')).toBe('/xyz/api/v1/service/status')
    expect(requestPath('http://x?y=/a')).toBe('/')
    expect(requestPath('/abcdefg/api/v1/service/status?x=1')).toBe('/abcdefg/api/v1/service/status')
    expect(requestTarget('http://[::1]:3000/a?b=c')).toBe('/a?b=c')
    expect(hostProblem('x')).toBeNull()
    expect(hostProblem('[::1]:8080')).toBeNull()
    expect(hostProblem('')).toBeNull()
    expect(hostProblem('a b')).not.toBeNull()
    expect(hostProblem('x:99999')).toContain('port')
    expect(hostProblem('a@b')).not.toBeNull()
  })

  test('a short Host does not move the path: /xyz/api/v1/service/status is a 404', async () => {
    for (const h of ['x', 'ab', 'abc', 'abcd']) {
      const response = await app.handle(new Request('http://localhost/xyz/api/v1/service/status', { headers: { host: h } }))
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ message: 'no such path: /xyz/api/v1/service/status', statusCode: 404 })
    }
    expect((await app.handle(new Request('http://x/api/v1/service/healthcheck'))).status).toBe(200)
  })

  test('a bad Host is a 400 with the JSON error body naming the header', async () => {
    for (const h of ['a b', 'x:99999', 'a@b', '[::1']) {
      const response = await app.handle(new Request('http://localhost/nosuch', { headers: { host: h } }))
      expect(response.status).toBe(400)
      const body = await response.json()
      expect(body.statusCode).toBe(400)
      expect(body.message).toContain('Host header')
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
    }
  })

  test('an unknown method is 501 on an unknown path and 405 (with Allow) on a known one', async () => {
    const unknown = await app.handle(new Request('http://localhost/nosuch', { method: 'PROPFIND' }))
    expect(unknown.status).toBe(501)
    expect((await unknown.json()).statusCode).toBe(501)
    // (Bun's Request turns a method it does not know, such as FOO, into GET; WebDAV methods it keeps.)
    const known = await app.handle(new Request('http://localhost/api/v1/service/healthcheck', { method: 'MKCOL' }))
    expect(known.status).toBe(405)
    expect(known.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    // A standard method the service does not use is still a plain 404 on an unknown path.
    expect((await app.handle(new Request('http://localhost/nosuch', { method: 'POST' }))).status).toBe(404)
  })

  test(
    'property: below 500, the JSON error body, routed by the path, counted once in /metrics',
    async () => {
      // An app of its own: answers to the other tests may still be on their way to the counters.
      const fresh = createApp({ store: new CatalogStore(await embeddedCatalog()), clock: () => NOW, operations: { rateLimit: null } })
      let sent = 0
      const before = await scrape(fresh)
      await fc.assert(
        fc.asyncProperty(method, host, pathInput, extraHeaders, async (m, h, p, headers) => {
          const path = pathOf(p)
          const request = build(m, h, path, headers)
          fc.pre(request !== null)
          const response = await fresh.handle(request!)
          sent++
          const text = await bodyText(response)
          const where = `${m} ${path} Host=${JSON.stringify(h)} ${JSON.stringify(headers)} → ${response.status} ${text.slice(0, 160)}`
          if (response.status >= 500 && response.status !== 501) throw new Error(`server error: ${where}`)
          // As the Fetch API keeps it (surrounding white space trimmed).
          const sentHost = request!.headers.get('host')
          const badHost = sentHost !== null && hostProblem(sentHost) !== null
          if (badHost && response.status !== 400) throw new Error(`bad Host not refused: ${where}`)
          const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim()
          // gp.php documents its 400 (`Invalid query`) as text.
          const textError = mediaType === 'text/plain' && requestPath(request!.url).endsWith('gp.php')
          if (response.status >= 400 && request!.method !== 'HEAD' && !textError) {
            const body = JSON.parse(text)
            const own = routeSchemas.some(({ pattern, schemas }) => {
              const schema = schemas[String(response.status)]
              return schema !== undefined && pattern.test(requestPath(request!.url)) && Value.Check(schema, body)
            })
            if (!own && (body.statusCode !== response.status || typeof body.message !== 'string')) throw new Error(`malformed error body: ${where}`)
          }
          if (!badHost && !STANDARD_METHODS.has(request!.method)) {
            const known = routePatterns.some((r) => r.test(requestPath(request!.url)))
            if (response.status !== (known ? 405 : 501)) throw new Error(`unknown method: ${where}`)
          }
          // A known path with something before it is never answered as that path.
          if (!badHost && p.kind === 'prefixed' && response.status === 200 && !routePatterns.some((r) => r.test(requestPath(request!.url)))) {
            throw new Error(`routed by a wrong offset: ${where}`)
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      )
      // Every answer counted once (the scrapes too). An answer is counted once it has been sent:
      // a stream's when it closes, so the count may take a moment to settle.
      let scrapes = 1
      let counted = 0
      for (let i = 0; i < 100; i++) {
        counted = await scrape(fresh)
        if (counted === before + sent + scrapes) break
        scrapes++
        await Bun.sleep(20)
      }
      expect(counted).toBe(before + sent + scrapes)
    },
    240_000,
  )
})
