/**
 * --workers against the compiled executable (dist/sattrack) on loopback: two
 * worker processes behind one port serve one catalogue (the same ETag on every
 * connection, a reload reaching both within a second), /metrics shows both,
 * the rate limit and the stream cap hold for the instance, SIGTERM stops all
 * with nothing lost, a killed worker is replaced and logged, a taken port is
 * refused, and auto follows the cores the process may run on.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { syntheticGroup, tleText } from '../fixtures/synthetic.ts'
import { startMockUpstream } from '../fixtures/upstream.ts'
import { type ServiceProcess, startService as startLogged } from '../fixtures/service-process.ts'
import { childEnv, keepAliveLoad, LOOPBACK, requireExecutable, runToExit, startService } from './harness.ts'

setDefaultTimeout(90_000)

const tmp = mkdtempSync(join(tmpdir(), 'sattrack-e2e-workers-'))
const running: ServiceProcess[] = []
afterAll(async () => {
  for (const s of running) if (s.exitCode() === null) await s.kill()
  rmSync(tmp, { recursive: true, force: true })
})

async function start(args: string[]): Promise<ServiceProcess> {
  const service = await startLogged(['--workers', '2', '--data-dir', join(tmp, `data-${running.length}`), ...args], 30_000, requireExecutable())
  running.push(service)
  return service
}

/** One request on a connection of its own (so that the kernel may hand it to either worker). */
async function fresh(url: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: () => Promise<string> }> {
  const response = await fetch(`${url}${path}`, { headers: { connection: 'close', 'accept-encoding': 'identity', ...headers }, signal: AbortSignal.timeout(10_000) })
  const text = await response.text()
  return { status: response.status, headers: response.headers, text: async () => text }
}

/** The value of each sample of a family on /metrics whose labels contain `having`. */
function samples(text: string, name: string, having: Record<string, string> = {}): { labels: string; value: number }[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .map((line) => {
      const labels = /\{(.*)\}/.exec(line)?.[1] ?? ''
      return { labels, value: Number(line.slice(line.lastIndexOf(' ') + 1)) }
    })
    .filter((s) => Object.entries(having).every(([k, v]) => s.labels.includes(`${k}="${v}"`)))
}

const sum = (xs: { value: number }[]) => xs.reduce((a, b) => a + b.value, 0)

/** The log lines with this message. */
const lines = (s: ServiceProcess, msg: string) => s.logs().filter((l) => l.msg === msg)

/** The arguments of an instance started from a folder of stations (10 sets of 28 May) that refreshes them from `url` every `interval`. */
function refreshing(name: string, url: string, interval: string): string[] {
  const folder = join(tmp, name)
  mkdirSync(folder)
  writeFileSync(join(folder, 'stations.tle'), tleText(syntheticGroup(90000, 10, { epochDay: 148 })))
  return ['--snapshot', folder, '--refresh-url', url, '--refresh-interval', interval, '--refresh-groups', 'stations']
}

describe('two workers', () => {
  test('one port, one catalogue: the same ETag on 200 connections, both workers serving; /metrics shows the instance', async () => {
    const s = await start([])
    const listening = lines(s, 'listening')
    expect(listening).toHaveLength(1)
    expect(listening[0]).toMatchObject({ workers: 2 })
    const workers = lines(s, 'worker listening')
    expect(workers.map((l) => l.worker).sort()).toEqual([1, 2])
    expect(new Set(workers.map((l) => l.pid)).size).toBe(2)
    // The start's details are logged once for the instance, by worker 1.
    expect(lines(s, 'catalogue loaded').map((l) => l.worker)).toEqual([1])

    const etags = new Set<string | null>()
    for (let i = 0; i < 200; i++) etags.add((await fresh(s.url, '/api/v1/satellites?group=stations')).headers.get('etag'))
    expect(etags.size).toBe(1)
    expect([...etags][0]).toMatch(/^"\w+"$/)

    const metrics = await (await fresh(s.url, '/metrics')).text()
    const served = [1, 2].map((w) => sum(samples(metrics, 'sattrack_http_requests_total', { worker: String(w), route: '/api/v1/satellites' })))
    // The kernel spreads connections over both; every request is counted once, by the worker that answered it.
    expect(served[0]).toBeGreaterThan(10)
    expect(served[1]).toBeGreaterThan(10)
    expect(served[0]! + served[1]!).toBe(200)
    expect(samples(metrics, 'sattrack_workers', { state: 'configured' })[0]!.value).toBe(2)
    expect(samples(metrics, 'sattrack_workers', { state: 'listening' })[0]!.value).toBe(2)
    expect(samples(metrics, 'process_resident_memory_bytes').map((x) => x.labels).sort()).toEqual(['worker="1"', 'worker="2"', 'worker="supervisor"'])
    // The catalogue's series once, not per worker.
    expect(samples(metrics, 'sattrack_catalog_satellites')).toEqual([{ labels: '', value: expect.any(Number) }])
    // Any worker answers /metrics for the whole instance.
    for (let i = 0; i < 10; i++) expect(samples(await (await fresh(s.url, '/metrics')).text(), 'process_resident_memory_bytes')).toHaveLength(3)
    expect(await s.stop()).toBe(0)
  })

  test('a killed worker is logged and replaced; the new one serves the same catalogue (started from the files: the supervisor keeps only its version)', async () => {
    const s = await start([])
    const etag = (await fresh(s.url, '/api/v1/satellites?group=weather')).headers.get('etag')
    const victim = lines(s, 'worker listening').find((l) => l.worker === 2)!
    process.kill(victim.pid, 'SIGKILL')
    const died = await s.waitFor('the death logged', async () => lines(s, 'a worker died; starting another in its place')[0], 10_000)
    expect(died).toMatchObject({ level: 'error', worker: 2, pid: victim.pid, signal: 'SIGKILL' })
    const replacement = await s.waitFor('the replacement listening', async () => lines(s, 'worker listening').find((l) => l.worker === 2 && l.pid !== victim.pid), 15_000)
    expect(replacement.catalogue).toBe('from the files')
    const etags = new Set<string | null>()
    for (let i = 0; i < 60; i++) etags.add((await fresh(s.url, '/api/v1/satellites?group=weather')).headers.get('etag'))
    expect([...etags]).toEqual([etag])
    const metrics = await (await fresh(s.url, '/metrics')).text()
    expect(samples(metrics, 'sattrack_workers_replaced_total')[0]!.value).toBe(1)
    expect(samples(metrics, 'sattrack_workers', { state: 'listening' })[0]!.value).toBe(2)
    expect(await s.stop()).toBe(0)
  })

  test('a worker whose event loop stops (SIGSTOP) answers none of the supervisor\'s asks: killed after 20 s, logged, replaced; the port answers again on every connection', async () => {
    const s = await start([])
    const victim = lines(s, 'worker listening').find((l) => l.worker === 1)!
    process.kill(victim.pid, 'SIGSTOP')
    const stopped = Date.now()
    const killed = await s.waitFor('the stuck worker killed', async () => lines(s, 'a worker stopped answering; killing it to start another in its place')[0], 40_000)
    expect(killed).toMatchObject({ level: 'error', worker: 1, pid: victim.pid, unansweredAsks: 10, everyMs: 2000 })
    expect(Date.now() - stopped).toBeGreaterThan(18_000)
    // Its death is logged as the kill's exit reaches the supervisor, a moment later.
    const died = await s.waitFor('the stuck worker\'s death', async () => lines(s, 'a worker died; starting another in its place')[0], 5_000)
    expect(died).toMatchObject({ worker: 1, pid: victim.pid, signal: 'SIGKILL' })
    await s.waitFor('the replacement listening', async () => lines(s, 'worker listening').find((l) => l.worker === 1 && l.pid !== victim.pid), 15_000)
    for (let i = 0; i < 30; i++) expect((await fresh(s.url, '/api/v1/service/healthcheck')).status).toBe(200)
    const metrics = await (await fresh(s.url, '/metrics')).text()
    expect(samples(metrics, 'sattrack_workers_replaced_total')[0]!.value).toBe(1)
    expect(await s.stop()).toBe(0)
  })

  test('SIGHUP reloads --snapshot for every worker: within a second all serve the new catalogue', async () => {
    const folder = join(tmp, 'snapshot')
    mkdirSync(folder)
    writeFileSync(join(folder, 'stations.tle'), tleText(syntheticGroup(90000, 10, { epochDay: 148 })))
    const s = await start(['--snapshot', folder])
    const before = (await fresh(s.url, '/api/v1/satellites')).headers.get('etag')
    writeFileSync(join(folder, 'stations.tle'), tleText(syntheticGroup(90000, 11, { epochDay: 150 })))
    s.signal('SIGHUP')
    const replaced = await s.waitFor('the reload', async () => lines(s, 'reload: catalogue replaced')[0], 15_000)
    expect(replaced.worker).toBeUndefined() // the supervisor's
    const swapped = await s.waitFor('both workers swapped', async () => {
      const l = lines(s, "catalogue replaced by the supervisor's")
      return l.length >= 2 && l
    })
    expect(swapped.map((l) => l.worker).sort()).toEqual([1, 2])
    for (const l of swapped) expect(Date.parse(l.time) - Date.parse(replaced.time)).toBeLessThan(1000)
    const etags = new Set<string | null>()
    for (let i = 0; i < 60; i++) etags.add((await fresh(s.url, '/api/v1/satellites')).headers.get('etag'))
    expect(etags.size).toBe(1)
    const after = [...etags][0]
    expect(after).not.toBe(before)
    expect((await fresh(s.url, '/api/v1/satellites/90010')).status).toBe(200)
    // A worker replaced now takes the supervisor's catalogue (the reloaded one), not the files' at its start.
    const victim = lines(s, 'worker listening').find((l) => l.worker === 1)!
    process.kill(victim.pid, 'SIGKILL')
    const replacement = await s.waitFor('the replacement listening', async () => lines(s, 'worker listening').find((l) => l.worker === 1 && l.pid !== victim.pid), 15_000)
    expect(replacement.catalogue).toBe("the supervisor's")
    for (let i = 0; i < 40; i++) expect((await fresh(s.url, '/api/v1/satellites')).headers.get('etag')).toBe(after!)
    expect(await s.stop()).toBe(0)
  })

  test('one refresh for the instance: the supervisor refreshes, every worker serves the result and shows its status', async () => {
    const upstream = startMockUpstream({ stations: syntheticGroup(90000, 12, { epochDay: 150 }) })
    try {
      const s = await start(refreshing('refresh-snapshot', upstream.url, '1h'))
      const replaced = await s.waitFor('the refresh', async () => lines(s, 'refresh: catalogue replaced')[0], 15_000)
      expect(replaced.worker).toBeUndefined() // the supervisor's
      // One round for the instance: one request upstream, not one per worker.
      expect(upstream.requests).toHaveLength(1)
      const swapped = await s.waitFor('both workers swapped', async () => {
        const l = lines(s, "catalogue replaced by the supervisor's")
        return l.length >= 2 && l
      })
      for (const l of swapped) expect(Date.parse(l.time) - Date.parse(replaced.time)).toBeLessThan(1000)
      const etags = new Set<string | null>()
      for (let i = 0; i < 40; i++) {
        const reply = await fresh(s.url, '/api/v1/satellites/90011')
        expect(reply.status).toBe(200)
        etags.add((await fresh(s.url, '/api/v1/satellites')).headers.get('etag'))
      }
      expect(etags.size).toBe(1)
      // Every worker shows the supervisor's refresh state (mirrored within half a second).
      await s.waitFor('the status mirrored', async () => {
        for (let i = 0; i < 20; i++) {
          const status = JSON.parse(await (await fresh(s.url, '/api/v1/service/status')).text())
          if (!status.refresh.enabled || status.refresh.lastSuccessAt === null) return false
        }
        return true
      }, 5_000)
      const metrics = await (await fresh(s.url, '/metrics')).text()
      expect(samples(metrics, 'sattrack_refresh_successes_total')[0]!.value).toBe(1)
      // A worker started in place of one that died shows the same state at once, not from the refresh's next change (an hour away).
      const lastSuccessAt = JSON.parse(await (await fresh(s.url, '/api/v1/service/status')).text()).refresh.lastSuccessAt
      const victim = lines(s, 'worker listening').find((l) => l.worker === 2)!
      process.kill(victim.pid, 'SIGKILL')
      await s.waitFor('the replacement listening', async () => lines(s, 'worker listening').find((l) => l.worker === 2 && l.pid !== victim.pid), 15_000)
      for (let i = 0; i < 20; i++) {
        const status = JSON.parse(await (await fresh(s.url, '/api/v1/service/status')).text())
        expect([status.refresh.enabled, status.refresh.lastSuccessAt]).toEqual([true, lastSuccessAt])
        const after = await (await fresh(s.url, '/metrics')).text()
        expect([samples(after, 'sattrack_refresh_enabled')[0]!.value, samples(after, 'sattrack_refresh_successes_total')[0]!.value]).toEqual([1, 1])
      }
      expect(await s.stop()).toBe(0)
    } finally {
      await upstream.stop()
    }
  })

  test('a refresh round of 304s reaches every worker: the same ETag, the group obtained anew in every status', async () => {
    const upstream = startMockUpstream({ stations: syntheticGroup(90000, 12, { epochDay: 150 }) })
    try {
      const s = await start(refreshing('confirm-snapshot', upstream.url, '2s'))
      await s.waitFor('the first round', async () => lines(s, 'refresh: catalogue replaced')[0], 15_000)
      const etag = (await fresh(s.url, '/api/v1/satellites')).headers.get('etag')
      const first = await s.waitFor('both workers on the first round', async () => {
        const times = new Set<string>()
        for (let i = 0; i < 20; i++) times.add(JSON.parse(await (await fresh(s.url, '/api/v1/service/status')).text()).catalog.groupsObtainedAt.stations)
        return times.size === 1 && [...times][0]
      }, 5_000)
      // The next round: 304, confirmed by every worker, which then all show the later time, and the same ETag.
      const confirmed = await s.waitFor('both workers confirmed', async () => {
        const l = lines(s, 'catalogue confirmed by the supervisor (the same satellites, obtained anew)')
        return l.length >= 2 && l
      }, 15_000)
      expect(new Set(confirmed.slice(0, 2).map((l) => l.worker)).size).toBe(2)
      expect(lines(s, 'refresh: upstream unchanged').length).toBeGreaterThanOrEqual(1)
      await s.waitFor('the later time on every worker', async () => {
        for (let i = 0; i < 20; i++) {
          const status = JSON.parse(await (await fresh(s.url, '/api/v1/service/status')).text())
          if (!(Date.parse(status.catalog.groupsObtainedAt.stations) > Date.parse(first))) return false
        }
        return true
      }, 5_000)
      for (let i = 0; i < 20; i++) expect((await fresh(s.url, '/api/v1/satellites')).headers.get('etag')).toBe(etag)
      expect(await s.stop()).toBe(0)
    } finally {
      await upstream.stop()
    }
  }, 60_000)

  test('the rate limit holds for the instance: 10/min means 10 answers over 30 connections, whichever worker takes them', async () => {
    const s = await start(['--rate-limit', '10/min'])
    const statuses: number[] = []
    for (let i = 0; i < 30; i++) statuses.push((await fresh(s.url, '/api/v1/satellites/25544')).status)
    expect(statuses.filter((x) => x !== 429)).toHaveLength(10)
    expect(statuses.slice(10).every((x) => x === 429)).toBe(true)
    expect(await s.stop()).toBe(0)
  })

  test('the stream cap holds for the instance: with --max-streams 2 open, every further stream is refused (503), on either worker', async () => {
    const s = await start(['--max-streams', '2', '--max-streams-per-client', '2', '--max-element-age', 'off'])
    const open = await Promise.all([0, 1].map(() => fetch(`${s.url}/api/v1/satellites/25544/stream`, { headers: { connection: 'close' } })))
    expect(open.map((r) => r.status)).toEqual([200, 200])
    const readers = open.map((r) => r.body!.getReader())
    for (const reader of readers) await reader.read()
    for (let i = 0; i < 8; i++) expect((await fresh(s.url, '/api/v1/satellites/25544/stream')).status).toBe(503)
    // One closed: a slot is free again for the instance.
    await readers[0]!.cancel()
    await s.waitFor('a slot freed', async () => {
      const response = await fetch(`${s.url}/api/v1/satellites/25544/stream`, { method: 'HEAD', headers: { connection: 'close' } })
      return response.status === 200
    }, 10_000)
    await readers[1]!.cancel()
    expect(await s.stop()).toBe(0)
  })
})

describe('stopping and starting', () => {
  test('SIGTERM under keep-alive load on both workers: every request already sent is answered, exit 0', async () => {
    const service = await startService({ args: ['--workers', '2', '--shutdown-timeout', '10s'] })
    const load = keepAliveLoad(service.port, 32, '/api/v1/satellites/25544/passes?latitude=51.5&longitude=0&days=1&time=2026-05-30T00:00:00Z')
    for (let i = 0; i < 400 && load.outcome.answered < 64; i++) await Bun.sleep(25)
    expect(load.outcome.answered).toBeGreaterThan(0)
    service.proc.kill('SIGTERM')
    const code = await service.proc.exited
    await load.finish()
    expect(load.outcome.lost).toEqual([])
    expect(code).toBe(0)
    expect(load.outcome.closing).toBeGreaterThan(0)
    const log = service.stdout()
    // Both workers stopped gracefully, then the supervisor.
    expect(log.match(/"msg":"stopped"/g)?.length).toBe(3)
  })

  test('a port held by another process (with SO_REUSEPORT) is refused: exit 1, nothing shared', async () => {
    const other = Bun.serve({ hostname: LOOPBACK, port: 0, reusePort: true, fetch: () => new Response('other') })
    try {
      const result = await runToExit(['--workers', '2', '--host', LOOPBACK, '--port', String(other.port)])
      expect(result.exitCode).toBe(1)
      expect(result.stderr).toContain(`cannot listen on ${LOOPBACK}:${other.port}`)
    } finally {
      other.stop(true)
    }
  })

  test('--workers auto: one worker per core the process may run on (taskset)', async () => {
    /** The "listening" log line of the executable started on these cores, then stopped. */
    const listeningOn = async (cores: string) => {
      const child = Bun.spawn(['taskset', '-c', cores, requireExecutable(), '--workers', 'auto', '--host', LOOPBACK, '--port', '0', '--data-dir', join(tmp, `auto-${cores}`)], {
        env: childEnv(),
        stdout: 'pipe',
        stderr: 'inherit',
      })
      let text = ''
      const decoder = new TextDecoder()
      for await (const chunk of child.stdout) {
        text += decoder.decode(chunk, { stream: true })
        const line = text.split('\n').find((l) => l.includes('"msg":"listening"'))
        if (line) {
          child.kill('SIGTERM')
          await child.exited
          return JSON.parse(line)
        }
      }
      throw new Error(`no listening line: ${text}`)
    }
    // One core: the single process (no supervisor, no worker id).
    const one = await listeningOn('0')
    expect(one.workers).toBeUndefined()
    expect(one.worker).toBeUndefined()
    if (navigator.hardwareConcurrency >= 2) expect((await listeningOn('0,1')).workers).toBe(2)
  })
})
