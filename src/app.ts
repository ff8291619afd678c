/** createApp: the HTTP application over a catalogue store. Never listens and does no I/O at import. */
import { freshness } from './orbit/freshness.ts'
import { Elysia } from 'elysia'
import type { RefreshStatus } from './catalog/refresh.ts'
import type { CatalogStore } from './catalog/store.ts'
import type { Activity } from './memory.ts'
import { benchModule } from './modules/bench/index.ts'
import { feedModule } from './modules/feed/index.ts'
import { nearbyModule } from './modules/nearby/index.ts'
import { passesModule } from './modules/passes/index.ts'
import { satellitesModule } from './modules/satellites/index.ts'
import { serviceModule } from './modules/service/index.ts'
import { type StreamOptions, streamModule } from './modules/stream/index.ts'
import { tracksModule } from './modules/tracks/index.ts'
import { webModule } from './modules/web/index.ts'
import { docs } from './plugins/docs.ts'
import { errors } from './plugins/errors.ts'
import { type OperationsOptions, operations } from './plugins/operations.ts'
import { VERSION } from './version.ts'

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
  /** Mount the benchmark's reference routes (see src/modules/bench). */
  benchRoutes?: boolean
  /** Prepare the nearby engine's position tables in the background from the start. */
  warm?: boolean
  /** Access log, /metrics, request limits, security headers (src/plugins/operations.ts). */
  operations?: OperationsOptions
  /** Live position streams: the cap on open streams (default 100) and the heartbeat period (src/modules/stream). */
  streams?: StreamOptions
  /** Check every answer against its documented schema (default: yes; the executable turns it off, see responseSchemas). */
  checkResponses?: boolean
  /** Counts requests as they arrive (for the memory trim, src/memory.ts). */
  activity?: Activity
}

const READ_METHODS = ['GET', 'HEAD', 'OPTIONS'] as const

/** Matches a request path against route patterns such as `/api/v1/satellites/:noradId`. */
function pathMatcher(patterns: readonly string[]): (path: string) => boolean {
  const regexes = [...new Set(patterns)].map(
    (p) => new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}/?$`),
  )
  return (path) => regexes.some((r) => r.test(path))
}

export function createApp({ store, clock = Date.now, corsOrigin = '*', refreshStatus, startedAtMs, benchRoutes = false, warm = false, operations: ops = {}, streams = {}, checkResponses = true, activity }: AppOptions) {
  let isKnownPath: ((path: string) => boolean) | undefined
  const methodsFor = (path: string) => {
    isKnownPath ??= pathMatcher(app.routes.map((r) => r.path))
    return isKnownPath(path) ? READ_METHODS : null
  }
  const context = { store, clock, checkResponses }

  // normalize off: an answer is sent as the handler built it, whether or not its schema is checked.
  const app = new Elysia({ normalize: false })
    .use(errors({ methodsFor }))
    .onRequest(({ request, set }) => {
      if (activity) activity.requests++
      // Defaults every answer carries (a Response with its own content-type keeps it).
      set.headers.date = new Date().toUTCString()
      set.headers['access-control-allow-origin'] = corsOrigin
      if (corsOrigin !== '*') set.headers.vary = 'Origin'
      // A preflight on a known path is answered here, with no body and so no content type; anything else
      // (an OPTIONS on an unknown path too: a 404 from the router) defaults to JSON.
      if (request.method !== 'OPTIONS' || !methodsFor(new URL(request.url).pathname)) {
        set.headers['content-type'] = 'application/json; charset=utf-8'
        return
      }
      const headers: Record<string, string> = {
        // Answered before the security-headers hook runs, so they are set here too.
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        allow: READ_METHODS.join(', '),
        'access-control-allow-origin': corsOrigin,
        'access-control-allow-methods': READ_METHODS.join(', '),
        'access-control-max-age': '86400',
      }
      const asked = request.headers.get('access-control-request-headers')
      if (asked) headers['access-control-allow-headers'] = asked
      return new Response(null, { status: 204, headers })
    })
    .use(operations(context, { ...ops, refreshStatus, startedAtMs }))
    .use(docs(VERSION, freshness(store.current, clock()).summary))
    .use(satellitesModule(context))
    .use(nearbyModule(context, { warm }))
    .use(passesModule(context))
    .use(tracksModule(context))
    .use(streamModule(context, streams))
    .use(feedModule(context))
    .use(serviceModule(context, { refreshStatus, startedAtMs }))
    .use(webModule(context))
  if (benchRoutes) app.use(benchModule(context))
  return app
}

export type App = ReturnType<typeof createApp>
