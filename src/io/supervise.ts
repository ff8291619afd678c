/**
 * The supervisor process of `--workers N` (N > 1), wired: checks that the port
 * is free, starts the workers (this executable again, with WORKER_ENV set),
 * takes the instance's catalogue from the first of them, then refreshes and
 * reloads it for all (src/io/cluster.ts), and stops them all on SIGTERM/SIGINT.
 */
import { createServer } from 'node:net'
import type { Subprocess } from 'bun'
import { CatalogStore } from '../domain/catalog/store.ts'
import type { ElementFormat } from '../domain/catalog/formats.ts'
import { readCache, writeCache } from './cache.ts'
import type { ElementGroup } from '../domain/catalog/groups.ts'
import { type Admission, Supervisor, type ToSupervisor, type ToWorker, WORKER_ENV, type WorkerProcess, type WorkerSource } from './cluster.ts'
import { log } from './log.ts'
import { hostInUrl } from './listen-host.ts'
import { Refresher, redactUrl } from './refresh.ts'
import { reloadOnSighup } from './reload.ts'

export interface SuperviseSettings {
  workers: number
  port: number
  host: string
  snapshot: string | null
  dataDir: string
  maxElementAgeMs: number | null
  shutdownTimeoutMs: number
  maxStreams: number
  maxStreamsPerClient: number | null
  refresh: { url: string; intervalMs: number; groups: string[] | null; format: ElementFormat; timeoutMs: number } | null
}

export interface SuperviseOptions {
  settings: SuperviseSettings
  /** The rate limit's budgets for the instance (a RateLimiter), or null. */
  rate: { take(client: string, nowMs: number): Admission } | null
  /** How to start this program again: the file, its arguments (argv[0] first) and environment. */
  command: { file: string; args: string[]; env: Record<string, string | undefined> }
}

/** Extra time the supervisor gives workers past their own grace period before it kills them, ms. */
const STOP_MARGIN_MS = 5000

/** Whether `port` can be bound on `host` by a socket of its own (no other process, sattrack or not, holds it). */
function portFree(port: number, host: string): Promise<{ ok: true; port: number } | { ok: false; code: string | undefined; message: string }> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', (error: NodeJS.ErrnoException) => resolve({ ok: false, code: error.code, message: error.message }))
    server.listen({ port, host, exclusive: true }, () => {
      const bound = (server.address() as { port: number }).port
      server.close(() => resolve({ ok: true, port: bound }))
    })
  })
}

export async function supervise({ settings, rate, command }: SuperviseOptions): Promise<never> {
  const probe = await portFree(settings.port, settings.host)
  if (!probe.ok && probe.code === 'EADDRINUSE') {
    console.error(`sattrack: cannot listen on ${settings.host}:${settings.port}: ${probe.message}`)
    process.exit(1)
  }
  // Another failure (a bad address): the workers try, and report it as a single process would.
  const port = probe.ok ? probe.port : settings.port

  const spawn = (slot: number, source: WorkerSource, onMessage: (message: ToSupervisor) => void): WorkerProcess => {
    const child: Subprocess = Bun.spawn(command.args, {
      env: { ...command.env, [WORKER_ENV.slot]: String(slot), [WORKER_ENV.source]: source, [WORKER_ENV.port]: String(port) },
      stdio: ['ignore', 'inherit', 'inherit'],
      // JSON: for the catalogue's transfer (4 MB) Bun's JSON is several times faster than its structured clone.
      serialization: 'json',
      ipc: (message) => onMessage(message as ToSupervisor),
    })
    return {
      pid: child.pid,
      send: (message: ToWorker) => child.send(message),
      kill: (signal) => child.kill(signal),
      exited: child.exited.then((code) => ({ code: child.signalCode ? null : code, signal: child.signalCode ? String(child.signalCode) : null })),
    }
  }

  let store: CatalogStore | undefined
  let refresher: Refresher | null = null
  // The cache's payloads, read while the workers start: the refresh's first round asks for the groups the start took from it conditionally.
  let cached: ElementGroup[] = []
  const cacheRead = readCache(settings.dataDir).then((cache) => {
    if (cache.kind === 'ok') cached = cache.cache.groups
  })
  const supervisor: Supervisor = new Supervisor({
    count: settings.workers,
    spawn,
    log,
    rate,
    streams: { max: settings.maxStreams, perClient: settings.maxStreamsPerClient ?? Math.max(1, Math.floor(settings.maxStreams / 4)) },
    stopTimeoutMs: settings.shutdownTimeoutMs + STOP_MARGIN_MS,
    // The catalogue changes only by a refresh or a reload of --snapshot: otherwise its version is enough.
    keepCatalogue: settings.refresh !== null || settings.snapshot !== null,
    refreshState: settings.refresh ? () => (refresher ? { status: refresher.status(), counts: refresher.counts() } : undefined)! : undefined,
    onCatalog: (catalog, cacheGroupsUsed) => {
      store = new CatalogStore(catalog, { maxElementAgeMs: settings.maxElementAgeMs })
      // Decoding it left megabytes of garbage: collect it, so the supervisor's RSS is what it keeps.
      setTimeout(() => Bun.gc(true), 100)
      if (!settings.refresh) return
      const { url, intervalMs, groups, format, timeoutMs } = settings.refresh
      refresher = new Refresher({
        store,
        settings: { url, intervalMs, groups: groups ?? Object.keys(catalog.groupCounts), format, timeoutMs },
        persist: (contents) => writeCache(settings.dataDir, contents),
        initialPayloads: cached.filter((g) => cacheGroupsUsed.includes(g.group)),
        onSwap: (next) => supervisor.swap(next),
      })
    },
  })

  let stopping = false
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn('second signal: the workers close their open connections now', { signal })
      supervisor.forceStop()
      return
    }
    stopping = true
    const started = performance.now()
    log.info('stopping: every worker finishes its requests in flight', { signal, workers: supervisor.listening, graceSeconds: settings.shutdownTimeoutMs / 1000 })
    ;(refresher as Refresher | null)?.stop()
    await supervisor.stop()
    log.info('stopped', { durationMs: Math.round(performance.now() - started) })
    process.exit(0)
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  reloadOnSighup(() => store, settings.snapshot, (catalog) => supervisor.swap(catalog))

  try {
    await Promise.all([supervisor.start(), cacheRead])
  } catch (error) {
    stopping = true
    await supervisor.stop()
    process.exit((error as { exitCode?: number }).exitCode || 1)
  }
  log.info('listening', { url: `http://${hostInUrl(settings.host)}:${port}`, workers: settings.workers, supervisorPid: process.pid })
  const running = refresher as Refresher | null
  if (running && settings.refresh) {
    log.info('refresh enabled', { url: redactUrl(settings.refresh.url), intervalSeconds: settings.refresh.intervalMs / 1000, groups: running.settings.groups, format: settings.refresh.format, dataDir: settings.dataDir })
    running.start()
  }
  // Signals and the workers keep the process alive from here on.
  return new Promise<never>(() => {})
}
