/**
 * Running many: two instances of dist/sattrack behind Debian's nginx on
 * loopback. Both answer identically for the same `time`; nginx spreads the
 * load over both; one instance stopped in the middle of a load run (SIGTERM,
 * then SIGKILL for a crash) costs no request beyond those in flight on it,
 * because nginx retries idempotent GETs on the other (`proxy_next_upstream`).
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { missingMessage, NGINX, which } from '../helpers/tools.ts'
import { freePort, LOOPBACK, type Service, startService } from './harness.ts'

setDefaultTimeout(60_000)

const AT = '2026-05-30T12:00:00Z'
const PATHS = [
  `/api/v1/satellites/25544/geoposition?time=${AT}`,
  `/api/v1/satellites/iss?time=${AT}`,
  `/api/v1/satellites/nearby?latitude=51.5&longitude=-0.13&time=2026-05-30T22:00:00Z`,
  `/api/v1/satellites/nearby?latitude=-33.87&longitude=151.21&mode=extended&visible-only=true&time=${AT}`,
  '/api/v1/satellites/25544',
  '/api/v1/satellites/43013/geoposition?time=2026-06-01T00:00:00.000Z',
]
/** How long one load run lasts, and when in it an instance is stopped. */
const LOAD_MS = 3_000
const STOP_AT_MS = 1_000
const CONCURRENCY = 8

interface Nginx {
  url: string
  stop: () => Promise<void>
  errorLog: () => string
}

async function startNginx(upstreams: Service[]): Promise<Nginx> {
  const nginx = which(NGINX)!
  const dir = mkdtempSync(join(tmpdir(), 'sattrack-nginx-'))
  // Workers may run as another user (nobody) when the test runs as root: let them in.
  chmodSync(dir, 0o755)
  for (const sub of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub), { mode: 0o777 })
  const port = await freePort()
  const conf = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream sattrack {
${upstreams.map((s) => `    server ${LOOPBACK}:${s.port} max_fails=1 fail_timeout=5s;`).join('\n')}
  }
  server {
    listen ${LOOPBACK}:${port};
    location / {
      proxy_pass http://sattrack;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      # GETs are idempotent: a connection refused or reset before an answer goes to the next instance.
      proxy_next_upstream error timeout http_502 http_503 http_504;
      proxy_next_upstream_tries 2;
      proxy_connect_timeout 1s;
      proxy_read_timeout 10s;
      proxy_max_temp_file_size 0;
    }
  }
}
`
  writeFileSync(join(dir, 'nginx.conf'), conf)
  const proc = Bun.spawn([nginx, '-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log'), '-g', 'daemon off;'], { stdout: 'pipe', stderr: 'pipe' })
  const url = `http://${LOOPBACK}:${port}`
  const errorLog = () => {
    try {
      return readFileSync(join(dir, 'error.log'), 'utf8')
    } catch {
      return ''
    }
  }
  for (let i = 0; i < 100; i++) {
    if (proc.exitCode !== null) break
    try {
      if ((await fetch(`${url}/api/v1/service/healthcheck`)).status === 200) {
        return {
          url,
          errorLog,
          stop: async () => {
            proc.kill('SIGQUIT')
            const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000)
            await proc.exited
            clearTimeout(timer)
            rmSync(dir, { recursive: true, force: true })
          },
        }
      }
    } catch {}
    await Bun.sleep(50)
  }
  proc.kill('SIGKILL')
  throw new Error(`nginx did not start: ${await new Response(proc.stderr).text()} ${errorLog()}`)
}

interface LoadResult {
  ok: number
  failures: string[]
}

/** CONCURRENCY clients looping over PATHS through `url` for LOAD_MS; `during` runs STOP_AT_MS in. */
async function load(url: string, expected: Map<string, string>, during: () => Promise<void>): Promise<LoadResult> {
  const result: LoadResult = { ok: 0, failures: [] }
  const until = performance.now() + LOAD_MS
  const client = async (c: number) => {
    for (let i = c; performance.now() < until; i++) {
      const path = PATHS[i % PATHS.length]!
      try {
        const response = await fetch(`${url}${path}`)
        const text = await response.text()
        if (response.status === 200 && text === expected.get(path)) result.ok++
        else result.failures.push(`${response.status} ${path} ${text.slice(0, 100)}`)
      } catch (error) {
        result.failures.push(`${String(error)} ${path}`)
      }
    }
  }
  const clients = Promise.all(Array.from({ length: CONCURRENCY }, (_, c) => client(c)))
  await Bun.sleep(STOP_AT_MS)
  await during()
  await clients
  return result
}

const requestLines = (s: Service) =>
  s
    .stdout()
    .split('\n')
    .filter((l) => l.includes('"msg":"request"') && !l.includes('healthcheck')).length

const nginxMissing = missingMessage([NGINX])
const testNginx = nginxMissing === null || process.env.CI ? test : test.skip
if (nginxMissing && !process.env.CI) console.warn(`skipping: ${nginxMissing}`)

describe('two instances behind nginx', () => {
  const cleanups: (() => Promise<unknown>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {})
  })

  async function pair(): Promise<[Service, Service]> {
    const [a, b] = await Promise.all([startService({ args: ['--access-log'] }), startService({ args: ['--access-log'] })])
    cleanups.push(() => a.stop(), () => b.stop())
    return [a, b]
  }

  /** Each path's answer, asked of both instances directly: they must be identical. */
  async function sameAnswers(a: Service, b: Service): Promise<Map<string, string>> {
    const answers = new Map<string, string>()
    for (const path of PATHS) {
      const [ra, rb] = await Promise.all([fetch(`${a.url}${path}`), fetch(`${b.url}${path}`)])
      const [ta, tb] = await Promise.all([ra.text(), rb.text()])
      expect([path, ra.status]).toEqual([path, 200])
      expect([path, ta]).toEqual([path, tb])
      answers.set(path, ta)
    }
    const [la, lb] = await Promise.all([fetch(`${a.url}/api/v1/satellites`), fetch(`${b.url}/api/v1/satellites`)])
    expect(la.headers.get('etag')).toBe(lb.headers.get('etag'))
    expect(await la.text()).toBe(await lb.text())
    return answers
  }

  testNginx('both answer identically for the same time, and nginx spreads requests over both', async () => {
    if (nginxMissing) throw new Error(nginxMissing)
    const [a, b] = await pair()
    await sameAnswers(a, b)
    const nginx = await startNginx([a, b])
    cleanups.push(nginx.stop)
    const before = [requestLines(a), requestLines(b)]
    for (let i = 0; i < 20; i++) expect((await fetch(`${nginx.url}${PATHS[0]}`)).status).toBe(200)
    await Bun.sleep(100)
    expect(requestLines(a) - before[0]!).toBeGreaterThan(0)
    expect(requestLines(b) - before[1]!).toBeGreaterThan(0)
  })

  testNginx('SIGTERM to one instance under load: not one request fails', async () => {
    if (nginxMissing) throw new Error(nginxMissing)
    const [a, b] = await pair()
    const expected = await sameAnswers(a, b)
    const nginx = await startNginx([a, b])
    cleanups.push(nginx.stop)
    let exitCode: number | null = null
    let servedByBAfterStop = 0
    const result = await load(nginx.url, expected, async () => {
      const bBefore = requestLines(b)
      a.proc.kill('SIGTERM')
      exitCode = await a.proc.exited
      await Bun.sleep(500)
      servedByBAfterStop = requestLines(b) - bBefore
    })
    expect(result.failures).toEqual([])
    expect(result.ok).toBeGreaterThan(50)
    expect(exitCode).toBe(0 as unknown as null)
    expect(servedByBAfterStop).toBeGreaterThan(0)
  })

  testNginx('SIGKILL to one instance under load: failures at most the requests in flight on it', async () => {
    if (nginxMissing) throw new Error(nginxMissing)
    const [a, b] = await pair()
    const expected = await sameAnswers(a, b)
    const nginx = await startNginx([a, b])
    cleanups.push(nginx.stop)
    const result = await load(nginx.url, expected, async () => {
      a.proc.kill('SIGKILL')
      await a.proc.exited
    })
    // At most CONCURRENCY requests can be in flight anywhere; nginx retries those that had no answer yet.
    expect(result.failures.length).toBeLessThanOrEqual(CONCURRENCY)
    expect(result.ok).toBeGreaterThan(50)
    if (result.failures.length > 0) console.log(`failed with the killed instance: ${result.failures.join('; ')}`)
  })
})
