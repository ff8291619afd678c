/**
 * Live position streams (Server-Sent Events) on a loopback server, read by real
 * clients: `curl -N` and a fetch body reader. Each stream test lasts a few seconds.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { createApp } from '../../../src/http/app.ts'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { CatalogStore } from '../../../src/domain/catalog/store.ts'
import { StreamNoPositionSchema, StreamPositionSchema, StreamPositionsSchema } from '../../../src/http/routes/stream/model.ts'
import { formatEvent, sseStream } from '../../../src/http/routes/stream/sse.ts'
import { NO_AGE_LIMIT } from '../../../src/domain/orbit/validity.ts'
import { embeddedCatalog, request } from '../../helpers/catalog.ts'
import { declaredParameters, describeParameters } from '../../helpers/params.ts'

const MAX_STREAMS = 2
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

let catalog: Catalog
let app: ReturnType<typeof createApp>
let server: ReturnType<typeof Bun.serve>
let base: string
beforeAll(async () => {
  catalog = await embeddedCatalog()
  // The real clock: a stream is about now, months past the snapshot, so no limit on element age (decay and
  // plausibility still apply). A short heartbeat so a test of a few seconds sees one.
  // Every stream here comes from one client: its share is the whole cap (the share is tested on its own below).
  app = createApp({ store: new CatalogStore(catalog, NO_AGE_LIMIT), streams: { maxStreams: MAX_STREAMS, maxStreamsPerClient: MAX_STREAMS, heartbeatMs: 700 } })
  server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: app.fetch })
  base = `http://127.0.0.1:${server.port}`
})
afterAll(async () => {
  await server?.stop(true)
})

interface ParsedEvent {
  event: string
  data: any
}

/** Splits event-stream text into events and comments (the WHATWG format: blank-line separated blocks). */
function parseEventStream(text: string): { events: ParsedEvent[]; comments: string[]; retry: number | null } {
  const events: ParsedEvent[] = []
  const comments: string[] = []
  let retry: number | null = null
  for (const block of text.split('\n\n')) {
    let event = 'message'
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments.push(line.slice(1).trim())
      else if (line.startsWith('event: ')) event = line.slice(7)
      else if (line.startsWith('data: ')) data.push(line.slice(6))
      else if (line.startsWith('retry: ')) retry = Number(line.slice(7))
    }
    if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) })
  }
  return { events, comments, retry }
}

/** Waits until no stream is open (the server noticed the client leave and stopped its timers). */
async function streamsClosed(timeoutMs = 3000) {
  const until = Date.now() + timeoutMs
  while (app.store.streams.active > 0 && Date.now() < until) await Bun.sleep(20)
  return app.store.streams.active
}

/** Reads a stream with fetch until `enough` says so, then leaves (aborts). */
async function readWithFetch(path: string, enough: (text: string) => boolean, timeoutMs = 6000) {
  const abort = new AbortController()
  const response = await fetch(`${base}${path}`, { signal: abort.signal })
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  const timer = setTimeout(() => abort.abort(), timeoutMs)
  try {
    while (!enough(text)) {
      const { value, done } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
  } catch {
    // aborted by the timeout: the assertions below say what was missing
  } finally {
    clearTimeout(timer)
    abort.abort()
  }
  return { response, text }
}

describe('one satellite: GET /api/v1/satellites/:noradId/stream', () => {
  test('curl -N: a position event a second and a heartbeat; the server cleans up when curl leaves', async () => {
    const started = Date.now()
    const curl = Bun.spawn(['curl', '-N', '-s', '-S', '-i', '--max-time', '2.6', `${base}/api/v1/satellites/25544/stream`], {
      stdout: 'pipe',
      stderr: 'pipe',
      env: { ...process.env, no_proxy: '*', NO_PROXY: '*' },
    })
    const output = await new Response(curl.stdout).text()
    expect(await curl.exited).toBe(28) // curl's "operation timed out": the stream never ended by itself
    const [head, body] = output.split('\r\n\r\n', 2) as [string, string]
    expect(head).toStartWith('HTTP/1.1 200')
    expect(head.toLowerCase()).toContain('content-type: text/event-stream; charset=utf-8')
    expect(head.toLowerCase()).toContain('cache-control: no-store')
    const { events, comments, retry } = parseEventStream(body)
    expect(retry).toBe(5000)
    // The first at once, then one a second: 3 in 2.6 s.
    expect(events.map((e) => e.event)).toEqual(['position', 'position', 'position'])
    expect(comments).toContain('heartbeat')
    for (const { data } of events) {
      expect(Value.Check(StreamPositionSchema, data)).toBe(true)
      expect([data.noradId, data.name, data.epoch]).toEqual([25544, 'ISS (ZARYA)', catalog.get(25544)!.epoch])
      expect(data.datetime).toMatch(ISO_MS)
      expect(data.azimuth).toBeUndefined()
      expect(data.velocityKmHs).toBeGreaterThan(27_000)
      expect(data.velocityKmHs).toBeLessThan(28_500)
    }
    const instants = events.map((e) => Date.parse(e.data.datetime))
    expect(instants[0]! - started).toBeLessThan(1000)
    expect(instants[1]! - instants[0]!).toBeGreaterThan(900)
    expect(instants[1]! - instants[0]!).toBeLessThan(1200)
    // Each event is the geoposition at its instant.
    const geo = (await request(app, `/api/v1/satellites/25544/geoposition?time=${events[1]!.data.datetime}`)).body
    expect(events[1]!.data).toMatchObject({ latitude: geo.latitude, longitude: geo.longitude, altitude: geo.altitude })
    expect(await streamsClosed()).toBe(0)
  }, 10_000)

  test('fetch reader with an observer and a frequency: look angles, range rate and Doppler shift in every event; leaving closes the stream', async () => {
    const { response, text } = await readWithFetch(
      '/api/v1/satellites/25544/stream?latitude=-33.87&longitude=151.21&altitude=50&frequency=145.8',
      (t) => parseEventStream(t).events.length >= 2,
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    const { events } = parseEventStream(text)
    expect(events.length).toBeGreaterThanOrEqual(2)
    for (const { event, data } of events) {
      expect(event).toBe('position')
      expect(Value.Check(StreamPositionSchema, data)).toBe(true)
      expect(data.azimuth).toBeGreaterThanOrEqual(0)
      expect(data.azimuth).toBeLessThan(360)
      expect(data.elevation).toBeGreaterThanOrEqual(-90)
      expect(data.elevation).toBeLessThanOrEqual(90)
      expect(data.range).toBeGreaterThan(300)
      expect(Math.abs(data.rangeRate)).toBeLessThan(10)
      expect(data.dopplerShiftHz).toBeCloseTo((-145.8e6 * data.rangeRate) / 299_792.458, 6)
    }
    expect(await streamsClosed()).toBe(0)
  }, 10_000)

  test.each([
    ['/api/v1/satellites/999999/stream', 404, 'satellite 999999 is not in the catalogue'],
    ['/api/v1/satellites/25544/stream?latitude=10', 400, 'latitude and longitude must be given together (got latitude=10 without longitude)'],
    ['/api/v1/satellites/25544/stream?latitude=91&longitude=0', 400, 'latitude must be a number between -90 and 90'],
    ['/api/v1/satellites/25544/stream?frequency=145.8', 400, 'frequency needs an observer: give latitude and longitude too (got frequency=145.8 alone)'],
    ['/api/v1/satellites/25544/stream?latitude=1&longitude=2&frequency=0', 400, 'frequency must be a number between 0.001 and 300000 (MHz)'],
  ])('%s → %i with the error body, no stream opened', async (path, status, message) => {
    const res = await fetch(`${base}${path}`)
    expect(res.status).toBe(status)
    expect(res.headers.get('content-type')).toStartWith('application/json')
    expect(await res.json()).toEqual({ statusCode: status, message: expect.stringContaining(message) })
    expect(app.store.streams.active).toBe(0)
  })

  test('no valid position when the stream would open: 422', async () => {
    const stale = createApp({ store: new CatalogStore(catalog), clock: () => Date.UTC(2026, 10, 22, 10) })
    const { status, body } = await request(stale, '/api/v1/satellites/48880/stream')
    expect(status).toBe(422)
    expect(body.message).toStartWith('satellite 48880 has no valid position at 2026-11-22T10:00:00.000Z')
  })

  test('HEAD gives the headers and opens no stream', async () => {
    const res = await fetch(`${base}/api/v1/satellites/25544/stream`, { method: 'HEAD' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(app.store.streams.active).toBe(0)
  })
})

describe('several satellites: GET /api/v1/satellites/stream?ids=', () => {
  test('positions events: the batch geoposition shape, unknown ids listed as missing', async () => {
    const { response, text } = await readWithFetch(
      '/api/v1/satellites/stream?ids=25544,999999,20580&latitude=52&longitude=13',
      (t) => parseEventStream(t).events.length >= 2,
    )
    expect(response.status).toBe(200)
    const { events } = parseEventStream(text)
    expect(events.length).toBeGreaterThanOrEqual(2)
    for (const { event, data } of events) {
      expect(event).toBe('positions')
      expect(Value.Check(StreamPositionsSchema, data)).toBe(true)
      expect(data.data.map((e: any) => e.noradId)).toEqual([25544, 20580])
      expect(data.metadata).toMatchObject({ total: 2, missing: [999999], noPosition: [] })
      for (const entry of data.data) {
        expect(entry.datetime).toBe(data.metadata.datetime)
        expect(typeof entry.elevation).toBe('number')
      }
    }
    expect(await streamsClosed()).toBe(0)
  }, 10_000)

  test.each([
    ['/api/v1/satellites/stream?ids=999999,999998', 404, 'none of the satellites 999999, 999998 is in the catalogue'],
  ])('%s → %i', async (path, status, message) => {
    const { status: actual, body } = await request(app, path)
    expect(actual).toBe(status)
    expect(body.message).toContain(message)
  })

  test('parameters: as declared (each refused outside its declaration with a 400 naming it: test/http/plugins/params.test.ts); at most 100 ids', async () => {
    const declared = declaredParameters(app)
    const observer = ['latitude: number -90..90', 'longitude: number -180..180', 'altitude: number -1000..100000 = 0', 'frequency: number 0.001..300000']
    expect(describeParameters(declared.get('/api/v1/satellites/stream')!)).toEqual(['ids: id list required', ...observer])
    expect(describeParameters(declared.get('/api/v1/satellites/:noradId/stream')!)).toEqual(['noradId: integer 1..999999999 (path)', ...observer])
    const { body } = await request(app, `/api/v1/satellites/stream?ids=${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}`)
    expect(body).toEqual({ statusCode: 400, message: 'ids must list at most 100 catalog numbers (got 101)' })
  })
})

describe('the cap on open streams', () => {
  test('one more than the cap is a 503 with the error body; a closed stream frees its slot', async () => {
    const opened = [new AbortController(), new AbortController()]
    const responses = await Promise.all(opened.map((a) => fetch(`${base}/api/v1/satellites/25544/stream`, { signal: a.signal })))
    expect(responses.map((r) => r.status)).toEqual([200, 200])
    expect(app.store.streams.active).toBe(MAX_STREAMS)

    const refused = await fetch(`${base}/api/v1/satellites/stream?ids=25544`)
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('10')
    expect(await refused.json()).toEqual({ statusCode: 503, message: 'too many open streams (at most 2); try again later' })

    opened[0]!.abort()
    const until = Date.now() + 3000
    while (app.store.streams.active >= MAX_STREAMS && Date.now() < until) await Bun.sleep(20)
    const again = new AbortController()
    const admitted = await fetch(`${base}/api/v1/satellites/25544/stream`, { signal: again.signal })
    expect(admitted.status).toBe(200)
    again.abort()
    opened[1]!.abort()
    expect(await streamsClosed()).toBe(0)
  }, 10_000)
})

describe('the share of one client', () => {
  test('by default a quarter of the cap per client address: one more is a 429; other clients still get theirs; closing frees the share', async () => {
    // Clients told apart by X-Forwarded-For (as behind a proxy), so one test process can be several clients.
    const shared = createApp({ store: new CatalogStore(catalog, NO_AGE_LIMIT), operations: { trustProxy: true }, streams: { maxStreams: 8, heartbeatMs: 700 } })
    const open = async (client: string) => {
      const gone = new AbortController()
      const response = await shared.handle(new Request('http://localhost/api/v1/satellites/25544/stream', { headers: { 'x-forwarded-for': client }, signal: gone.signal }))
      return { response, gone }
    }
    const first = [await open('10.0.0.1'), await open('10.0.0.1')]
    expect(first.map((o) => o.response.status)).toEqual([200, 200])
    const third = await open('10.0.0.1')
    expect(third.response.status).toBe(429)
    expect(third.response.headers.get('retry-after')).toBe('10')
    expect(await third.response.json()).toEqual({ statusCode: 429, message: 'this client has 2 streams open, its share (at most 2 of 8); close one first' })
    const other = await open('10.0.0.2')
    expect(other.response.status).toBe(200)
    expect(shared.store.streams.active).toBe(3)
    // The OpenAPI description gives this instance's limits and heartbeat, not the defaults.
    const spec: any = await (await shared.handle(new Request('http://localhost/openapi/json'))).json()
    const description: string = spec.paths['/api/v1/satellites/{noradId}/stream'].get.description
    expect(description).toContain('a `: heartbeat` comment line comes every 0.7 s')
    expect(description).toContain('This instance keeps at most 8 streams open at once (`--max-streams`), and at most 2 per client address')
    await first[0]!.response.body!.cancel()
    const again = await open('10.0.0.1')
    expect(again.response.status).toBe(200)
    for (const o of [first[1]!, other, again]) await o.response.body!.cancel()
    expect(shared.store.streams.active).toBe(0)
  })
})

describe('stopping the service', () => {
  test('closeAll ends every open stream: the client sees the body end, nothing stays open', async () => {
    const response = await fetch(`${base}/api/v1/satellites/25544/stream`)
    const reader = response.body!.getReader()
    await reader.read() // the stream has started
    expect(app.store.streams.active).toBe(1)
    app.store.streams.closeAll()
    let done = false
    const until = Date.now() + 3000
    while (!done && Date.now() < until) done = (await reader.read()).done
    expect(done).toBe(true)
    expect(app.store.streams.active).toBe(0)
  }, 10_000)
})

describe('event format', () => {
  test('one event: its name, one line of JSON data, a blank line', () => {
    const text = formatEvent({ event: 'position', data: { name: 'A\nB', n: 1 } })
    expect(text).toBe('event: position\ndata: {"name":"A\\nB","n":1}\n\n')
    expect(parseEventStream(text).events).toEqual([{ event: 'position', data: { name: 'A\nB', n: 1 } }])
  })

  test('a no-position event says what kind of stop it is and why: the age limit reached while the stream is open', async () => {
    // The clock half a second before the ISS's elements reach the 30-day limit; it moves on as the stream ticks.
    const limitMs = catalog.get(25544)!.elements.epochMs + 30 * 86_400_000
    let now = limitMs - 500
    const limited = createApp({ store: new CatalogStore(catalog), clock: () => now })
    const gone = new AbortController()
    const response = await limited.handle(new Request('http://localhost/api/v1/satellites/25544/stream', { signal: gone.signal }))
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    while (parseEventStream(text).events.length < 2) {
      text += decoder.decode((await reader.read()).value, { stream: true })
      now += 1000
    }
    gone.abort()
    const [first, second] = parseEventStream(text).events
    expect(first!.event).toBe('position')
    expect(second!.event).toBe('no-position')
    expect(Value.Check(StreamNoPositionSchema, second!.data)).toBe(true)
    expect(second!.data).toMatchObject({ noradId: 25544, kind: 'element-age', message: expect.stringMatching(/^no valid position: the elements are .* days old at this instant/) })
  }, 10_000)
  test('an event that cannot be made ends the stream, once; a first one that fails leaves no timer behind', async () => {
    for (const failAt of [1, 3]) {
      let made = 0
      const errors: unknown[] = []
      let closes = 0
      const stream = sseStream({
        next: () => {
          if (++made === failAt) throw new Error('no event')
          return { event: 'tick', data: made }
        },
        intervalMs: 5,
        heartbeatMs: 5,
        onClose: () => closes++,
        onError: (error) => errors.push(error),
      })
      const text = await new Response(stream.body).text()
      await Bun.sleep(30)
      expect({ failAt, made, errors: errors.length, closes, closed: stream.closed }).toEqual({ failAt, made: failAt, errors: 1, closes: 1, closed: true })
      expect(parseEventStream(text).events.map((e) => e.data)).toEqual(Array.from({ length: failAt - 1 }, (_, i) => i + 1))
    }
  })
})

test('documented in the OpenAPI document as text/event-stream', async () => {
  const spec = (await request(app, '/openapi/json')).body
  for (const path of ['/api/v1/satellites/{noradId}/stream', '/api/v1/satellites/stream']) {
    const operation = spec.paths[path].get
    expect(Object.keys(operation.responses[200].content)).toEqual(['text/event-stream'])
    expect(operation.responses[503]).toBeDefined()
  }
})
