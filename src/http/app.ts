/** createApp: the HTTP application over a catalogue store. Never listens and does no I/O at import. */
import { freshness } from '../domain/orbit/freshness.ts'
import { Elysia } from 'elysia'
import type { RefreshStatus } from '../domain/catalog/refresh.ts'
import type { CatalogStore } from '../domain/catalog/store.ts'
import { NearbyEngine } from '../domain/nearby/engine.ts'
import type { Activity } from '../io/memory.ts'
import { soon } from '../io/schedule.ts'
import { benchModule } from './routes/bench/index.ts'
import { compatModule, compatTags } from './routes/compat/index.ts'
import { COMPAT_FAMILIES, type CompatFamily } from './routes/compat/families.ts'
import { feedModule } from './routes/feed/index.ts'
import { nearbyModule } from './routes/nearby/index.ts'
import { passesModule } from './routes/passes/index.ts'
import { skyPassesModule } from './routes/sky-passes/index.ts'
import { satellitesModule } from './routes/satellites/index.ts'
import { HEALTHCHECK_PATH, serviceModule } from './routes/service/index.ts'
import { type InstanceMetrics, METRICS_PATH, metricsModule, type RefreshCounts } from './routes/metrics/index.ts'
import { type StreamOptions, streamModule } from './routes/stream/index.ts'
import { tracksModule } from './routes/tracks/index.ts'
import { webModule } from './routes/web/index.ts'
import { docs } from './plugins/docs.ts'
import { EXPOSED_HEADERS, hostProblem, isAbsoluteUrl, requestPath, shown } from './plugins/edge.ts'
import { ApiError, errors } from './plugins/errors.ts'
import { limits, type RateBudget } from './plugins/limits.ts'
import { type EarlyAnswers, HttpMetrics, observe } from './plugins/observe.ts'
import { type RateLimit, RateLimiter } from './plugins/rate-limit.ts'
import { securityHeaders } from './plugins/security-headers.ts'
import { now } from '../io/clock.ts'
import { VERSION } from '../io/version.ts'
import { HeavyWork, type HeavyWorkOptions } from '../io/heavy-work.ts'
import { CompressionQueue } from './representations/compression.ts'
import type { ModuleContext } from './routes/common.ts'

export interface AppOptions {
  store: CatalogStore
  /** Now, ms since 1970 (tests pass a fixed clock). */
  clock?: () => number
  /** Value of Access-Control-Allow-Origin; `*` by default. */
  corsOrigin?: string
  /** The background refresh state for /service/status; refresh shows as disabled without it. */
  refreshStatus?: () => RefreshStatus
  /** When the service started, ms since 1970 (uptime); default: when the app is created. */
  startedAtMs?: number
  /** Mount the benchmark's reference routes (see src/http/routes/bench). */
  benchRoutes?: boolean
  /** Prepare the nearby engine's position tables in the background from the start. */
  warm?: boolean
  /** Access log, /metrics, request limits. */
  operations?: OperationsOptions
  /** Live position streams: the cap on open streams (default 100) and the heartbeat period (src/http/routes/stream). */
  streams?: StreamOptions
  /** Check every answer against its documented schema (default: yes; the executable turns it off, see responseSchemas). */
  checkResponses?: boolean
  /** Counts requests as they arrive (for the memory trim, src/io/memory.ts). */
  activity?: Activity
  /** Bounds on long computations (passes over days): at once, waiting, longest wait (src/io/heavy-work.ts). */
  heavyWork?: HeavyWorkOptions
  /** Set `draining` when the service is stopping: every answer from then on carries `Connection: close`. */
  lifecycle?: Lifecycle
  /** Where the modules hand their sweeps of unused caches (src/io/idle-sweep.ts); absent: caches are kept as long as their catalogue. */
  sweeps?: ModuleContext['sweeps']
  /** Other APIs' route families to answer too (src/http/routes/compat); default: all of them. */
  compat?: readonly CompatFamily[]
}

/** What an operator needs around the API: the access log, metrics and GET /metrics, the rate limit. */
export interface OperationsOptions {
  /** One log line per request. Default: off. */
  accessLog?: boolean
  /** Count requests and serve GET /metrics. Default: on. */
  metrics?: boolean
  /** Requests per client and window; null or absent: no limit. */
  rateLimit?: RateLimit | null
  /** Where the rate limit's budgets are kept when not in this process (--workers: the supervisor); `rateLimit` then only names the rate. */
  rateBudget?: RateBudget
  /** With --workers: /metrics shows every worker of the instance (see src/http/routes/metrics). */
  instance?: InstanceMetrics
  /** Identify clients by X-Forwarded-For (behind a proxy that sets it). */
  trustProxy?: boolean
  /** Refresh rounds that succeeded and failed (for /metrics). */
  refreshCounts?: () => RefreshCounts
}

export interface Lifecycle {
  draining: boolean
}

const READ_METHODS = ['GET', 'HEAD', 'OPTIONS'] as const

/** The route pattern (such as `/api/v1/satellites/:noradId`) a request path matches, or undefined. */
function pathMatcher(patterns: readonly string[]): (path: string) => string | undefined {
  const regexes = [...new Set(patterns)].map(
    (p) => [p, new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}/?$`)] as const,
  )
  return (path) => regexes.find(([, r]) => r.test(path))?.[0]
}

export function createApp({ store, clock = now, corsOrigin = '*', refreshStatus, startedAtMs, benchRoutes = false, warm = false, operations: ops = {}, streams = {}, checkResponses = true, activity, lifecycle, heavyWork, compat = COMPAT_FAMILIES, sweeps }: AppOptions) {
  let routeOf: ((path: string) => string | undefined) | undefined
  const patternOf = (path: string) => {
    routeOf ??= pathMatcher(app.routes.map((r) => r.path))
    return routeOf(path)
  }
  const methodsFor = (path: string) => (patternOf(path) === undefined ? null : READ_METHODS)
  const early: EarlyAnswers = { relayed: new WeakSet() }
  // Joined once: every answer carries it.
  const exposedHeaders = EXPOSED_HEADERS.join(', ')
  const httpMetrics = ops.metrics === false ? undefined : new HttpMetrics()
  const context: ModuleContext = { store, clock, checkResponses, heavy: new HeavyWork(heavyWork), compression: new CompressionQueue(), sweeps }
  const relay = (request: Request): Promise<Response> => app.handle(request)
  // One nearby engine (and its position tables) for /nearby and the compatible routes that search the sky.
  const engine = new NearbyEngine({ defer: soon })
  sweeps?.add(() => engine.sweep(store.current))

  // normalize off: an answer is sent as the handler built it, whether or not its schema is checked.
  // standardHostname off: the router reads the path after the authority however short the Host is
  // (with the default, a 1-3 character Host made it read from a fixed offset inside the path).
  const app = new Elysia({ normalize: false, handler: { standardHostname: false } })
    // First: every answer carries them, those given before routing (refusals, preflights) included.
    .use(securityHeaders())
    // Stopping: an answer completed from now on (a request that was in flight when the stop began
    // included) tells the client the connection ends with it, error or not; Bun then closes it.
    .onError({ as: 'global' }, ({ set }) => {
      if (lifecycle?.draining) set.headers.connection = 'close'
    })
    .use(errors({ methodsFor }))
    .onRequest(({ request, set }) => {
      const host = request.headers.get('host')
      if (!host && !isAbsoluteUrl(request.url)) {
        // No Host (HTTP/1.0) or an empty one: Bun hands over the bare request target, which the
        // router cannot read. A copy naming this host is answered instead (and counted, once).
        early.relayed.add(request)
        const answer: Promise<Response> = relay(new Request(`http://localhost${request.url}`, { method: request.method, headers: request.headers, signal: request.signal }))
        return answer
      }
      if (activity) activity.requests++
      // Defaults every answer carries (a Response with its own content-type keeps it).
      set.headers.date = new Date(now()).toUTCString()
      set.headers['access-control-allow-origin'] = corsOrigin
      set.headers['access-control-expose-headers'] = exposedHeaders
      if (corsOrigin !== '*') set.headers.vary = 'Origin'
      set.headers['content-type'] = 'application/json; charset=utf-8'
      // Stopping: the client is told the connection ends with this answer (Bun then closes it).
      if (lifecycle?.draining) set.headers.connection = 'close'
      const problem = host === null ? null : hostProblem(host)
      if (problem !== null || (host && !isAbsoluteUrl(request.url))) {
        throw new ApiError(400, `invalid Host header "${shown(host!)}": ${problem ?? 'it must be a host name or address, optionally followed by :port'}`)
      }
      // A preflight on a known path is answered here, with no body and so no content type; anything else
      // (an OPTIONS on an unknown path too: a 404 from the router) defaults to JSON.
      const route = request.method === 'OPTIONS' ? patternOf(requestPath(request.url)) : undefined
      if (route === undefined) return
      delete set.headers['content-type']
      // The headers already set (security headers among them) are added to these.
      const headers: Record<string, string> = {
        allow: READ_METHODS.join(', '),
        'access-control-allow-origin': corsOrigin,
        'access-control-allow-methods': READ_METHODS.join(', '),
        'access-control-max-age': '86400',
      }
      const asked = request.headers.get('access-control-request-headers')
      if (asked) headers['access-control-allow-headers'] = asked
      if (lifecycle?.draining) headers.connection = 'close'
      early.count?.(request, route, 204)
      return new Response(null, { status: 204, headers })
    })
    .onAfterHandle({ as: 'global' }, ({ set }) => {
      if (lifecycle?.draining) set.headers.connection = 'close'
    })
    // observe first: requests the limits refuse are timed, counted and logged too.
    .use(observe({ metrics: httpMetrics, accessLog: ops.accessLog ?? false, early }))
    .use(
      limits({
        rateLimiter: ops.rateLimit ? (ops.rateBudget ?? new RateLimiter(ops.rateLimit)) : null,
        trustProxy: ops.trustProxy,
        rateLimitExempt: [HEALTHCHECK_PATH, METRICS_PATH],
        clock,
      }),
    )
    .use(
      docs(
        VERSION,
        () => {
          // The same words as the status endpoint, the page and the start log: what the data is, and when stale what that means and what to do.
          const { summary, advice } = freshness(store.current, clock(), { refreshing: refreshStatus?.().enabled ?? false })
          return advice === null ? summary : `${summary} ${advice}`
        },
        context.compression,
        compatTags(compat),
      ),
    )
    .use(satellitesModule(context))
    .use(nearbyModule(context, { warm, engine }))
    .use(passesModule(context))
    .use(skyPassesModule(context))
    .use(tracksModule(context))
    .use(streamModule(context, { trustProxy: ops.trustProxy, ...streams }))
    .use(feedModule(context))
    .use(serviceModule(context, { refreshStatus, startedAtMs }))
    .use(webModule(context))
    .use(compatModule(context, { families: compat, engine }))
  if (httpMetrics) {
    app.use(metricsModule(context, { http: httpMetrics, refreshStatus, refreshCounts: ops.refreshCounts, startedAtMs: startedAtMs ?? clock(), instance: ops.instance }))
  }
  if (benchRoutes) app.use(benchModule(context))
  return app
}

export type App = ReturnType<typeof createApp>
