/**
 * Operations around the API through app.handle: request limits (414, 400, 429),
 * security headers and the CSP of HTML pages, the access log, and GET /metrics
 * (checked by promtool).
 */
import { afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { createApp } from '../../../src/http/app.ts'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { disabledRefreshStatus } from '../../../src/domain/catalog/refresh.ts'
import { CatalogStore } from '../../../src/domain/catalog/store.ts'
import { log } from '../../../src/io/log.ts'
import { MAX_QUERY_PARAMS, MAX_URL_BYTES } from '../../../src/http/plugins/limits.ts'
import type { OperationsOptions } from '../../../src/http/app.ts'
import { parseRateLimit, type RateLimit } from '../../../src/http/plugins/rate-limit.ts'
import { HTML_CONTENT_SECURITY_POLICY } from '../../../src/http/plugins/security-headers.ts'
import { embeddedCatalog, request } from '../../helpers/catalog.ts'
import { PROMTOOL, testWith } from '../../helpers/tools.ts'

const NOW = Date.UTC(2026, 4, 31)
let catalog: Catalog
beforeAll(async () => {
  catalog = await embeddedCatalog()
})

function appWith(operations: OperationsOptions = {}, extra: Partial<Parameters<typeof createApp>[0]> = {}) {
  return createApp({ store: new CatalogStore(catalog), clock: () => NOW, operations, ...extra })
}

function expectErrorBody(reply: { status: number; body: any; headers: Headers }, status: number): string {
  expect(reply.status).toBe(status)
  expect(reply.headers.get('content-type')).toStartWith('application/json')
  expect(Object.keys(reply.body).sort()).toEqual(['message', 'statusCode'])
  expect(reply.body.statusCode).toBe(status)
  return reply.body.message
}

describe('limits', () => {
  test(`a URL of ${MAX_URL_BYTES} bytes is served; one byte more is 414 with the error body`, async () => {
    const app = appWith()
    const base = '/api/v1/satellites/25544?pad='
    const fits = base + 'x'.repeat(MAX_URL_BYTES - base.length)
    expect((await request(app, fits)).status).toBe(200)
    const reply = await request(app, `${fits}x`)
    expect(expectErrorBody(reply, 414)).toContain(String(MAX_URL_BYTES))
    expect(reply.headers.get('access-control-allow-origin')).toBe('*')
    // Also on unknown paths, and a long path counts like a long query.
    expect((await request(app, `/${'p'.repeat(MAX_URL_BYTES + 10)}`)).status).toBe(414)
  })

  test(`${MAX_QUERY_PARAMS} query parameters are served; ${MAX_QUERY_PARAMS + 1} are a 400 that says so`, async () => {
    const app = appWith()
    const params = (n: number) => Array.from({ length: n }, (_, i) => `p${i}=${i}`).join('&')
    expect((await request(app, `/api/v1/satellites/iss?${params(MAX_QUERY_PARAMS)}`)).status).toBe(200)
    const message = expectErrorBody(await request(app, `/api/v1/satellites/iss?${params(MAX_QUERY_PARAMS + 1)}`), 400)
    expect(message).toContain(`${MAX_QUERY_PARAMS + 1} parameters`)
    // Repeats count; empty pieces do not.
    expect((await request(app, `/api/v1/satellites/iss?${'a=1&'.repeat(MAX_QUERY_PARAMS + 1)}`)).status).toBe(400)
    expect((await request(app, `/api/v1/satellites/iss?${'&'.repeat(200)}a=1`)).status).toBe(200)
  })

  test('no rate limit unless configured', async () => {
    const app = appWith()
    for (let i = 0; i < 200; i++) expect((await request(app, '/api/v1/satellites/iss')).status).toBe(200)
  })

  test('over the rate limit: 429 with Retry-After, the error body and CORS; per client; healthcheck and /metrics exempt', async () => {
    const app = appWith({ rateLimit: parseRateLimit('3/min') as RateLimit, trustProxy: true })
    const from = (client: string) => ({ headers: { 'x-forwarded-for': `198.51.100.7, ${client}` } })
    for (let i = 0; i < 3; i++) expect((await request(app, '/api/v1/satellites/iss', from('192.0.2.1'))).status).toBe(200)
    const refused = await request(app, '/api/v1/satellites/iss', from('192.0.2.1'))
    expect(expectErrorBody(refused, 429)).toContain('at most 3 requests per minute per client')
    expect(refused.headers.get('retry-after')).toBe('20')
    expect(refused.headers.get('access-control-allow-origin')).toBe('*')
    // A script on another origin may read Retry-After (and, on answers, ETag): not CORS-safelisted, so exposed.
    expect(refused.headers.get('access-control-expose-headers')).toBe('ETag, Retry-After')
    // Every path counts against the same budget, unknown ones included.
    expect((await request(app, '/nope', from('192.0.2.1'))).status).toBe(429)
    // Another client has its own budget.
    expect((await request(app, '/api/v1/satellites/iss', from('192.0.2.2'))).status).toBe(200)
    // Probes and scrapes are never refused.
    for (let i = 0; i < 10; i++) {
      expect((await request(app, '/api/v1/service/healthcheck', from('192.0.2.1'))).status).toBe(200)
      expect((await request(app, '/metrics', from('192.0.2.1'))).status).toBe(200)
    }
  })

  test('without --trust-proxy, X-Forwarded-For does not make a new client', async () => {
    const app = appWith({ rateLimit: parseRateLimit('2/min') as RateLimit })
    for (const client of ['192.0.2.1', '192.0.2.2']) await request(app, '/api/v1/satellites/iss', { headers: { 'x-forwarded-for': client } })
    expect((await request(app, '/api/v1/satellites/iss', { headers: { 'x-forwarded-for': '192.0.2.3' } })).status).toBe(429)
  })
})

describe('security headers', () => {
  test('nosniff and Referrer-Policy on answers, errors and preflights alike', async () => {
    const app = appWith()
    const page = (await request(app, '/')).text
    const asset = /src="(app\/[^"]+)"/.exec(page)![1]
    for (const path of ['/api/v1/satellites/25544', '/api/v1/satellites', '/nope', '/api/v1/satellites/0', '/openapi/json', '/metrics', '/', `/${asset}`, '/app/groups.json']) {
      const { headers } = await request(app, path)
      expect(`${path}: ${headers.get('x-content-type-options')} ${headers.get('referrer-policy')}`).toBe(`${path}: nosniff no-referrer`)
    }
    // Answered before routing: a preflight (204), a bad Host (400).
    const early = [
      await app.handle(new Request('http://localhost/api/v1/satellites', { method: 'OPTIONS', headers: { origin: 'http://example.test', 'access-control-request-method': 'GET' } })),
      await app.handle(new Request('http://localhost/api/v1/satellites/25544', { headers: { host: 'bad host' } })),
    ]
    expect(early.map((answer) => answer.status)).toEqual([204, 400])
    for (const answer of early) {
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer')
    }
  })

  test('the docs pages carry the strict CSP; JSON answers none', async () => {
    const app = appWith()
    for (const path of ['/docs', '/openapi', '/swagger']) {
      const { headers } = await request(app, path)
      expect(headers.get('content-type')).toStartWith('text/html')
      expect(headers.get('content-security-policy')).toBe(HTML_CONTENT_SECURITY_POLICY)
      expect(headers.get('x-frame-options')).toBe('DENY')
    }
    expect(HTML_CONTENT_SECURITY_POLICY).toContain("default-src 'none'")
    expect(HTML_CONTENT_SECURITY_POLICY).toContain("script-src 'self'")
    expect(HTML_CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/)
    expect(HTML_CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'")
    expect((await request(app, '/api/v1/satellites/25544')).headers.get('content-security-policy')).toBeNull()
  })

  test('an HTML page with a policy of its own keeps it', async () => {
    const own = "default-src 'self'; img-src 'self' https://tiles.example.org"
    const app = appWith().get('/own-page', () => new Response('<p>hi</p>', { headers: { 'content-type': 'text/html', 'content-security-policy': own } }))
    const { headers } = await app.handle(new Request('http://localhost/own-page'))
    expect(headers.get('content-security-policy')).toBe(own)
    expect(headers.get('x-content-type-options')).toBe('nosniff')
  })
})

describe('access log', () => {
  const lines: string[] = []
  afterEach(() => {
    log.configure({ sink: null, format: 'json' })
    lines.length = 0
  })

  test('one JSON line per request: method, path without the query, route pattern, status, duration', async () => {
    log.configure({ sink: (line) => lines.push(line) })
    const app = appWith({ accessLog: true })
    await request(app, '/api/v1/satellites/25544/geoposition?time=2026-05-30T12:00:00Z&secret=alice%40example.org')
    await request(app, '/nope?q=bob')
    await request(app, '/api/v1/satellites/25544', { method: 'POST' })
    await afterResponses()
    const entries = lines.map((l) => JSON.parse(l))
    expect(entries).toHaveLength(3)
    expect(entries[0]).toMatchObject({
      level: 'info',
      msg: 'request',
      method: 'GET',
      path: '/api/v1/satellites/25544/geoposition',
      route: '/api/v1/satellites/:noradId/geoposition',
      status: 200,
    })
    expect(entries[0].durationMs).toBeNumber()
    expect(entries[0].time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(entries[1]).toMatchObject({ path: '/nope', route: 'unmatched', status: 404 })
    expect(entries[2]).toMatchObject({ method: 'POST', status: 405 })
    const all = lines.join('\n')
    for (const secret of ['alice', 'example.org', 'bob', '2026-05-30T12']) expect(all).not.toContain(secret)
  })

  test('written whatever --log-level says; nothing without --access-log', async () => {
    log.configure({ sink: (line) => lines.push(line), level: 'error' })
    try {
      await request(appWith({ accessLog: true }), '/api/v1/satellites/iss')
      await request(appWith({ accessLog: false }), '/api/v1/satellites/iss')
      await afterResponses()
      expect(lines).toHaveLength(1)
    } finally {
      log.configure({ level: 'info' })
    }
  })

  test('pretty format: one line for people', async () => {
    log.configure({ sink: (line) => lines.push(line), format: 'pretty' })
    await request(appWith({ accessLog: true }), '/api/v1/satellites/iss?time=2026-05-30T12:00:00Z')
    await afterResponses()
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z INFO  request method=GET path=\/api\/v1\/satellites\/iss route=\/api\/v1\/satellites\/iss status=200 durationMs=[\d.]+$/)
  })
})

/** Samples of a metric family as {labels string → value}. */
function samples(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    const m = /^([a-z_:][a-z0-9_:]*)(\{[^}]*\})? (\S+)$/i.exec(line)
    if (m && m[1] === name) out.set(m[2] ?? '', Number(m[3]))
  }
  return out
}

/** Requests are counted once answered, in Elysia's after-response hook, which runs a moment later. */
const afterResponses = () => Bun.sleep(20)

async function promtoolCheck(text: string): Promise<{ exitCode: number; output: string }> {
  const proc = Bun.spawn(['promtool', 'check', 'metrics'], { stdin: new TextEncoder().encode(text), stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  return { exitCode: await proc.exited, output: (out + err).trim() }
}

describe('GET /metrics', () => {
  test('Prometheus text with the request counts by route pattern and status, never the raw path', async () => {
    const app = appWith()
    await request(app, '/api/v1/satellites/25544')
    await request(app, '/api/v1/satellites/5')
    await request(app, '/api/v1/satellites/25544/geoposition?time=2026-05-30T12:00:00Z')
    await request(app, '/api/v1/satellites/abc')
    await request(app, '/no/such/path')
    await afterResponses()
    const reply = await request(app, '/metrics')
    expect(reply.status).toBe(200)
    expect(reply.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    const text = reply.text
    const requests = samples(text, 'sattrack_http_requests_total')
    expect(requests.get('{method="GET",route="/api/v1/satellites/:noradId",status="200"}')).toBe(1)
    expect(requests.get('{method="GET",route="/api/v1/satellites/:noradId",status="404"}')).toBe(1)
    expect(requests.get('{method="GET",route="/api/v1/satellites/:noradId",status="400"}')).toBe(1)
    expect(requests.get('{method="GET",route="/api/v1/satellites/:noradId/geoposition",status="200"}')).toBe(1)
    expect(requests.get('{method="GET",route="unmatched",status="404"}')).toBe(1)
    for (const raw of ['/api/v1/satellites/25544"', '/api/v1/satellites/5"', 'abc', '/no/such/path']) expect(text).not.toContain(raw)
  })

  test('a latency histogram per route', async () => {
    const app = appWith()
    for (let i = 0; i < 3; i++) await request(app, '/api/v1/satellites/iss')
    await afterResponses()
    const text = (await request(app, '/metrics')).text
    const buckets = samples(text, 'sattrack_http_request_duration_seconds_bucket')
    expect(buckets.get('{route="/api/v1/satellites/iss",le="+Inf"}')).toBe(3)
    expect(samples(text, 'sattrack_http_request_duration_seconds_count').get('{route="/api/v1/satellites/iss"}')).toBe(3)
    expect(samples(text, 'sattrack_http_request_duration_seconds_sum').get('{route="/api/v1/satellites/iss"}')).toBeGreaterThan(0)
    expect(text).toContain('# TYPE sattrack_http_request_duration_seconds histogram')
  })

  test('catalogue size, element-age quantiles, refresh counts and last success, process memory', async () => {
    const lastSuccessAt = '2026-05-30T23:00:00.000Z'
    const app = appWith(
      { refreshCounts: () => ({ succeeded: 4, failed: 2 }) },
      { refreshStatus: () => ({ ...disabledRefreshStatus(), enabled: true, lastSuccessAt, consecutiveFailures: 1 }) },
    )
    const text = (await request(app, '/metrics')).text
    const one = (name: string, labels = '') => samples(text, name).get(labels)
    expect(one('sattrack_catalog_satellites')).toBe(catalog.size)
    expect(one('sattrack_catalog_group_satellites', '{group="stations"}')).toBe(catalog.groupCounts.stations!)
    // Ages at NOW from the epochs themselves.
    const ages = catalog.satellites.map((s) => (NOW - s.elements.epochMs) / 1000).sort((a, b) => a - b)
    expect(one('sattrack_catalog_element_age_seconds', '{quantile="0"}')).toBeCloseTo(ages[0]!, 3)
    expect(one('sattrack_catalog_element_age_seconds', '{quantile="1"}')).toBeCloseTo(ages.at(-1)!, 3)
    const median = one('sattrack_catalog_element_age_seconds', '{quantile="0.5"}')!
    expect(Math.abs(median - ages[Math.floor(ages.length / 2)]!)).toBeLessThan(86_400)
    expect(one('sattrack_catalog_element_age_seconds_count')).toBe(catalog.size)
    expect(one('sattrack_refresh_enabled')).toBe(1)
    expect(one('sattrack_refresh_successes_total')).toBe(4)
    expect(one('sattrack_refresh_failures_total')).toBe(2)
    expect(one('sattrack_refresh_consecutive_failures')).toBe(1)
    expect(one('sattrack_refresh_last_success_timestamp_seconds')).toBe(Date.parse(lastSuccessAt) / 1000)
    expect(one('process_resident_memory_bytes')).toBeGreaterThan(10_000_000)
    expect(one('sattrack_js_heap_used_bytes')).toBeGreaterThan(0)
    expect(one('sattrack_catalog_obtained_timestamp_seconds')).toBe(catalog.origin.obtainedAtMs / 1000)
    expect(text).toMatch(/^sattrack_build_info\{version="\d+\.\d+\.\d+[^"]*",commit="[^"]+"\} 1$/m)
  })

  test('refresh off: enabled 0, counters 0, last success 0', async () => {
    const text = (await request(appWith(), '/metrics')).text
    expect(samples(text, 'sattrack_refresh_enabled').get('')).toBe(0)
    expect(samples(text, 'sattrack_refresh_successes_total').get('')).toBe(0)
    expect(samples(text, 'sattrack_refresh_last_success_timestamp_seconds').get('')).toBe(0)
  })

  test('--metrics=false: no /metrics (404)', async () => {
    expect((await request(appWith({ metrics: false }), '/metrics')).status).toBe(404)
  })

  testWith([PROMTOOL])('promtool check metrics accepts it (after traffic of every kind)', async () => {
    const app = appWith({ rateLimit: parseRateLimit('1/min') as RateLimit }, { refreshStatus: () => ({ ...disabledRefreshStatus(), enabled: true }) })
    for (const path of ['/api/v1/satellites/iss', '/api/v1/satellites/iss', '/nope', '/api/v1/satellites/x%22y', '/openapi']) await request(app, path)
    await request(app, '/api/v1/satellites', { method: 'DELETE' })
    await afterResponses()
    const text = (await request(app, '/metrics')).text
    const { exitCode, output } = await promtoolCheck(text)
    expect(output).toBe('')
    expect(exitCode).toBe(0)
    // The check can fail: a counter without _total is refused.
    expect((await promtoolCheck('# HELP bad Bad\n# TYPE bad counter\nbad 1\n')).exitCode).not.toBe(0)
  })
})
