/** Entry of the executable: heap options → config → catalogue (--snapshot or the embedded snapshot, with the newer groups of the cache) → server → refresh → signals. */
// First: it may execute the process again, before anything else is loaded.
import './io/relaunch.ts'
import { createApp, type Lifecycle } from './http/app.ts'
import type { Catalog } from './domain/catalog/catalog.ts'
import { loadEmbeddedSnapshot } from './io/embedded.ts'
import { readCache, removeStaleTemporaries, snapshotFromCache, writeCache } from './io/cache.ts'
import { logRefusedSets, Refresher, redactUrl, warnIfStale } from './io/refresh.ts'
import { loadSnapshotPath } from './io/snapshot-files.ts'
import { planReload } from './domain/catalog/reload.ts'
import { planStart, type StartInputs, startLogFields } from './domain/catalog/startup.ts'
import { CatalogStore } from './domain/catalog/store.ts'
import { parseConfig } from './config.ts'
import { log } from './io/log.ts'
import { type Activity, MemoryTrim } from './io/memory.ts'
import { stopOnSignals } from './io/shutdown.ts'
import { freshness } from './domain/orbit/freshness.ts'
import { versionText } from './io/version.ts'

const startedAtMs = Date.now()
const parsed = parseConfig(process.argv.slice(2), process.env)
if (parsed.kind === 'help' || parsed.kind === 'version') {
  console.log(parsed.kind === 'version' ? versionText((await loadEmbeddedSnapshot()).obtainedAtMs, Date.now()) : parsed.text)
  process.exit(0)
}
if (parsed.kind === 'error') {
  console.error(`sattrack: ${parsed.message}`)
  process.exit(2)
}
const { config } = parsed
log.configure({ level: config.logLevel, format: config.logFormat })
const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

// The base is --snapshot when given (in place of the embedded snapshot), else the embedded snapshot;
// the data-dir cache competes with it group by group (see startup.ts).
let base: StartInputs['base']
try {
  base = config.snapshot
    ? { source: 'snapshot', snapshot: await loadSnapshotPath(config.snapshot) }
    : { source: 'embedded', snapshot: await loadEmbeddedSnapshot() }
} catch (error) {
  console.error(`sattrack: ${message(error)}`)
  process.exit(2)
}
// Temporary files a process killed while writing the cache left behind.
const leftovers = await removeStaleTemporaries(config.dataDir, Date.now())
if (leftovers.length > 0) log.info('removed temporary cache files left by an interrupted write', { dataDir: config.dataDir, files: leftovers })
const cache = await readCache(config.dataDir)
if (cache.kind === 'invalid') log.warn('ignoring the cache in the data dir', { path: cache.path, reason: cache.reason })
const startInputs: StartInputs = { base, cache: cache.kind === 'ok' ? snapshotFromCache(cache.cache, cache.path) : null, nowMs: Date.now() }
const start = planStart(startInputs)
if (!start.ok) {
  console.error(`sattrack: ${start.error}${start.examples?.[0] ? ` (first: ${start.examples[0]})` : ''}`)
  process.exit(2)
}
const report = start.plan
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

const store = new CatalogStore(report.catalog, { maxElementAgeMs: config.maxElementAgeMs })
const refresher = config.refreshUrl
  ? new Refresher({
      store,
      settings: {
        url: config.refreshUrl,
        intervalMs: config.refreshIntervalMs,
        groups: config.refreshGroups ?? Object.keys(report.catalog.groupCounts),
        format: config.refreshFormat,
        timeoutMs: config.refreshTimeoutMs,
      },
      persist: (contents) => writeCache(config.dataDir, contents),
      // The payloads behind the groups taken from the cache: the first round asks for them conditionally.
      initialPayloads: cache.kind === 'ok' ? cache.cache.groups.filter((g) => report.cacheGroupsUsed.includes(g.group)) : undefined,
      onSwap: () => warmInSlices(store.current),
    })
  : null

const activity: Activity = { requests: 0 }
const lifecycle: Lifecycle = { draining: false }
const app = createApp({
  lifecycle,
  store,
  corsOrigin: config.corsOrigin,
  startedAtMs,
  refreshStatus: refresher ? () => refresher.status() : undefined,
  benchRoutes: config.benchRoutes,
  compat: config.compat,
  warm: true,
  // The test suite checks every answer against its schema; the service does not pay for it per request.
  checkResponses: false,
  activity,
  streams: { maxStreams: config.maxStreams, maxStreamsPerClient: config.maxStreamsPerClient ?? undefined },
  operations: {
    accessLog: config.accessLog,
    metrics: config.metrics,
    rateLimit: config.rateLimit,
    trustProxy: config.trustProxy,
    refreshCounts: refresher ? () => refresher.counts() : undefined,
  },
})
try {
  // Elysia asks for SO_REUSEPORT by default: a second instance started on a taken port would
  // silently share its traffic instead of failing with "cannot listen".
  app.listen({
    port: config.port,
    hostname: config.host,
    reusePort: false,
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
  console.error(`sattrack: cannot listen on ${config.host}:${config.port}: ${message(error)}`)
  // An address that cannot be used at all is a bad --host value (2); a taken or forbidden port is not (1).
  const code = (error as { code?: string }).code
  process.exit(code === 'EINVAL' || code === 'ENOTFOUND' || code === 'EADDRNOTAVAIL' ? 2 : 1)
}
log.info('catalogue loaded', startLogFields(startInputs, report))
const dataFreshness = freshness(store.current, Date.now(), { countDecay: false })
if (dataFreshness.stale) log.warn('the data is stale', { summary: dataFreshness.summary, advice: dataFreshness.advice })
else log.info('data freshness', { summary: dataFreshness.summary })
log.info('listening', { url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${app.server?.port}` })
if (refresher) {
  log.info('refresh enabled', { url: redactUrl(refresher.settings.url), intervalSeconds: refresher.settings.intervalMs / 1000, groups: refresher.settings.groups, format: refresher.settings.format, dataDir: config.dataDir })
  refresher.start()
}
setTimeout(() => warmInSlices(store.current), 0)
const stopTrim = new MemoryTrim(activity).start()

/** Creates SGP4 records a slice at a time, so no request waits behind all of them; stops if the catalogue is replaced. */
function warmInSlices(catalog: Catalog, from = 0): void {
  if (store.current !== catalog) return
  const end = Math.min(catalog.size, from + 500)
  for (let i = from; i < end; i++) catalog.satrecAt(i)
  if (end < catalog.size) setTimeout(() => warmInSlices(catalog, end), 0)
  // Start-up leaves tens of MB of garbage (parsing, SGP4 initialisation): collect it once, so RSS reflects what is kept.
  else setTimeout(() => Bun.gc(true), 1000)
}

/** On a stop, how long requests already sent may take to be read before the listener closes, ms. */
const DRAIN_SETTLE_MS = 100

// SIGHUP reloads --snapshot from disk: the file competes with the catalogue held by the overlay rule, and a
// new catalogue is swapped in in one step; a file that cannot be read or holds nothing valid changes nothing.
let reloading = false
process.on('SIGHUP', () => {
  if (!config.snapshot) {
    log.warn('SIGHUP: there is no --snapshot to reload; nothing changed')
    return
  }
  if (reloading) {
    log.warn('SIGHUP: a reload is already running; this one is ignored', { path: config.snapshot })
    return
  }
  reloading = true
  void reloadSnapshot(config.snapshot).finally(() => {
    reloading = false
  })
})

async function reloadSnapshot(path: string): Promise<void> {
  let file
  try {
    file = await loadSnapshotPath(path)
  } catch (error) {
    log.error('reload: --snapshot cannot be used; nothing changed', { path, reason: message(error) })
    return
  }
  const plan = planReload(store.current, file, Date.now())
  if (!plan.ok) {
    log.error('reload: --snapshot cannot be used; nothing changed', {
      path,
      reason: plan.error,
      ...(Object.keys(plan.unreadableGroups).length > 0 ? { unreadableGroups: plan.unreadableGroups } : {}),
      ...(plan.examples.length > 0 ? { examples: plan.examples } : {}),
    })
    return
  }
  if (plan.warning) log.warn(plan.warning.message, plan.warning.fields)
  if (Object.keys(plan.unreadableGroups).length > 0) {
    log.warn('reload: files of --snapshot that cannot be read; their groups keep what they had', { path, unreadableGroups: plan.unreadableGroups })
  }
  const skipped = Object.values(plan.invalidByGroup).reduce((a, b) => a + b, 0)
  if (skipped > 0) log.warn('reload: skipped invalid element sets', { path, count: skipped, byGroup: plan.invalidByGroup, examples: plan.examples })
  logRefusedSets(log, 'reload', plan.refused, { path })
  if (!plan.catalog) {
    log.info('reload: --snapshot brings nothing new; nothing swapped', { path, ...plan.changes })
    return
  }
  store.swap(plan.catalog)
  log.info('reload: catalogue replaced', { path, ...plan.changes })
  warnIfStale(store.current, Date.now())
  // The store serves the catalogue under the configured validity policy: warm that one.
  warmInSlices(store.current)
}

const server = app.server
stopOnSignals({
  target: {
    drain: async () => {
      // Requests already sent on keep-alive connections may still sit unread in the socket buffers
      // (the event loop was busy when the signal came): stopping now would close those connections
      // as idle and reset them. So every answer from now on says Connection: close, the loop gets a
      // moment to read what has arrived (those requests are then in flight, and waited for), and
      // only then the listener closes.
      lifecycle.draining = true
      await Bun.sleep(DRAIN_SETTLE_MS)
      return app.stop(false)
    },
    force: () => server?.stop(true),
    inFlight: () => server?.pendingRequests ?? 0,
    // Answers still being written to slow clients keep their connections, and the event loop, busy.
    settled: () => new Promise((resolve) => process.once('beforeExit', resolve)),
  },
  graceMs: config.shutdownTimeoutMs,
  beforeDrain: () => {
    refresher?.stop()
    stopTrim()
    // Live streams never end by themselves: close them so the drain does not wait out the grace period.
    app.store.streams.closeAll()
  },
  log,
})
