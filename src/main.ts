/** Entry of the executable: config → catalogue → server → signals. */
import { createApp } from './app.ts'
import type { Catalog } from './catalog/catalog.ts'
import { loadEmbeddedSnapshot } from './catalog/embedded.ts'
import { catalogFromSnapshot, loadSnapshotPath, type SnapshotData } from './catalog/snapshot.ts'
import { CatalogStore } from './catalog/store.ts'
import { parseConfig } from './config.ts'
import { log } from './log.ts'

const STALE_MEDIAN_AGE_DAYS = 14

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

let snapshot: SnapshotData
try {
  snapshot = config.snapshot ? await loadSnapshotPath(config.snapshot) : await loadEmbeddedSnapshot()
} catch (error) {
  console.error(`sattrack: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(2)
}
const report = catalogFromSnapshot(snapshot, config.snapshot ? 'snapshot' : 'embedded', Date.now())
const skipped = Object.values(report.invalidByGroup).reduce((a, b) => a + b, 0)
if (skipped > 0) {
  log.warn('skipped invalid element sets', { count: skipped, byGroup: report.invalidByGroup, examples: report.examples })
}
if (report.catalog.size === 0) {
  console.error(`sattrack: no valid element sets in ${snapshot.description}`)
  process.exit(2)
}

const store = new CatalogStore(report.catalog)
const app = createApp({ store, corsOrigin: config.corsOrigin })
try {
  app.listen({ port: config.port, hostname: config.host })
} catch (error) {
  console.error(`sattrack: cannot listen on ${config.host}:${config.port}: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}
logCatalog(report.catalog)
log.info('listening', { url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${app.server?.port}` })
warmInSlices(report.catalog)

function logCatalog(catalog: Catalog): void {
  const stats = catalog.epochStats(Date.now())
  log.info('catalogue loaded', {
    source: catalog.origin.source,
    from: snapshot.description,
    obtainedAt: new Date(catalog.origin.obtainedAtMs).toISOString(),
    satellites: catalog.size,
    groups: catalog.groupCounts,
  })
  if (stats && stats.medianAgeDays > STALE_MEDIAN_AGE_DAYS) {
    log.warn('element sets are stale', { medianAgeDays: Math.round(stats.medianAgeDays), limitDays: STALE_MEDIAN_AGE_DAYS })
  }
}

/** Creates SGP4 records a slice at a time after start, so no request waits behind all of them. */
function warmInSlices(catalog: Catalog, from = 0): void {
  const end = Math.min(catalog.size, from + 500)
  for (let i = from; i < end; i++) catalog.satrecAt(i)
  if (end < catalog.size) setTimeout(() => warmInSlices(catalog, end), 0)
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    log.info('stopping', { signal })
    await app.stop()
    process.exit(0)
  })
}
