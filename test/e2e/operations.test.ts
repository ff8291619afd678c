/**
 * The executable (dist/sattrack) as an operator runs it: every option by flag
 * and by variable (the command line itself: test/e2e/executable.test.ts), JSON and pretty logs, the access log,
 * /metrics read by promtool, limits over real HTTP (414, 431, 400, 429, bodies
 * on GET), security headers and the docs page's CSP in Chromium, garbage on the
 * socket, and SIGTERM/SIGINT with requests in flight.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MAX_QUERY_PARAMS, MAX_URL_BYTES } from '../../src/http/plugins/limits.ts'
import { HTML_CONTENT_SECURITY_POLICY } from '../../src/http/plugins/security-headers.ts'
import { PROMTOOL, testWith } from '../helpers/tools.ts'
import { CHROMIUM, CHROMIUM_ARGS, call, freePort, LOOPBACK, requireChromium, type Service, startService } from './harness.ts'

setDefaultTimeout(30_000)

const HEALTH = '/api/v1/service/healthcheck'
const ISS_AT = '/api/v1/satellites/iss?time=2026-05-30T12:00:00Z'

/** JSON log lines of a run; throws on a line that is not a JSON object with time, level and msg. */
function jsonLines(stdout: string): Record<string, any>[] {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      const entry = JSON.parse(line)
      expect(Object.keys(entry).slice(0, 3)).toEqual(['time', 'level', 'msg'])
      expect(entry.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      return entry
    })
}

/** Sends raw bytes on a new connection and collects everything until the server closes it (or `waitMs`). */
function rawExchange(port: number, payload: string | Uint8Array, waitMs = 3000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, LOOPBACK)
    let out = ''
    const done = () => {
      socket.destroy()
      resolve(out)
    }
    const timer = setTimeout(done, waitMs)
    socket.on('data', (d) => {
      out += d.toString('latin1')
    })
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(out)
    })
    socket.on('error', () => {})
    socket.write(payload)
  })
}

/** HTTP/1.1 responses in a byte stream (Content-Length framed), as [status, body]. */
function parseResponses(stream: string): [number, string][] {
  const out: [number, string][] = []
  let rest = stream
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n')
    if (headEnd < 0) break
    const head = rest.slice(0, headEnd)
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0)
    out.push([Number(head.slice(9, 12)), rest.slice(headEnd + 4, headEnd + 4 + length)])
    rest = rest.slice(headEnd + 4 + length)
  }
  return out
}

async function promtoolCheck(text: string): Promise<{ exitCode: number; output: string }> {
  const proc = Bun.spawn(['promtool', 'check', 'metrics'], { stdin: new TextEncoder().encode(text), stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  return { exitCode: await proc.exited, output: (out + err).trim() }
}

const sample = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('every option, by flag and by variable', () => {
  let dataDir: string
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sattrack-e2e-options-'))
  })
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  async function exercise(service: Service) {
    const iss = await call(service.url, ISS_AT, { headers: { 'x-forwarded-for': '192.0.2.9' } })
    expect(iss.status).toBe(200)
    expect(iss.headers.get('access-control-allow-origin')).toBe('https://ops.example.org')
    // --rate-limit 2/min with --trust-proxy: this client has one request left, another client has two.
    expect((await call(service.url, ISS_AT, { headers: { 'x-forwarded-for': '192.0.2.9' } })).status).toBe(200)
    const refused = await call(service.url, ISS_AT, { headers: { 'x-forwarded-for': '192.0.2.9' } })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect((await call(service.url, ISS_AT, { headers: { 'x-forwarded-for': '192.0.2.10' } })).status).toBe(200)
    // --metrics=false
    expect((await call(service.url, '/metrics')).status).toBe(404)
    // The refresh from a closed port fails at once and is retried after --refresh-interval.
    await Bun.sleep(300)
    const status = (await call(service.url, '/api/v1/service/status')).json
    expect(status.refresh).toMatchObject({ enabled: true, format: 'tle', groups: ['stations'] })
    expect(status.refresh.lastError).toBeString()
    const code = await service.stop()
    expect(code).toBe(0)
    const out = service.stdout()
    // --log-format pretty, --log-level debug (the stopping lines are info), --access-log.
    const lines = out.trim().split('\n')
    for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z (DEBUG|INFO |WARN |ERROR) \S/)
    expect(out).toMatch(/INFO  request method=GET path=\/api\/v1\/satellites\/iss route=\/api\/v1\/satellites\/iss status=200 durationMs=/)
    // Refused before routing: no route pattern.
    expect(out).toMatch(/INFO  request method=GET path=\/api\/v1\/satellites\/iss route=unmatched status=429 durationMs=/)
    expect(out).not.toContain('2026-05-30T12:00:00Z')
    expect(out).toContain(`INFO  listening url=http://${LOOPBACK}:${service.port}`)
  }

  test('flags', async () => {
    const closed = await freePort()
    const service = await startService({
      args: [
        '--log-level', 'debug', '--log-format', 'pretty', '--access-log', '--metrics=false', '--rate-limit', '2/min', '--trust-proxy',
        '--shutdown-timeout', '3s', '--cors-origin', 'https://ops.example.org', '--data-dir', dataDir,
        '--refresh-url', `http://${LOOPBACK}:${closed}/gp.php`, '--refresh-interval', '1h', '--refresh-groups', 'stations',
        '--refresh-format', 'tle', '--refresh-timeout', '1s',
      ],
    })
    await exercise(service)
  })

  test('SATTRACK_* variables (PORT and HOST too)', async () => {
    const closed = await freePort()
    const service = await startService({
      listen: 'env',
      env: {
        SATTRACK_LOG_LEVEL: 'debug', SATTRACK_LOG_FORMAT: 'pretty', SATTRACK_ACCESS_LOG: 'true', SATTRACK_METRICS: 'false',
        SATTRACK_RATE_LIMIT: '2/min', SATTRACK_TRUST_PROXY: 'true', SATTRACK_SHUTDOWN_TIMEOUT: '3s',
        SATTRACK_CORS_ORIGIN: 'https://ops.example.org', SATTRACK_DATA_DIR: dataDir,
        SATTRACK_REFRESH_URL: `http://${LOOPBACK}:${closed}/gp.php`, SATTRACK_REFRESH_INTERVAL: '1h',
        SATTRACK_REFRESH_GROUPS: 'stations', SATTRACK_REFRESH_FORMAT: 'tle', SATTRACK_REFRESH_TIMEOUT: '1s',
      },
    })
    await exercise(service)
  })

  test('--rate-limit without --trust-proxy: the connection address is the client; X-Forwarded-For changes nothing', async () => {
    const service = await startService({ args: ['--rate-limit', '3/min'] })
    for (let i = 0; i < 3; i++) expect((await call(service.url, ISS_AT, { headers: { 'x-forwarded-for': `192.0.2.${i}` } })).status).toBe(200)
    const refused = await call(service.url, ISS_AT, { headers: { 'x-forwarded-for': '192.0.2.99' } })
    expect(refused.status).toBe(429)
    expect(refused.json).toEqual({ statusCode: 429, message: expect.stringContaining('at most 3 requests per minute per client') })
    expect(refused.headers.get('retry-after')).toMatch(/^(19|20)$/)
    expect((await call(service.url, HEALTH)).status).toBe(200)
    expect(await service.stop()).toBe(0)
  })

  test('flags win over variables', async () => {
    const service = await startService({ args: ['--log-format', 'json'], env: { SATTRACK_LOG_FORMAT: 'pretty', SATTRACK_METRICS: 'false' } })
    expect((await call(service.url, '/metrics')).status).toBe(404)
    expect(await service.stop()).toBe(0)
    expect(jsonLines(service.stdout()).length).toBeGreaterThan(0)
  })
})

describe('a running service (defaults)', () => {
  let service: Service
  beforeAll(async () => {
    service = await startService({ args: ['--access-log'] })
  })
  afterAll(async () => {
    await service?.stop()
  })

  test('logs are JSON objects, one per line, on stdout; nothing on stderr', async () => {
    await call(service.url, ISS_AT)
    // The line is written once the answer is out: give it a moment.
    const isAccessLine = (e: Record<string, any>) => e.msg === 'request' && e.path === '/api/v1/satellites/iss'
    for (let i = 0; i < 100 && !jsonLines(service.stdout()).some(isAccessLine); i++) await Bun.sleep(20)
    const entries = jsonLines(service.stdout())
    expect(entries.map((e) => e.msg)).toContain('listening')
    const access = entries.find(isAccessLine)
    expect(access).toMatchObject({ level: 'info', method: 'GET', route: '/api/v1/satellites/iss', status: 200 })
    expect(JSON.stringify(access)).not.toContain('time=')
    expect(service.stderr()).toBe('')
  })

  test('the access log never writes a place or a key from the path, whatever the Host header (Bun hands a request with one it cannot read over without an authority)', async () => {
    const secret = [
      ['/rest/v1/satellite/radiopasses/25544/41.702/-76.014/0/1/40&apiKey=SECRETKEY3', '/rest/v1/satellite/'],
      ['/rest/v1/satellite/tle/25544&apiKey=SECRETKEY4', '/rest/v1/satellite/'],
      ['/v1/coordinates/37.79,-122.39', '/v1/coordinates/'],
    ] as const
    for (const host of ['a b', 'a@b', 'localhost']) {
      for (const [path] of secret) {
        const reply = await rawExchange(service.port, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
        expect(reply).toMatch(/^HTTP\/1\.1 [24]\d\d /)
      }
    }
    const logged = () => jsonLines(service.stdout()).filter((e) => e.msg === 'request' && secret.some(([, prefix]) => String(e.path).startsWith(prefix)))
    for (let i = 0; i < 100 && logged().length < 9; i++) await Bun.sleep(20)
    expect(logged()).toHaveLength(9)
    const text = service.stdout()
    for (const leak of ['SECRETKEY', '41.702', '-76.014', '37.79', '-122.39']) expect(text).not.toContain(leak)
  })

  testWith([PROMTOOL])('/metrics: promtool accepts it; requests by route pattern and status', async () => {
    await call(service.url, '/api/v1/satellites/25544')
    await call(service.url, '/api/v1/satellites/99999999')
    const reply = await call(service.url, '/metrics')
    expect(reply.status).toBe(200)
    expect(reply.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    const { exitCode, output } = await promtoolCheck(reply.text)
    expect(output).toBe('')
    expect(exitCode).toBe(0)
    expect(sample(reply.text, 'sattrack_http_requests_total{method="GET",route="/api/v1/satellites/:noradId",status="404"}')).toBeGreaterThanOrEqual(1)
    expect(sample(reply.text, 'sattrack_catalog_satellites')).toBeGreaterThan(1000)
    expect(sample(reply.text, 'process_resident_memory_bytes')).toBeGreaterThan(20_000_000)
    expect(reply.text).not.toContain('/api/v1/satellites/99999999')
  })

  test(`URL over ${MAX_URL_BYTES} bytes: 414 with the error body; over ~16 KB Bun itself answers 431 without one`, async () => {
    const fits = await call(service.url, `${ISS_AT}&pad=${'x'.repeat(MAX_URL_BYTES - ISS_AT.length - 5)}`)
    expect(fits.status).toBe(200)
    const long = await call(service.url, `${ISS_AT}&pad=${'x'.repeat(9000)}`)
    expect(long.status).toBe(414)
    expect(long.json).toEqual({ statusCode: 414, message: expect.stringContaining(String(MAX_URL_BYTES)) })
    const tooLong = await rawExchange(service.port, `GET /api/v1/satellites/iss?pad=${'x'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
    expect(tooLong).toStartWith('HTTP/1.1 431 ')
  })

  test(`more than ${MAX_QUERY_PARAMS} query parameters: 400`, async () => {
    const params = Array.from({ length: MAX_QUERY_PARAMS + 1 }, (_, i) => `k${i}=1`).join('&')
    const reply = await call(service.url, `/api/v1/satellites/iss?${params}`)
    expect(reply.status).toBe(400)
    expect(reply.json.statusCode).toBe(400)
  })

  test('a body on GET is ignored (Content-Length or chunked), and the connection stays usable', async () => {
    const request = (body: string, framing: string) =>
      `GET ${HEALTH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${framing}\r\n\r\n${body}`
    const broken = '{"not json'
    const chunked = `${broken.length.toString(16)}\r\n${broken}\r\n0\r\n\r\n`
    const stream = await rawExchange(
      service.port,
      request(broken, `Content-Length: ${broken.length}`) + request(chunked, 'Transfer-Encoding: chunked') + `GET ${ISS_AT} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    )
    const responses = parseResponses(stream)
    expect(responses.map(([status]) => status)).toEqual([200, 200, 200])
    expect(JSON.parse(responses[0]![1])).toEqual({ message: 'OK' })
    expect(JSON.parse(responses[2]![1]).data.noradId).toBe(25544)
  })

  test('security headers on JSON, errors and HTML; the CSP on the docs pages', async () => {
    for (const path of [ISS_AT, '/nope', '/openapi/json', '/openapi']) {
      const reply = await call(service.url, path)
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff')
      expect(reply.headers.get('referrer-policy')).toBe('no-referrer')
    }
    for (const path of ['/docs', '/openapi', '/swagger']) {
      expect((await call(service.url, path)).headers.get('content-security-policy')).toBe(HTML_CONTENT_SECURITY_POLICY)
    }
  })

  test('garbage on the socket and hostile URLs: answered or closed, never a 500, never a crash', async () => {
    const garbage = [
      'GARBAGE\r\n\r\n',
      'GET / HTTP/9.9\r\n\r\n',
      `GET /api/v1/satellites/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n`,
      'GET /api/v1/satellites/%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      'GET /api/v1/satellites/iss?time=%E2%82 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      'GET /api/v1/satellites/nearby?latitude=%00&longitude=%FF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      `GET ${HEALTH} HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n`,
      `GET ${HEALTH} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n`,
      `GET ${HEALTH} HTTP/1.1\r\n${'X-A: b\r\n'.repeat(3000)}\r\n`,
      new Uint8Array(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)),
    ]
    const answers = await Promise.all(garbage.map((g) => rawExchange(service.port, g, 1500)))
    for (const answer of answers) expect(answer).not.toMatch(/^HTTP\/1\.1 5\d\d (?!HTTP Version)/)
    expect((await call(service.url, HEALTH)).status).toBe(200)
    expect(service.proc.exitCode).toBeNull()
  })

  test('the docs page runs under its CSP in Chromium with no violation', async () => {
    requireChromium()
    const { chromium } = await import('playwright-core')
    const profile = mkdtempSync(join(tmpdir(), 'sattrack-e2e-csp-'))
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    })
    try {
      const page = context.pages()[0] ?? (await context.newPage())
      const violations: string[] = []
      await page.exposeFunction('reportViolation', (v: string) => violations.push(v))
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (e) =>
          (window as any).reportViolation(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}`),
        )
      })
      const response = await page.goto(`${service.url}/openapi`, { waitUntil: 'load' })
      expect(response?.headers()['content-security-policy']).toBe(HTML_CONTENT_SECURITY_POLICY)
      await page.getByText('Satellites above an observer').first().waitFor({ state: 'visible', timeout: 30_000 })
      await page.waitForTimeout(500)
      // The one refusal allowed: zod (inside the Scalar bundle) probes `Function('')` to decide
      // whether to compile its parsers, and falls back when the CSP refuses; nothing breaks.
      const probe = `script-src eval ${service.url}/openapi/scalar.js`
      expect(violations.filter((v) => v !== probe)).toEqual([])
    } finally {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    }
  }, 90_000)
})

/** Reads from a socket only when asked: a client that takes its time over a large answer. */
function slowReader(port: number, request: string) {
  const socket: Socket = connect(port, LOOPBACK)
  let received = 0
  let head = ''
  socket.pause()
  socket.write(request)
  const readSome = (bytes: number) =>
    new Promise<void>((resolve) => {
      const onData = (d: Buffer) => {
        if (head.length < 4096) head += d.toString('latin1', 0, Math.min(d.length, 4096))
        received += d.length
        if (received >= bytes) {
          socket.pause()
          socket.off('data', onData)
          resolve()
        }
      }
      socket.on('data', onData)
      socket.resume()
    })
  const readToEnd = () =>
    new Promise<void>((resolve) => {
      socket.on('data', (d: Buffer) => {
        received += d.length
      })
      socket.on('close', () => resolve())
      socket.on('end', () => resolve())
      socket.resume()
    })
  return { readSome, readToEnd, received: () => received, head: () => head, destroy: () => socket.destroy() }
}

const exited = (service: Service) => service.proc.exitCode !== null || service.proc.signalCode !== null

describe('SIGTERM and SIGINT', () => {
  test('SIGTERM: no new connections; a large answer in flight is finished; exit 0', async () => {
    const service = await startService()
    const reader = slowReader(service.port, 'GET /api/v1/satellites HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    await reader.readSome(64 * 1024)
    const length = Number(/content-length: (\d+)/i.exec(reader.head())?.[1])
    expect(length).toBeGreaterThan(1_000_000)
    service.proc.kill('SIGTERM')
    await Bun.sleep(500)
    // Still draining: the answer is not finished, so the process waits for it.
    expect(exited(service)).toBe(false)
    await expect(fetch(`${service.url}${HEALTH}`, { keepalive: false } as RequestInit)).rejects.toThrow()
    await reader.readToEnd()
    const headerBytes = reader.head().indexOf('\r\n\r\n') + 4
    expect(reader.received()).toBe(headerBytes + length)
    expect(await service.proc.exited).toBe(0)
    const lines = jsonLines(service.stdout())
    expect(lines.find((l) => l.msg.startsWith('stopping'))).toMatchObject({ signal: 'SIGTERM', inFlight: 1 })
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped' })
  })

  test('--shutdown-timeout: a client that stalls is cut off at the end of the grace period; exit 0', async () => {
    const service = await startService({ args: ['--shutdown-timeout', '1s'] })
    const reader = slowReader(service.port, 'GET /api/v1/satellites HTTP/1.1\r\nHost: x\r\n\r\n')
    await reader.readSome(16 * 1024)
    const started = performance.now()
    service.proc.kill('SIGTERM')
    expect(await service.proc.exited).toBe(0)
    const tookMs = performance.now() - started
    expect(tookMs).toBeGreaterThan(900)
    expect(tookMs).toBeLessThan(5000)
    reader.destroy()
    expect(service.stdout()).toContain('cut off')
  })

  test('SIGTERM under load: every request the service took is answered in full; exit 0 within 10 s', async () => {
    const service = await startService({ args: ['--access-log'] })
    const paths = [
      '/api/v1/satellites/nearby?latitude=51.5&longitude=-0.13&mode=extended&time=2026-05-30T22:00:00Z',
      ISS_AT,
      '/api/v1/satellites/25544/geoposition?time=2026-05-30T12:00:00Z',
      '/api/v1/satellites',
    ]
    const answered = new Map<string, number>()
    let notTaken = 0
    const failures: string[] = []
    let stopAt = Number.POSITIVE_INFINITY
    const worker = async (w: number) => {
      for (let i = 0; performance.now() < stopAt; i++) {
        const path = paths[(w + i) % paths.length]!
        try {
          // A new connection per request: the service takes it (and must answer it in full) or never sees it.
          const response = await fetch(`${service.url}${path}`, { keepalive: false } as RequestInit)
          const body = await response.arrayBuffer()
          if (response.status === 200 && body.byteLength > 0) answered.set(path, (answered.get(path) ?? 0) + 1)
          else failures.push(`${response.status} ${path}`)
        } catch (error) {
          // Refused after the listener closed, or reset while still in the kernel's accept queue at that moment.
          if (/ECONNREFUSED|ECONNRESET|Unable to connect|closed unexpectedly/.test(String(error))) notTaken++
          else failures.push(`${String(error)} ${path}`)
          await Bun.sleep(5)
        }
      }
    }
    const load = Promise.all(Array.from({ length: 12 }, (_, w) => worker(w)))
    const total = () => [...answered.values()].reduce((a, b) => a + b, 0)
    // Under way: a few answers in, requests in flight on every worker.
    for (let i = 0; i < 100 && total() < 20; i++) await Bun.sleep(50)
    const signalled = performance.now()
    service.proc.kill('SIGTERM')
    const code = await service.proc.exited
    const tookMs = performance.now() - signalled
    stopAt = performance.now() + 300
    await load
    expect(failures).toEqual([])
    expect(code).toBe(0)
    expect(tookMs).toBeLessThan(10_000)
    expect(notTaken).toBeGreaterThan(0)
    // What the service says it answered (its access log) is exactly what the clients received in full.
    const logged = new Map<string, number>()
    for (const line of jsonLines(service.stdout())) {
      if (line.msg !== 'request' || line.path === HEALTH) continue
      expect(line.status).toBe(200)
      const path = paths.find((p) => p.split('?')[0] === line.path)!
      logged.set(path, (logged.get(path) ?? 0) + 1)
    }
    expect(total()).toBeGreaterThanOrEqual(20)
    expect(Object.fromEntries(answered)).toEqual(Object.fromEntries(logged))
  })

  test('SIGINT: exit 0 as well', async () => {
    const service = await startService()
    expect((await call(service.url, HEALTH)).status).toBe(200)
    service.proc.kill('SIGINT')
    expect(await service.proc.exited).toBe(0)
    expect(jsonLines(service.stdout()).find((l) => l.msg.startsWith('stopping'))?.signal).toBe('SIGINT')
  })
})
