/**
 * Entry of the executable: heap options → config → catalogue (--snapshot or the
 * embedded snapshot, with the newer groups of the cache) → server → refresh →
 * signals. With --workers above 1, this process becomes the supervisor of that
 * many copies of itself (src/io/supervise.ts), each of which runs this same
 * path as a worker: it serves, while refresh, reload and the instance-wide
 * limits are the supervisor's (src/io/worker-link.ts).
 */
// First: it may execute the process again, before anything else is loaded.
import './io/relaunch.ts'
import { createApp, type Lifecycle } from './http/app.ts'
import type { Catalog } from './domain/catalog/catalog.ts'
import { loadEmbeddedSnapshot } from './io/embedded.ts'
import { readCache, readsFileUse, removeStaleTemporaries, snapshotFromCache, writeCache } from './io/cache.ts'
import type { ElementGroup } from './domain/catalog/groups.ts'
import { logRefusedSets, Refresher, redactUrl } from './io/refresh.ts'
import { loadSnapshotPath } from './io/snapshot-files.ts'
import { planStart, type StartInputs, type StartPlan, startLogFields } from './domain/catalog/startup.ts'
import { CatalogStore } from './domain/catalog/store.ts'
import { catalogFromTransfer, catalogTransfer } from './domain/catalog/transfer.ts'
import { parseConfig } from './config.ts'
import { after, now, sleep } from './io/clock.ts'
import { log } from './io/log.ts'
import { type Activity, HEAP_OPTIONS, MemoryTrim, selfArgs } from './io/memory.ts'
import { IdleSweeps } from './io/idle-sweep.ts'
import { reloadOnSighup } from './io/reload.ts'
import { soon } from './io/schedule.ts'
import { warmUp } from './io/warm-up.ts'
import { eventLoopDone, stopOnSignals, stopSelf } from './io/shutdown.ts'
import { supervise } from './io/supervise.ts'
import { hostInUrl, isHostName, unresolvedHost } from './io/listen-host.ts'
import { WorkerLink, workerIdentity } from './io/worker-link.ts'
import { freshness } from './domain/orbit/freshness.ts'
import { versionText } from './io/version.ts'
import { RateLimiter } from './http/plugins/rate-limit.ts'
import { availableParallelism } from 'node:os'

const startedAtMs = now()
const parsed = parseConfig(process.argv.slice(2), process.env)
if (parsed.kind === 'help' || parsed.kind === 'version') {
  console.log(parsed.kind === 'version' ? versionText((await loadEmbeddedSnapshot()).obtainedAtMs, now()) : parsed.text)
  process.exit(0)
}
if (parsed.kind === 'error') {
  console.error(`sattrack: ${parsed.message}`)
  process.exit(2)
}
const { config } = parsed
const message = (error: unknown) => (error instanceof Error ? error.message : String(error))
// This process is a worker of an instance when its supervisor said so (WORKER_ENV) and opened the channel to it.
const worker = process.send ? workerIdentity(process.env) : null
log.configure({ level: config.logLevel, format: config.logFormat, context: worker ? { worker: worker.slot } : null })
// A --host name that does not resolve stops the start at once (before the catalogue, or any worker, is started).
const hostProblem = worker === null ? await unresolvedHost(config.host) : null
if (hostProblem !== null) {
  console.error(`sattrack: --host ${config.host}: ${hostProblem}`)
  process.exit(2)
}
const workers = config.workers === 'auto' ? availableParallelism() : config.workers
if (worker === null && workers > 1) {
  // The supervisor serves nothing and never listens: the normal JIT policy from now on (see below).
  Bun.unsafe.setJITPolicy(1)
  await supervise({
    settings: {
      workers,
      port: config.port,
      host: config.host,
      snapshot: config.snapshot,
      dataDir: config.dataDir,
      maxElementAgeMs: config.maxElementAgeMs,
      shutdownTimeoutMs: config.shutdownTimeoutMs,
      maxStreams: config.maxStreams,
      maxStreamsPerClient: config.maxStreamsPerClient,
      refresh: config.refreshUrl
        ? { url: config.refreshUrl, intervalMs: config.refreshIntervalMs, groups: config.refreshGroups, format: config.refreshFormat, timeoutMs: config.refreshTimeoutMs }
        : null,
    },
    rate: config.rateLimit ? new RateLimiter(config.rateLimit) : null,
    // The heap options go to the workers in their environment (the supervisor itself skipped the relaunch).
    command: { file: process.execPath, args: selfArgs({ argv: process.argv, execArgv: process.execArgv, execPath: process.execPath, main: Bun.main }), env: { ...HEAP_OPTIONS, ...process.env } },
  })
}
const link = worker ? new WorkerLink(worker.slot) : null
// A worker started in place of one that died takes the instance's catalogue from the supervisor; the others start from the files.
const fromSupervisor = worker?.source === 'supervisor'
// The start's details are logged once per instance: by a single process, or by worker 1's first start.
const startLog = worker === null || (worker.slot === 1 && !fromSupervisor)

/**
 * The catalogue a start from the files gives: --snapshot when given (in place of
 * the embedded snapshot), else the embedded snapshot; the data-dir cache
 * competes with it group by group (see startup.ts). Logs what the start found
 * (once per instance: `startLog`). Exits on a base that cannot be used.
 */
async function startFromFiles(): Promise<{ plan: StartPlan; inputs: StartInputs; cached: ElementGroup[]; cacheGroupsAsRead: string[]; readsUnused: string | null }> {
  let base: StartInputs['base']
  try {
    base = config.snapshot
      ? { source: 'snapshot', snapshot: await loadSnapshotPath(config.snapshot) }
      : { source: 'embedded', snapshot: await loadEmbeddedSnapshot() }
  } catch (error) {
    console.error(`sattrack: ${message(error)}`)
    process.exit(2)
  }
  const quiet = !startLog
  // Temporary files a process killed while writing the cache left behind.
  const leftovers = await removeStaleTemporaries(config.dataDir, now())
  if (leftovers.length > 0 && !quiet) log.info('removed temporary cache files left by an interrupted write', { dataDir: config.dataDir, files: leftovers })
  const cache = await readCache(config.dataDir)
  if (cache.kind === 'invalid' && !quiet) log.warn('ignoring the cache in the data dir', { path: cache.path, reason: cache.reason })
  const inputs: StartInputs = { base, cache: cache.kind === 'ok' ? snapshotFromCache(cache.cache, cache.path) : null, nowMs: now() }
  const start = planStart(inputs)
  if (!start.ok) {
    console.error(`sattrack: ${start.error}${start.examples?.[0] ? ` (first: ${start.examples[0]})` : ''}`)
    process.exit(2)
  }
  const report = start.plan
  if (!quiet) {
    if (report.cacheIgnored !== null && cache.kind === 'ok') log.warn('ignoring the cache in the data dir', { path: cache.path, reason: report.cacheIgnored })
    for (const warning of report.warnings) log.warn(warning.message, warning.fields)
    const skipped = Object.values(report.invalidByGroup).reduce((a, b) => a + b, 0)
    if (skipped > 0 || Object.keys(report.unreadableGroups).length > 0) {
      log.warn('skipped invalid element sets', {
        count: skipped,
        byGroup: report.invalidByGroup,
        unreadableGroups: report.unreadableGroups,
        examples: report.examples,
      })
    }
    logRefusedSets(log, 'start', report.refused)
  }
  const { cacheGroupsAsRead, readsUnused } = readsFileUse(cache, report.cacheGroupsUsed)
  // The cache's groups as the start read them (planStart reads them in inputs.cache): the refresh keeps them, and writes them to the reads file again.
  return { plan: report, inputs, cached: inputs.cache?.groups ?? [], cacheGroupsAsRead, readsUnused }
}

const started = fromSupervisor ? null : await startFromFiles()
const store = new CatalogStore(started ? started.plan.catalog : catalogFromTransfer(await link!.firstCatalog()), { maxElementAgeMs: config.maxElementAgeMs })
// A worker never refreshes: the supervisor does, for the instance.
const refresher =
  config.refreshUrl && started && !worker
    ? new Refresher({
        store,
        settings: {
          url: config.refreshUrl,
          intervalMs: config.refreshIntervalMs,
          groups: config.refreshGroups ?? Object.keys(started.plan.catalog.groupCounts),
          format: config.refreshFormat,
          timeoutMs: config.refreshTimeoutMs,
        },
        persist: (contents) => writeCache(config.dataDir, contents),
        // The payloads behind the groups taken from the cache: the first round asks for them conditionally.
        initialPayloads: started.cached.filter((g) => started.plan.cacheGroupsUsed.includes(g.group)),
        onSwap: () => warmInPieces(store.current),
      })
    : null

const activity: Activity = { requests: 0 }
const lifecycle: Lifecycle = { draining: false }
const sweeps = new IdleSweeps()
const app = createApp({
  lifecycle,
  sweeps,
  store,
  corsOrigin: config.corsOrigin,
  startedAtMs,
  refreshStatus: link ? () => link.refreshStatus() : refresher ? () => refresher.status() : undefined,
  benchRoutes: config.benchRoutes,
  compat: config.compat,
  warm: true,
  // The test suite checks every answer against its schema; the service does not pay for it per request.
  checkResponses: false,
  activity,
  streams: {
    maxStreams: config.maxStreams,
    maxStreamsPerClient: config.maxStreamsPerClient ?? undefined,
    // A worker's streams count against the instance's caps, which the supervisor holds.
    slots: link ? { acquire: (client) => link.acquireStream(client), release: (client) => link.releaseStream(client) } : undefined,
  },
  operations: {
    accessLog: config.accessLog,
    metrics: config.metrics,
    rateLimit: config.rateLimit,
    // A worker spends the instance's budgets, which the supervisor holds.
    rateBudget: link && config.rateLimit ? { rate: config.rateLimit, take: (client, nowMs) => link.takeRate(client, nowMs) } : undefined,
    instance: link
      ? { worker: link.slot, provide: (local) => link.provideFamilies(local), gather: () => link.gather(), inFlight: () => app.server?.pendingRequests ?? 0 }
      : undefined,
    trustProxy: config.trustProxy,
    refreshCounts: link ? () => link.refreshCounts() : refresher ? () => refresher.counts() : undefined,
  },
})
try {
  // Elysia asks for SO_REUSEPORT by default: a second instance started on a taken port would
  // silently share its traffic instead of failing with "cannot listen".
  app.listen({
    // A worker binds the port its supervisor chose, shared with the other workers (the supervisor checked that no one else holds it).
    port: worker?.port ?? config.port,
    hostname: config.host,
    reusePort: worker !== null,
    // Production mode whatever NODE_ENV says: Bun's development mode answers an uncaught error with
    // an HTML page holding the stack, the working directory and the app's source.
    development: false,
    // The last resort (the app answers its own errors): a bare JSON 500, logged, never the stack.
    error: (error: Error) => {
      log.error('unhandled failure', { error: String(error?.stack ?? error) })
      return new Response(JSON.stringify({ message: 'internal server error', statusCode: 500 }), {
        status: 500,
        headers: { 'content-type': 'application/json; charset=utf-8' },
      })
    },
  })
} catch (error) {
  // A taken port, or one this user may not bind, is a failure of the run (1). Anything else means the address
  // cannot be used here: a bad --host value (2). Bun reports a name that does not resolve as ENOTTY or EINVAL
  // (checked before the start, but a resolver may change its mind): said plainly, not as that errno.
  const code = (error as { code?: string }).code
  const portProblem = code === 'EADDRINUSE' || code === 'EACCES'
  console.error(
    portProblem
      ? `sattrack: cannot listen on ${config.host}:${config.port}: ${message(error)}`
      : code === 'EADDRNOTAVAIL'
        ? `sattrack: --host ${config.host}: not an address of this machine`
        : isHostName(config.host)
          ? `sattrack: --host ${config.host}: the name does not resolve to an address`
          : `sattrack: --host ${config.host}: not an address of this machine, nor a name that resolves to one (${message(error)})`,
  )
  process.exit(portProblem ? 1 : 2)
}
// The executable starts with the JIT's tier-up thresholds raised (--compile-jit-policy, Makefile and scripts/dist.ts):
// start-up code runs once, and compiling it cost more than interpreting it (~40 ms to healthy). Serving, the normal policy.
Bun.unsafe.setJITPolicy(1)
if (started && startLog) {
  log.info('catalogue loaded', {
    ...startLogFields(started.inputs, started.plan),
    // The cache's groups taken as read from its reads file (not parsed and validated again).
    ...(started.cacheGroupsAsRead.length > 0 ? { cacheGroupsAsRead: started.cacheGroupsAsRead } : {}),
    // Why the reads file next to the cache gave none (an upgrade: another build wrote it).
    ...(started.readsUnused !== null ? { cacheReadsFileUnused: started.readsUnused } : {}),
  })
  // The data's age, by age alone: it makes the catalogue's validity rules (~15 ms), which the first requests need not wait for.
  soon(() => {
    const dataFreshness = freshness(store.current, now(), { countDecay: false, refreshing: config.refreshUrl !== null })
    if (dataFreshness.stale) log.warn('the data is stale', { summary: dataFreshness.summary, advice: dataFreshness.advice })
    else log.info('data freshness', { summary: dataFreshness.summary })
  })
}
const url = `http://${hostInUrl(config.host)}:${app.server?.port}`
if (link) {
  // The supervisor logs the instance's address once all its workers listen.
  log.info('worker listening', { url, pid: process.pid, catalogue: fromSupervisor ? 'the supervisor\'s' : 'from the files' })
  link.listening()
  // The first worker to listen is asked for its catalogue (the supervisor's from then on).
  link.provideCatalog(() => ({ transfer: catalogTransfer(store.current), cacheGroupsUsed: started?.plan.cacheGroupsUsed ?? [] }))
  // Every later catalogue comes from the supervisor: swapped in at once (the version is checked in catalogFromTransfer).
  link.onCatalog((transfer) => {
    const before = store.current.version
    try {
      store.swap(catalogFromTransfer(transfer))
    } catch (error) {
      log.error('the catalogue the supervisor sent cannot be used; the one held is kept', { reason: message(error) })
      return
    }
    // The same version: a refresh round the upstream answered with 304s, which dates the groups anew and changes no satellite.
    if (store.current.version === before) log.info('catalogue confirmed by the supervisor (the same satellites, obtained anew)', { version: before })
    else log.info('catalogue replaced by the supervisor\'s', { version: store.current.version, satellites: store.current.size })
    link.serving(store.current.version, true)
    warmInPieces(store.current)
  })
  // Its version, hashed after the first requests have been served: the supervisor checks it is the instance's.
  after(0, () => link.serving(store.current.version, false))
} else log.info('listening', { url })
if (refresher) {
  log.info('refresh enabled', { url: redactUrl(refresher.settings.url), intervalSeconds: refresher.settings.intervalMs / 1000, groups: refresher.settings.groups, format: refresher.settings.format, dataDir: config.dataDir })
  refresher.start()
}
warmInPieces(store.current)
const stopTrim = new MemoryTrim(activity).start()
const stopSweeps = sweeps.start()

/** The catalogue served now is warmed; one replaced meanwhile is not. */
function warmInPieces(catalog: Catalog): void {
  warmUp(catalog, (c) => store.current === c)
}

/** On a stop, how long requests already sent may take to be read before the listener closes, ms. */
const DRAIN_SETTLE_MS = 100

// SIGHUP reloads --snapshot from disk (src/io/reload.ts); the store serves the catalogue under the configured
// validity policy: warm that one. In a worker, SIGHUP asks the supervisor, which reloads for every worker.
if (link) link.handleSignals()
else reloadOnSighup(() => store, config.snapshot, (catalog) => warmInPieces(catalog))

const server = app.server
let workerStopping = false
stopOnSignals({
  target: {
    drain: async () => {
      // Requests already sent on keep-alive connections may still sit unread in the socket buffers
      // (the event loop was busy when the signal came): stopping now would close those connections
      // as idle and reset them. So every answer from now on says Connection: close, the loop gets a
      // moment to read what has arrived (those requests are then in flight, and waited for), and
      // only then the listener closes.
      lifecycle.draining = true
      await sleep(DRAIN_SETTLE_MS)
      return app.stop(false)
    },
    force: () => server?.stop(true),
    inFlight: () => server?.pendingRequests ?? 0,
    // Answers still being written to slow clients keep their connections, and the event loop, busy.
    settled: eventLoopDone,
  },
  graceMs: config.shutdownTimeoutMs,
  beforeDrain: () => {
    refresher?.stop()
    stopTrim()
    stopSweeps()
    // Live streams never end by themselves: close them so the drain does not wait out the grace period.
    app.store.streams.closeAll()
    // The channel to the supervisor would keep the event loop alive (and `settled` waiting) for ever.
    if (link) {
      workerStopping = true
      link.disconnectAfter(DRAIN_SETTLE_MS)
    }
  },
  log,
  // A worker stops on its supervisor's SIGTERM; a terminal's Ctrl-C reaches the supervisor, which passes it on.
  signals: link ? ['SIGTERM'] : undefined,
})
if (link) {
  // The supervisor is gone (killed): stop as on SIGTERM, finishing the requests in flight.
  link.onDisconnect(() => {
    if (!workerStopping) stopSelf()
  })
}
