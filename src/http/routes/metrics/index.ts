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
import type { Gathered } from '../../../io/cluster.ts'

export const METRICS_PATH = '/metrics'

/** Quantiles of element age published (0: the newest element set, 1: the oldest). */
export const AGE_QUANTILES = [0, 0.1, 0.5, 0.9, 0.99, 1] as const

export interface RefreshCounts {
  succeeded: number
  failed: number
}

/**
 * A worker of an instance (--workers): /metrics, on whichever worker answers
 * it, shows the whole instance. Each worker's own series (requests, latencies,
 * requests in flight, process memory and CPU) carry a `worker` label (1..N;
 * `supervisor` for the supervisor's process figures); the catalogue and
 * refresh series, the same in every worker, appear once; sattrack_workers
 * counts the workers configured and listening.
 */
export interface InstanceMetrics {
  /** This worker's number (1..N). */
  worker: number
  /** Registers this worker's own families: the supervisor asks every worker for them at each scrape. */
  provide(local: () => Family[]): void
  /** Every worker's own families and the supervisor's figures; null when the supervisor did not answer. */
  gather(): Promise<Gathered | null>
  /** Requests being answered by this worker now. */
  inFlight(): number
}

export interface MetricsOptions {
  http: HttpMetrics
  refreshStatus?: () => RefreshStatus
  refreshCounts?: () => RefreshCounts
  /** When the process started, ms since 1970. */
  startedAtMs: number
  /** With --workers: the instance this process is a worker of. */
  instance?: InstanceMetrics
}

/** The samples of `families` labelled `worker="<worker>"`, merged with same-named families of other workers (in worker order). */
export function labelledByWorker(perWorker: readonly { worker: number | string; families: readonly Family[] }[]): Family[] {
  const merged = new Map<string, { name: string; help: string; type: Family['type']; samples: Family['samples'][number][] }>()
  for (const { worker, families } of perWorker) {
    for (const family of families) {
      let into = merged.get(family.name)
      if (!into) {
        into = { name: family.name, help: family.help, type: family.type, samples: [] }
        merged.set(family.name, into)
      }
      for (const sample of family.samples) into.samples.push({ ...sample, labels: { worker: String(worker), ...sample.labels } })
    }
  }
  return [...merged.values()]
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

  const inFlight = (n: number) => gauge('sattrack_http_requests_in_flight', 'Requests being answered now (this scrape included)', n)
  const buildInfo = () => gauge('sattrack_build_info', 'The version and commit of this build', 1, { version: VERSION, commit: BUILD_COMMIT })
  const answer = (families: Family[]) => new Response(render(families), { headers: { 'content-type': CONTENT_TYPE, 'cache-control': 'no-store' } })
  const { instance } = options
  // A worker's own series, which the supervisor gathers from each worker at a scrape.
  const ownFamilies = () => [...options.http.families(), inFlight(instance?.inFlight() ?? 0), ...processFamilies()]
  instance?.provide(ownFamilies)

  /** The whole instance: every worker's own series labelled by worker, the shared ones once, the supervisor's. */
  const instanceFamilies = (gathered: Gathered | null, nowMs: number): Family[] => {
    const workers = gathered?.workers.map((w) => ({ worker: w.worker, families: w.families as Family[] })) ?? [{ worker: instance!.worker, families: ownFamilies() }]
    const supervisor = gathered?.supervisor
    const supervisorFamilies: Family[] = supervisor
      ? [
          gauge('process_resident_memory_bytes', 'Resident memory size', supervisor.rssBytes),
          counter('process_cpu_seconds_total', 'User and system CPU time spent', supervisor.cpuSeconds),
          gauge('process_start_time_seconds', 'When the process started, seconds since 1970', seconds(supervisor.startedAtMs)),
        ]
      : []
    return [
      buildInfo(),
      ...labelledByWorker([...workers, { worker: 'supervisor', families: supervisorFamilies }]),
      {
        name: 'sattrack_workers',
        help: 'Worker processes of the instance: configured (--workers), and listening now',
        type: 'gauge',
        samples: [
          { labels: { state: 'configured' }, value: supervisor?.configured ?? Number.NaN },
          { labels: { state: 'listening' }, value: supervisor?.listening ?? Number.NaN },
        ],
      },
      counter('sattrack_workers_replaced_total', 'Workers started in place of one that died', supervisor?.replaced ?? Number.NaN),
      ...catalogFamilies(store.current, nowMs),
      ...refreshFamilies(),
    ]
  }

  return new Elysia({ name: 'metrics' }).get(
    METRICS_PATH,
    ({ server }) => {
      const nowMs = clock()
      if (instance) return instance.gather().then((gathered) => answer(instanceFamilies(gathered, clock())))
      return answer([
        buildInfo(),
        ...options.http.families(),
        inFlight(server?.pendingRequests ?? 1),
        ...catalogFamilies(store.current, nowMs),
        ...refreshFamilies(),
        ...processFamilies(),
      ])
    },
    { detail: { hide: true } },
  )
}
