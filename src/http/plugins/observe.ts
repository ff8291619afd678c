/**
 * Watches every request once it is answered: counts it and its latency for
 * /metrics (labelled by route pattern, never by raw path), and writes the
 * access-log line when `--access-log` is on (no query string, no client address).
 */
import { Elysia, StatusMap } from 'elysia'
import { monotonicMs } from '../../io/clock.ts'
import { log as defaultLog } from '../../io/log.ts'
import { percentDecoded, requestPath } from './edge.ts'
import { CounterVec, type Family, HistogramVec } from './prometheus.ts'

/** Latency buckets, seconds: sub-millisecond cached answers up to multi-second catalogue-wide ones. */
export const LATENCY_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const

/** The route label of a request no route matched (404, 405, and requests refused before routing: 400, 414, 429). */
export const UNMATCHED_ROUTE = 'unmatched'

const KNOWN_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'])
/** The longest path the access log writes out; longer ones are cut (URLs may reach 8 KB). */
const MAX_LOGGED_PATH = 1024
/**
 * Routes whose path, not only their query, holds an observer's place or an API key (the
 * N2YO-compatible routes: `…/{observer_lat}/{observer_lng}/…&apiKey=K`; wheretheiss.at's
 * `/v1/coordinates/{lat},{lon}`): the access log writes their route pattern instead.
 */
const PRIVATE_PATH_ROUTE = /\/:(observer_lat|coordinates)(\/|$)|\/rest\/v1\/satellite\/(\*|tle\/:id)$/
/**
 * The prefixes of those routes' paths: a path under one that matched none of them (a near-miss such as
 * `/v1/coordinates/48.85,2.35/x`, another case, doubled slashes, the family switched off) is written as
 * the prefix and `…`, since what follows may hold the place or the key all the same.
 */
const PRIVATE_PATH_PREFIXES = ['/rest/v1/satellite/', '/v1/coordinates/'] as const

/** A path as the router might have read it, to compare with the prefixes: escapes decoded, lower case, single slashes. */
function loosely(path: string): string {
  return (percentDecoded(path) ?? path).toLowerCase().replace(/\/{2,}/g, '/')
}

/** What the access log writes for a request's path: the route pattern or the prefix of a route that carries a place or a key, else the path (cut when long). */
export function loggedPath(route: string, path: string): string {
  if (PRIVATE_PATH_ROUTE.test(route)) return route
  const near = loosely(path)
  const prefix = PRIVATE_PATH_PREFIXES.find((p) => near.startsWith(p))
  if (prefix !== undefined) return `${prefix}…`
  return path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}…` : path
}

/** Request counts and latencies, labelled so that the number of series stays bounded. */
export class HttpMetrics {
  readonly requests = new CounterVec('sattrack_http_requests_total', 'HTTP requests answered, by method, route pattern and status', [
    'method',
    'route',
    'status',
  ])
  readonly latency = new HistogramVec(
    'sattrack_http_request_duration_seconds',
    'Time from receiving a request to handing its answer to the server, by route pattern',
    ['route'],
    LATENCY_BUCKETS_S,
  )

  record(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc([KNOWN_METHODS.has(method) ? method : 'other', route, String(status)])
    this.latency.observe([route], seconds)
  }

  families(): Family[] {
    return [this.requests.family(), this.latency.family()]
  }
}

interface Logger {
  access(msg: string, fields: Record<string, unknown>): void
}

export interface ObserveOptions {
  /** Where counts go; none: nothing is counted. */
  metrics?: HttpMetrics
  accessLog: boolean
  log?: Logger
}

/** The status a request was answered with: a returned Response's own, else what the handler or error set. */
function statusOf(response: unknown, status: number | string | undefined): number {
  if (response instanceof Response) return response.status
  if (typeof status === 'number') return status
  if (typeof status === 'string') return (StatusMap as Record<string, number>)[status] ?? 200
  return 200
}

/** Where the app reports an answer it gives before routing (a CORS preflight): no after-response hook sees those. */
export interface EarlyAnswers {
  count?: (request: Request, route: string, status: number) => void
  /**
   * Requests answered by handing a copy to the app (no usable Host: see createApp): the copy is
   * observed and counted, the original is not, so each answer counts once.
   */
  relayed: WeakSet<Request>
}

export function observe({ metrics, accessLog, log = defaultLog, early }: ObserveOptions & { early?: EarlyAnswers }) {
  const startedAt = new WeakMap<Request, number>()
  const account = (request: Request, route: string, status: number, path: string, started: number | undefined) => {
    const seconds = started === undefined ? 0 : (monotonicMs() - started) / 1000
    metrics?.record(request.method, route, status, seconds)
    if (accessLog) {
      log.access('request', {
        method: request.method,
        path: loggedPath(route, path),
        route,
        status,
        durationMs: Math.round(seconds * 1e5) / 100,
      })
    }
  }
  if (early) early.count = (request, route, status) => account(request, route, status, requestPath(request.url), undefined)
  return new Elysia({ name: 'observe' })
    .onRequest(({ request }) => {
      startedAt.set(request, monotonicMs())
    })
    .onAfterResponse({ as: 'global' }, ({ request, route, set, response }) => {
      if (early?.relayed.has(request)) return
      // The path as the client sent it, read from the request itself: Elysia's `path` is cut from a fixed
      // offset, which a URL without an authority (Bun's, for a Host it cannot read) leaves a few characters short.
      account(request, route || UNMATCHED_ROUTE, statusOf(response, set.status), requestPath(request.url), startedAt.get(request))
    })
}
