/**
 * GET /metrics: the Prometheus text format. Request counts and latencies are
 * accumulated as requests are answered; the catalogue, refresh and process
 * figures are read at scrape time.
 */
import { Elysia } from 'elysia'
import type { Catalog } from '../../../domain/catalog/catalog.ts'
import { disabledRefreshStatus, type RefreshStatus } from '../../../domain/catalog/refresh.ts'
import type { HttpMetrics } from '../../plugins/observe.ts'
import { CONTENT_TYPE, type Family, quantileOfSorted, render } from '../../plugins/prometheus.ts'
import { processUsage } from '../../../io/usage.ts'
import { BUILD_COMMIT, VERSION } from '../../../io/version.ts'
import type { ModuleContext } from '../common.ts'

export const METRICS_PATH = '/metrics'

/** Quantiles of element age published (0: the newest element set, 1: the oldest). */
export const AGE_QUANTILES = [0, 0.1, 0.5, 0.9, 0.99, 1] as const

export interface RefreshCounts {
  succeeded: number
  failed: number
}

export interface MetricsOptions {
  http: HttpMetrics
  refreshStatus?: () => RefreshStatus
  refreshCounts?: () => RefreshCounts
  /** When the process started, ms since 1970. */
  startedAtMs: number
}

const seconds = (ms: number) => ms / 1000
const gauge = (name: string, help: string, value: number, labels?: Record<string, string>): Family => ({
  name,
  help,
  type: 'gauge',
  samples: [{ labels, value }],
})
const counter = (name: string, help: string, value: number): Family => ({ name, help, type: 'counter', samples: [{ value }] })

export function metricsModule({ store, clock }: ModuleContext, options: MetricsOptions) {
  const refreshStatus = options.refreshStatus ?? disabledRefreshStatus
  // Element epochs in ascending order, sorted once per catalogue.
  const sortedEpochs = new WeakMap<Catalog, Float64Array>()
  const epochsOf = (catalog: Catalog) => {
    let epochs = sortedEpochs.get(catalog)
    if (!epochs) {
      epochs = Float64Array.from(catalog.satellites, (s) => s.elements.epochMs).sort()
      sortedEpochs.set(catalog, epochs)
    }
    return epochs
  }

  const catalogFamilies = (catalog: Catalog, nowMs: number): Family[] => {
    const epochs = epochsOf(catalog)
    let sumAgeMs = 0
    for (const e of epochs) sumAgeMs += nowMs - e
    return [
      gauge('sattrack_catalog_satellites', 'Satellites in the catalogue in use', catalog.size),
      {
        name: 'sattrack_catalog_group_satellites',
        help: 'Satellites per upstream group in the catalogue in use',
        type: 'gauge',
        samples: Object.entries(catalog.groupCounts).map(([group, value]) => ({ labels: { group }, value })),
      },
      {
        name: 'sattrack_catalog_element_age_seconds',
        help: 'Age of the element sets now (time since their epoch); quantile 0 is the newest, 1 the oldest',
        type: 'summary',
        samples: [
          // Ages fall as epochs rise: the age at quantile q is the epoch at quantile 1 - q.
          ...AGE_QUANTILES.map((q) => ({ labels: { quantile: String(q) }, value: seconds(nowMs - quantileOfSorted(epochs, 1 - q)) })),
          { suffix: '_sum', value: seconds(sumAgeMs) },
          { suffix: '_count', value: epochs.length },
        ],
      },
      gauge('sattrack_catalog_loaded_timestamp_seconds', 'When the catalogue in use was loaded or swapped in', seconds(catalog.loadedAtMs)),
      gauge(
        'sattrack_catalog_obtained_timestamp_seconds',
        "When the catalogue's data was obtained upstream (a snapshot's stamp, a file's time, a fetch): its oldest group's time",
        seconds(catalog.origin.obtainedAtMs),
      ),
      gauge('sattrack_catalog_info', 'Where the catalogue in use came from (embedded, snapshot, cache, refresh)', 1, { source: catalog.origin.source }),
    ]
  }

  const refreshFamilies = (): Family[] => {
    const status = refreshStatus()
    const counts = options.refreshCounts?.() ?? { succeeded: 0, failed: 0 }
    const lastSuccessMs = status.lastSuccessAt ? Date.parse(status.lastSuccessAt) : 0
    return [
      gauge('sattrack_refresh_enabled', '1 when background refresh is configured', status.enabled ? 1 : 0),
      counter('sattrack_refresh_successes_total', 'Refresh rounds that succeeded in every group (unchanged data included)', counts.succeeded),
      counter('sattrack_refresh_failures_total', 'Refresh rounds in which a group failed (it kept its element sets)', counts.failed),
      gauge('sattrack_refresh_consecutive_failures', 'Refresh rounds failed in a row', status.consecutiveFailures),
      gauge('sattrack_refresh_last_success_timestamp_seconds', 'End of the last refresh round that took or confirmed (304) at least one group, even if others failed; 0 when none yet', seconds(lastSuccessMs)),
    ]
  }

  const processFamilies = (): Family[] => {
    const usage = processUsage()
    return [
      gauge('process_resident_memory_bytes', 'Resident memory size', usage.residentBytes),
      gauge('sattrack_js_heap_used_bytes', 'JavaScript heap in use', usage.heapUsedBytes),
      gauge('sattrack_js_heap_total_bytes', 'JavaScript heap reserved', usage.heapTotalBytes),
      gauge('sattrack_js_external_memory_bytes', 'Memory held outside the JavaScript heap (buffers)', usage.externalBytes),
      counter('process_cpu_seconds_total', 'User and system CPU time spent', usage.cpuSeconds),
      gauge('process_start_time_seconds', 'When the process started, seconds since 1970', seconds(options.startedAtMs)),
    ]
  }

  return new Elysia({ name: 'metrics' }).get(
    METRICS_PATH,
    ({ server }) => {
      const nowMs = clock()
      const families: Family[] = [
        gauge('sattrack_build_info', 'The version and commit of this build', 1, { version: VERSION, commit: BUILD_COMMIT }),
        ...options.http.families(),
        gauge('sattrack_http_requests_in_flight', 'Requests being answered now (this scrape included)', server?.pendingRequests ?? 1),
        ...catalogFamilies(store.current, nowMs),
        ...refreshFamilies(),
        ...processFamilies(),
      ]
      return new Response(render(families), { headers: { 'content-type': CONTENT_TYPE, 'cache-control': 'no-store' } })
    },
    { detail: { hide: true } },
  )
}
