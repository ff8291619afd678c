/** Entry of the executable: config → catalogue (newest of embedded, --snapshot, cache) → server → refresh → signals. */
import { createApp } from './app.ts'
import type { Catalog } from './catalog/catalog.ts'
import { loadEmbeddedSnapshot } from './catalog/embedded.ts'
import { readCache, snapshotFromCache, writeCache } from './catalog/persist.ts'
import { Refresher, warnIfStale } from './catalog/refresh.ts'
import { loadSnapshotPath } from './catalog/snapshot.ts'
import { chooseStartCatalog, type StartCandidate } from './catalog/startup.ts'
import { CatalogStore } from './catalog/store.ts'
import { parseConfig } from './config.ts'
import { log } from './log.ts'

const startedAtMs = Date.now()
const parsed = parseConfig(process.argv.slice(2), process.env)
if (parsed.kind === 'help' || parsed.kind === 'version') {
  console.log(parsed.text)
  process.exit(0)
}
if (parsed.kind === 'error') {
  console.error(`sattrack: ${parsed.message}`)
  process.exit(2)
}
const { config } = parsed
const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

const candidates: StartCandidate[] = [{ source: 'embedded', snapshot: await loadEmbeddedSnapshot() }]
if (config.snapshot) {
  try {
    candidates.push({ source: 'snapshot', snapshot: await loadSnapshotPath(config.snapshot) })
  } catch (error) {
    console.error(`sattrack: ${message(error)}`)
    process.exit(2)
  }
}
const cache = await readCache(config.dataDir)
if (cache.kind === 'ok') candidates.push({ source: 'cache', snapshot: snapshotFromCache(cache.cache, cache.path) })
if (cache.kind === 'invalid') log.warn('ignoring the cache in the data dir', { path: cache.path, reason: cache.reason })

const choice = chooseStartCatalog(candidates, Date.now())
for (const passed of choice?.rejected ?? []) {
  if (passed.source === 'snapshot') {
    console.error(`sattrack: no valid element sets in ${passed.description}`)
    process.exit(2)
  }
  log.warn(`ignoring the ${passed.source === 'cache' ? 'cache in the data dir' : 'embedded snapshot'}`, {
    path: passed.description,
    reason: passed.reason,
  })
}
if (!choice) {
  console.error('sattrack: no valid element sets in the embedded snapshot, --snapshot or the data-dir cache')
  process.exit(2)
}
const { report, candidate } = choice
const skipped = Object.values(report.invalidByGroup).reduce((a, b) => a + b, 0)
if (skipped > 0 || Object.keys(report.unreadableGroups).length > 0) {
  log.warn('skipped invalid element sets', {
    count: skipped,
    byGroup: report.invalidByGroup,
    unreadableGroups: report.unreadableGroups,
    examples: report.examples,
  })
}

const store = new CatalogStore(report.catalog)
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
      initialPayloads: candidate.source === 'cache' && cache.kind === 'ok' ? cache.cache.groups : undefined,
      onSwap: (catalog) => warmInSlices(catalog),
    })
  : null

const app = createApp({
  store,
  corsOrigin: config.corsOrigin,
  startedAtMs,
  refreshStatus: refresher ? () => refresher.status() : undefined,
  benchRoutes: config.benchRoutes,
  warm: true,
})
try {
  app.listen({ port: config.port, hostname: config.host })
} catch (error) {
  console.error(`sattrack: cannot listen on ${config.host}:${config.port}: ${message(error)}`)
  process.exit(1)
}
log.info('catalogue loaded', {
  source: report.catalog.origin.source,
  from: candidate.snapshot.description,
  obtainedAt: new Date(report.catalog.origin.obtainedAtMs).toISOString(),
  satellites: report.catalog.size,
  groups: report.catalog.groupCounts,
  candidates: candidates.map((c) => ({ source: c.source, obtainedAt: new Date(c.snapshot.stampMs).toISOString() })),
})
warnIfStale(report.catalog, Date.now())
log.info('listening', { url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${app.server?.port}` })
if (refresher) {
  log.info('refresh enabled', { url: refresher.settings.url, intervalSeconds: refresher.settings.intervalMs / 1000, groups: refresher.settings.groups, format: refresher.settings.format, dataDir: config.dataDir })
  refresher.start()
}
setTimeout(() => warmInSlices(report.catalog), 0)

/** Creates SGP4 records a slice at a time, so no request waits behind all of them; stops if the catalogue is replaced. */
function warmInSlices(catalog: Catalog, from = 0): void {
  if (store.current !== catalog) return
  const end = Math.min(catalog.size, from + 500)
  for (let i = from; i < end; i++) catalog.satrecAt(i)
  if (end < catalog.size) setTimeout(() => warmInSlices(catalog, end), 0)
  // Start-up leaves tens of MB of garbage (parsing, SGP4 initialisation): collect it once, so RSS reflects what is kept.
  else setTimeout(() => Bun.gc(true), 1000)
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    log.info('stopping', { signal })
    refresher?.stop()
    await app.stop()
    process.exit(0)
  })
}
