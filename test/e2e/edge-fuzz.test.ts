/**
 * The executable under fuzzed request lines and headers, over raw sockets
 * (where Bun, not the test, builds request.url from the Host): every request
 * is answered below 500, never with an HTML page; an answer from the app
 * carries the JSON error body when it is an error and is counted in /metrics;
 * the only requests not answered by the app are those Bun's own parser
 * refuses (a method it does not know, lowercase included: connection closed;
 * a malformed target or version: a bare 400/505). Nothing on stderr.
 *
 * FUZZ_SEED=<n> replays a run; EDGE_FUZZ_RUNS=<n> changes the number of requests.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { connect } from 'node:net'
import fc from 'fast-check'
import { LOOPBACK, type Service, startService } from './harness.ts'

setDefaultTimeout(120_000)
const RUNS = Number(process.env.EDGE_FUZZ_RUNS ?? 600)
const SEED = process.env.FUZZ_SEED === undefined ? 18 : Number(process.env.FUZZ_SEED)

/** Methods Bun's parser accepts (its list of HTTP methods, upper case); anything else closes the connection. */
const PARSER_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'SEARCH', 'PURGE', 'REPORT', 'COPY', 'MOVE'])

let service: Service
beforeAll(async () => {
  service = await startService()
})
afterAll(async () => {
  await service?.stop()
})

/** Sends raw bytes on a new connection and collects everything until the server closes it. */
function exchange(port: number, payload: string, waitMs = 5000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, LOOPBACK)
    let out = ''
    const timer = setTimeout(() => {
      socket.destroy()
      resolve(`${out}[timeout]`)
    }, waitMs)
    socket.on('data', (d) => {
      out += d.toString('latin1')
    })
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(out)
    })
    socket.on('error', () => {})
    socket.write(Buffer.from(payload, 'latin1'))
  })
}

const sumRequests = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('sattrack_http_requests_total{'))
    .reduce((total, l) => total + Number(l.slice(l.lastIndexOf(' ') + 1)), 0)

const method = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('GET', 'HEAD', 'OPTIONS') },
  { weight: 2, arbitrary: fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'PROPFIND', 'MKCOL', 'PURGE') },
  { weight: 2, arbitrary: fc.constantFrom('get', 'Get', 'FOO', 'BREW', 'X', 'options') },
)
const segment = fc.oneof(
  fc.constantFrom('api', 'v1', 'satellites', 'service', 'status', 'healthcheck', '25544', 'xyz', 'a', '', '.', '..', 'metrics', 'openapi', 'app'),
  fc.string({ unit: fc.constantFrom(...'abz09-_.~!$&\'()*+,;=:@%'.split('')), maxLength: 6 }),
)
const target = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('/api/v1/service/healthcheck', '/api/v1/service/status', '/api/v1/satellites/25544', '/metrics', '/', '/nosuch', '/app/') },
  { weight: 3, arbitrary: fc.tuple(fc.array(segment, { minLength: 1, maxLength: 3 }), fc.constantFrom('/api/v1/service/status', '/api/v1/satellites/25544', '/metrics')).map(([p, k]) => `/${p.join('/')}${k}`) },
  { weight: 2, arbitrary: fc.array(segment, { maxLength: 5 }).map((p) => `/${p.join('/')}`) },
  { weight: 1, arbitrary: fc.constantFrom('*', 'xyz', 'http://other.example/api/v1/service/status', '//x/y', '/?', '/a?b=%ZZ&&') },
)
const hostChar = fc.constantFrom(...'abcxyz019.-_~%!$&\'()*+,;=:[]@/?# \\'.split(''))
const host = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 3, arbitrary: fc.constantFrom('', 'x', 'ab', 'abc', 'localhost', 'localhost:3000', '127.0.0.1', '[::1]:80', 'x:0') },
  { weight: 3, arbitrary: fc.constantFrom('a b', 'a@b', 'x#y', 'a/b', 'a?b', 'x:99999', 'x:-1', '[::1', 'h\\x', 'x:80:80') },
  { weight: 2, arbitrary: fc.string({ unit: hostChar, minLength: 1, maxLength: 10 }) },
)
const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0')
const headerLine = fc.oneof(
  fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,12}$/), fc.string({ unit: fc.constantFrom(...' abcXYZ09,;=/*"%:'.split('')), maxLength: 16 })).map(([k, v]) => `${k}: ${v}`),
  fc.constantFrom('Accept-Encoding: br', 'Accept-Encoding: gzip, deflate', 'If-None-Match: *', 'Origin: http://x', 'Access-Control-Request-Method: GET', 'X-Forwarded-For: 1.2.3.4'),
)
const request = fc.record({ method, target, host, version, headers: fc.array(headerLine, { maxLength: 3 }) })

describe('fuzzed request lines and headers against the executable', () => {
  test(`${RUNS} requests: below 500, JSON error bodies, every app answer counted in /metrics`, async () => {
    const metricsBefore = sumRequests(await (await fetch(`${service.url}/metrics`)).text())
    const samples = fc.sample(request, { numRuns: RUNS, seed: SEED })
    let appAnswers = 0
    const refusedByParser: string[] = []
    const failures: string[] = []
    // A few at a time: concurrency on the service, but no flood.
    for (let i = 0; i < samples.length; i += 8) {
      await Promise.all(
        samples.slice(i, i + 8).map(async (r) => {
          const lines = [`${r.method} ${r.target} ${r.version}`]
          if (r.host !== null) lines.push(`Host: ${r.host}`)
          lines.push(...r.headers, 'Connection: close')
          const raw = `${lines.join('\r\n')}\r\n\r\n`
          const answer = await exchange(service.port, raw)
          const what = `${JSON.stringify(raw)} → ${JSON.stringify(answer.slice(0, 200))}`
          if (answer === '') {
            // Only Bun's parser closes without a word, for a method it does not know.
            if (PARSER_METHODS.has(r.method)) failures.push(`closed without an answer: ${what}`)
            else refusedByParser.push(r.method)
            return
          }
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1])
          const headEnd = answer.indexOf('\r\n\r\n')
          const head = answer.slice(0, headEnd).toLowerCase()
          const body = answer.slice(headEnd + 4)
          if (!(status >= 100) || (status >= 500 && status !== 501)) failures.push(`status ${status}: ${what}`)
          if (head.includes('text/html') && status >= 400) failures.push(`HTML error page: ${what}`)
          // Bun's own refusals (malformed target or version) carry no body and none of the app's headers.
          const fromApp = head.includes('x-content-type-options: nosniff')
          if (!fromApp) {
            if (body !== '' || status < 400) failures.push(`an answer neither from the app nor a bare refusal: ${what}`)
            return
          }
          appAnswers++
          if (status >= 400 && r.method.toUpperCase() !== 'HEAD') {
            try {
              const json = JSON.parse(body)
              if (json.statusCode !== status || typeof json.message !== 'string') failures.push(`malformed error body: ${what}`)
            } catch {
              failures.push(`error without the JSON body: ${what}`)
            }
          }
        }),
      )
    }
    expect(failures).toEqual([])
    // Every answer the app gave is counted (the first scrape too); counting follows the answer, so allow it a moment.
    let counted = 0
    for (let i = 0; i < 50; i++) {
      counted = sumRequests(await (await fetch(`${service.url}/metrics`)).text()) - metricsBefore
      if (counted === appAnswers + 1 + i) break
      await Bun.sleep(50)
      counted = -1
    }
    expect(counted).not.toBe(-1)
    expect(appAnswers).toBeGreaterThan(RUNS / 2)
    expect(service.stderr()).toBe('')
    expect(service.proc.exitCode).toBeNull()
    console.log(`edge fuzz: ${samples.length} requests, ${appAnswers} answered by the app, ${refusedByParser.length} closed by Bun's parser (methods ${[...new Set(refusedByParser)].join(', ')})`)
  })
})
