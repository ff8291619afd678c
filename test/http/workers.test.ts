/**
 * A worker's HTTP side (--workers): the rate limit spends the instance's
 * budgets and streams take the instance's slots (both answered asynchronously
 * by the supervisor), and /metrics shows every worker, labelled. Through
 * app.handle, with the supervisor's answers played by the test.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { createApp } from '../../src/http/app.ts'
import type { Catalog } from '../../src/domain/catalog/catalog.ts'
import { CatalogStore } from '../../src/domain/catalog/store.ts'
import { NO_AGE_LIMIT } from '../../src/domain/orbit/validity.ts'
import { parseRateLimit, RateLimiter, type RateLimit } from '../../src/http/plugins/rate-limit.ts'
import { labelledByWorker } from '../../src/http/routes/metrics/index.ts'
import type { Family } from '../../src/http/plugins/prometheus.ts'
import type { Gathered } from '../../src/io/cluster.ts'
import { embeddedCatalog, request } from '../helpers/catalog.ts'

/** The snapshot's day: the ISS has a position. */
const clock = () => Date.UTC(2026, 4, 31)
let catalog: Catalog
beforeAll(async () => {
  catalog = await embeddedCatalog()
})

describe('the rate limit of an instance', () => {
  test('each request waits for the supervisor\'s admission: 429 with Retry-After when refused', async () => {
    const rate = parseRateLimit('2/min') as RateLimit
    // The supervisor's budgets: a RateLimiter answered a moment later.
    const budgets = new RateLimiter(rate)
    const asked: string[] = []
    const app = createApp({
      store: new CatalogStore(catalog),
      clock,
      operations: {
        rateLimit: rate,
        trustProxy: true,
        rateBudget: { rate, take: (client, nowMs) => (asked.push(client), Bun.sleep(5).then(() => budgets.take(client, nowMs))) },
      },
    })
    const from = { headers: { 'x-forwarded-for': '192.0.2.9' } }
    expect((await request(app, '/api/v1/satellites/iss', from)).status).toBe(200)
    expect((await request(app, '/api/v1/satellites/iss', from)).status).toBe(200)
    const refused = await request(app, '/api/v1/satellites/iss', from)
    expect(refused.status).toBe(429)
    expect(refused.body.message).toContain('at most 2 requests per minute per client')
    expect(refused.headers.get('retry-after')).toBe('30')
    expect(asked).toEqual(['192.0.2.9', '192.0.2.9', '192.0.2.9'])
    // The healthcheck is not counted, and does not wait for the supervisor.
    expect((await request(app, '/api/v1/service/healthcheck', from)).status).toBe(200)
    expect(asked.length).toBe(3)
  })
})

describe('the stream caps of an instance', () => {
  const appWith = (grant: 'ok' | 'full' | 'client' | 'unanswered', released: string[]) =>
    createApp({
      store: new CatalogStore(catalog, NO_AGE_LIMIT),
      operations: { trustProxy: true },
      streams: { maxStreams: 8, maxStreamsPerClient: 2, slots: { acquire: async () => grant, release: (client) => released.push(client) } },
    })
  const from = { headers: { 'x-forwarded-for': '192.0.2.7' } }

  test('the instance full: 503; the client\'s share taken in the instance: 429; the supervisor silent: 503 saying so; nothing is released', async () => {
    const released: string[] = []
    const full = await request(appWith('full', released), '/api/v1/satellites/25544/stream', from)
    expect([full.status, full.body.message]).toEqual([503, 'too many open streams (at most 8); try again later'])
    expect(full.headers.get('retry-after')).toBe('10')
    const share = await request(appWith('client', released), '/api/v1/satellites/25544/stream', from)
    expect([share.status, share.body.message]).toEqual([429, 'this client has 2 streams open, its share (at most 2 of 8); close one first'])
    // The supervisor silent: a 503 that says so, not that the streams are all taken.
    const silent = await request(appWith('unanswered', released), '/api/v1/satellites/25544/stream', from)
    expect([silent.status, silent.body.message]).toEqual([503, "the instance's open streams could not be counted (its supervisor did not answer in time); try again later"])
    expect(silent.headers.get('retry-after')).toBe('10')
    expect(released).toEqual([])
  })

  test('a stream granted a slot gives it back when it ends (HEAD: at once)', async () => {
    const released: string[] = []
    const app = appWith('ok', released)
    const head = await app.handle(new Request('http://localhost/api/v1/satellites/25544/stream', { method: 'HEAD', ...from }))
    expect(head.status).toBe(200)
    expect(released).toEqual(['192.0.2.7'])
    const response = await app.handle(new Request('http://localhost/api/v1/satellites/25544/stream', from))
    expect(response.headers.get('content-type')).toStartWith('text/event-stream')
    const reader = response.body!.getReader()
    let text = ''
    while (!text.includes('event: position')) text += new TextDecoder().decode((await reader.read()).value)
    expect(app.store.streams.active).toBe(1)
    await reader.cancel()
    expect(released).toEqual(['192.0.2.7', '192.0.2.7'])
    expect(app.store.streams.active).toBe(0)
  })
})

describe('/metrics of an instance', () => {
  test('every worker\'s own series labelled worker="N", the supervisor\'s as worker="supervisor", the shared ones once', async () => {
    let local: (() => Family[]) | undefined
    const app = createApp({
      store: new CatalogStore(catalog),
      clock,
      operations: {
        instance: {
          worker: 2,
          provide: (make) => {
            local = make
          },
          inFlight: () => 3,
          // The supervisor's answer: this worker's own families and another worker's.
          gather: async (): Promise<Gathered> => ({
            workers: [
              { worker: 1, pid: 11, families: [{ name: 'sattrack_http_requests_in_flight', help: 'h', type: 'gauge', samples: [{ value: 1 }] }] },
              { worker: 2, pid: 12, families: local!() },
            ],
            supervisor: { pid: 10, rssBytes: 40e6, cpuSeconds: 1.5, startedAtMs: 1_780_000_000_000, configured: 2, listening: 2, replaced: 1 },
          }),
        },
      },
    })
    await request(app, '/api/v1/satellites/iss')
    // Counted once the answer is handed over (an after-response hook).
    await Bun.sleep(20)
    const { text } = await request(app, '/metrics')
    const lines = text.split('\n')
    expect(lines).toContain('sattrack_http_requests_in_flight{worker="1"} 1')
    expect(lines).toContain('sattrack_http_requests_in_flight{worker="2"} 3')
    expect(lines).toContain('sattrack_http_requests_total{worker="2",method="GET",route="/api/v1/satellites/iss",status="200"} 1')
    expect(lines).toContain('process_resident_memory_bytes{worker="supervisor"} 40000000')
    expect(lines).toContain('sattrack_workers{state="configured"} 2')
    expect(lines).toContain('sattrack_workers{state="listening"} 2')
    expect(lines).toContain('sattrack_workers_replaced_total 1')
    expect(lines).toContain(`sattrack_catalog_satellites ${catalog.size}`)
    // One HELP and TYPE per family, whatever the number of workers.
    expect(lines.filter((l) => l === '# TYPE sattrack_http_requests_in_flight gauge').length).toBe(1)
    expect(lines.filter((l) => l === '# TYPE process_resident_memory_bytes gauge').length).toBe(1)
    expect(lines.filter((l) => l.startsWith('process_resident_memory_bytes{')).length).toBe(2)
  })

  test('labelledByWorker merges same-named families in worker order', () => {
    const family = (value: number): Family => ({ name: 'x', help: 'h', type: 'counter', samples: [{ labels: { route: 'r' }, value }] })
    expect(labelledByWorker([{ worker: 1, families: [family(5)] }, { worker: 2, families: [family(7)] }])).toEqual([
      { name: 'x', help: 'h', type: 'counter', samples: [{ labels: { worker: '1', route: 'r' }, value: 5 }, { labels: { worker: '2', route: 'r' }, value: 7 }] },
    ])
  })
})
