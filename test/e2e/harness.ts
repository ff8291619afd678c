/**
 * End-to-end harness: runs the compiled executable (dist/sattrack) as a child
 * process on a free loopback port and talks to it over real HTTP. `make test`
 * builds the executable first; these helpers only check that it is there.
 * Nothing here reaches any host other than 127.0.0.1 (and ::1).
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { HEAP_OPTIONS } from '../../src/io/memory.ts'

export const ROOT = resolve(import.meta.dir, '../..')
export const EXECUTABLE = join(ROOT, 'dist/sattrack')
export const LOOPBACK = '127.0.0.1'
/** How long the service may take to answer its healthcheck (a bound, not a speed test). */
export const STARTUP_LIMIT_MS = 5_000

/** Debian's Chromium, driven by playwright-core (never a downloaded browser). */
export const CHROMIUM = '/usr/bin/chromium'
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // A safety net, not the check: any non-loopback request goes to a proxy
  // that is not there (port 9, discard) and fails on this machine instead of
  // reaching the internet. Chromium never proxies loopback, so the service
  // is reached directly; the request is still recorded and the tests fail.
  '--proxy-server=http://127.0.0.1:9',
]

/** Throws with the package to install when Chromium is missing. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install the Debian package chromium (make deps-test)`)
}

/** Fails with a message that says what to do when the executable has not been built. */
export function requireExecutable(): string {
  if (!existsSync(EXECUTABLE) || !statSync(EXECUTABLE).isFile()) {
    throw new Error(`${EXECUTABLE} does not exist: run \`make build\` (or \`make test\`, which builds it) first`)
  }
  if ((statSync(EXECUTABLE).mode & 0o111) === 0) throw new Error(`${EXECUTABLE} is not executable`)
  return EXECUTABLE
}

/** A port that was free a moment ago: bind port 0 on loopback, read it, release it. */
export async function freePort(host: string = LOOPBACK): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, host, () => {
      const address = server.address()
      if (address === null || typeof address === 'string') return reject(new Error('no port from the OS'))
      server.close(() => resolvePort(address.port))
    })
  })
}

/**
 * The environment for a child: ours without anything that configures the
 * service (PORT, HOST, SATTRACK_*, XDG_DATA_HOME, the engine's BUN_JSC_*, and
 * every heap option it sets for itself: MIMALLOC_PURGE_DELAY too), plus `extra`.
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k === 'PORT' || k === 'HOST' || k === 'XDG_DATA_HOME' || k.startsWith('SATTRACK_') || k.startsWith('BUN_JSC_') || k in HEAP_OPTIONS) continue
    env[k] = v
  }
  return { ...env, ...extra }
}

/**
 * An empty XDG data home for one child, so a catalogue cached in the user's
 * data dir (~/.local/share/sattrack) is neither read nor written.
 */
function isolated(env: Record<string, string>): { env: Record<string, string>; cleanup: () => void } {
  if (env.XDG_DATA_HOME) return { env, cleanup: () => {} }
  const dir = mkdtempSync(join(tmpdir(), 'sattrack-e2e-data-'))
  return { env: { ...env, XDG_DATA_HOME: dir }, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Collects a child's output stream as text while it runs. */
function collect(stream: ReadableStream<Uint8Array>): { text: () => string; done: Promise<void> } {
  let text = ''
  const decoder = new TextDecoder()
  const done = (async () => {
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true })
    text += decoder.decode()
  })()
  return { text: () => text, done }
}

export interface RunResult {
  exitCode: number | null
  signal: string | number | null
  stdout: string
  stderr: string
}

/** Runs the executable to completion (killed after `timeoutMs`, so a run that starts serving fails its test). */
export async function runToExit(args: string[], env = childEnv(), timeoutMs = 10_000): Promise<RunResult> {
  const data = isolated(env)
  const proc = Bun.spawn([requireExecutable(), ...args], { env: data.env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const out = collect(proc.stdout)
  const err = collect(proc.stderr)
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
  await proc.exited
  clearTimeout(timer)
  await Promise.all([out.done, err.done])
  data.cleanup()
  return { exitCode: proc.exitCode, signal: proc.signalCode, stdout: out.text(), stderr: err.text() }
}

export interface Service {
  /** `http://127.0.0.1:PORT` (or `http://[::1]:PORT`) */
  url: string
  port: number
  /** Milliseconds from spawn to the first 200 from the healthcheck. */
  startupMs: number
  proc: ReturnType<typeof Bun.spawn>
  stdout: () => string
  stderr: () => string
  /** Sends SIGTERM, waits (SIGKILL after 5 s) and gives the exit code (null when killed by a signal). */
  stop: () => Promise<number | null>
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/api/v1/service/healthcheck`, { signal: AbortSignal.timeout(1_000) })
    await response.arrayBuffer()
    return response.status === 200
  } catch {
    return false
  }
}

/**
 * Starts the executable and waits until its healthcheck answers. `listen`
 * says how it learns its address: flags (default, on a fresh free port) or
 * `env` (PORT and HOST set in the environment). A port taken between
 * choosing it and the child binding it gives another try.
 */
export async function startService(
  options: { args?: string[]; env?: Record<string, string>; listen?: 'flags' | 'env'; host?: string } = {},
): Promise<Service> {
  const executable = requireExecutable()
  let lastFailure = ''
  for (let attempt = 0; attempt < 3; attempt++) {
    const host = options.host ?? LOOPBACK
    const port = await freePort(host)
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
    const listen = options.listen ?? 'flags'
    const args = [...(listen === 'flags' ? ['--host', host, '--port', String(port)] : []), ...(options.args ?? [])]
    const data = isolated(childEnv({ ...(listen === 'env' ? { PORT: String(port), HOST: host } : {}), ...options.env }))
    const started = performance.now()
    const proc = Bun.spawn([executable, ...args], { env: data.env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
    const out = collect(proc.stdout)
    const err = collect(proc.stderr)
    let exited = false
    void proc.exited.then(() => {
      exited = true
    })
    while (!exited && performance.now() - started < STARTUP_LIMIT_MS) {
      if (await healthy(url)) {
        const startupMs = performance.now() - started
        const stop = async () => {
          if (!exited) proc.kill('SIGTERM')
          const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000)
          await proc.exited
          clearTimeout(timer)
          await Promise.all([out.done, err.done])
          data.cleanup()
          return proc.signalCode ? null : proc.exitCode
        }
        return { url, port, startupMs, proc, stdout: out.text, stderr: err.text, stop }
      }
      await sleep(20)
    }
    if (!exited) proc.kill('SIGKILL')
    await proc.exited
    await Promise.all([out.done, err.done])
    data.cleanup()
    lastFailure = `exit ${proc.exitCode ?? proc.signalCode}; stderr: ${err.text().trim() || '(empty)'}; stdout: ${out.text().trim().slice(-500) || '(empty)'}`
    // Exit code 1 is "cannot listen" (the port was taken meanwhile): try another one.
    if (proc.exitCode !== 1) break
  }
  throw new Error(`${executable} ${(options.args ?? []).join(' ')} did not answer its healthcheck within ${STARTUP_LIMIT_MS} ms (${lastFailure})`)
}

export interface Reply {
  status: number
  headers: Headers
  text: string
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: any
}

/** Every error body seen by `call`, to check afterwards that none leaks internals. */
export const errorBodies: { request: string; status: number; text: string }[] = []

/** One HTTP request to the service; records 4xx/5xx bodies in `errorBodies`. */
export async function call(base: string, path: string, init: RequestInit = {}): Promise<Reply> {
  const response = await fetch(`${base}${path}`, { redirect: 'manual', ...init })
  const text = await response.text()
  let json: any
  try {
    json = text === '' ? undefined : JSON.parse(text)
  } catch {
    json = undefined
  }
  if (response.status >= 400) errorBodies.push({ request: `${init.method ?? 'GET'} ${path}`, status: response.status, text })
  return { status: response.status, headers: response.headers, text, json }
}

/** `application/json; charset=utf-8` and `application/json;charset=utf-8` are the same media type. */
export function mediaType(headers: Headers): string {
  return (headers.get('content-type') ?? '').toLowerCase().replace(/\s*;\s*/g, '; ').trim()
}

/** ISO 8601 UTC with milliseconds, as docs/contract.md requires for every timestamp. */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/**
 * Load for a stop that must lose nothing (stop.test.ts, workers.test.ts): keep-alive clients sending
 * one request after another, counting what is answered and what is lost.
 */
export interface Outcome {
  answered: number
  /** Answers that carried Connection: close. */
  closing: number
  /** Requests sent on a connection already answered before, that got a reset or an end with no answer. */
  lost: string[]
  /** Requests on a fresh connection that was refused or reset before any answer (never taken by the service). */
  notTaken: number
}

/** `clients` keep-alive clients, each sending `path` again as soon as it is answered; reconnecting after Connection: close. */
export function keepAliveLoad(port: number, clients: number, path: string) {
  const outcome: Outcome = { answered: 0, closing: 0, lost: [], notTaken: 0 }
  let stopping = false
  const client = (): Promise<void> =>
    new Promise((resolve) => {
      const socket = connect(port, LOOPBACK)
      let buffer = ''
      let outstanding = false
      let answeredHere = 0
      const send = () => {
        outstanding = true
        socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`)
      }
      const fail = (why: string) => {
        if (!outstanding) return
        outstanding = false
        if (answeredHere === 0) outcome.notTaken++
        else outcome.lost.push(why)
      }
      socket.on('connect', send)
      socket.on('data', (chunk) => {
        buffer += chunk.toString('latin1')
        for (;;) {
          const headEnd = buffer.indexOf('\r\n\r\n')
          if (headEnd < 0) return
          const head = buffer.slice(0, headEnd)
          const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0)
          if (buffer.length < headEnd + 4 + length) return
          buffer = buffer.slice(headEnd + 4 + length)
          outstanding = false
          answeredHere++
          outcome.answered++
          if (/\r\nconnection: close/i.test(head)) {
            outcome.closing++
            socket.end()
            if (!stopping) void client().then(resolve)
            else resolve()
            return
          }
          if (stopping) {
            socket.end()
            return resolve()
          }
          send()
        }
      })
      socket.on('error', (error: NodeJS.ErrnoException) => fail(String(error.code)))
      socket.on('close', () => {
        fail('closed with no answer')
        resolve()
      })
    })
  const all = Promise.all(Array.from({ length: clients }, client))
  return {
    outcome,
    finish: async () => {
      stopping = true
      await Promise.race([all, Bun.sleep(5_000)])
    },
  }
}
