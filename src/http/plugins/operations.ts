/**
 * What an operator needs around the API, as one plugin for createApp: security
 * headers, request limits (URL size, query parameters, rate limit), metrics and
 * the access log, and GET /metrics.
 */
import { Elysia } from 'elysia'
import type { RefreshStatus } from '../../domain/catalog/refresh.ts'
import type { ModuleContext } from '../routes/common.ts'
import { METRICS_PATH, metricsModule, type RefreshCounts } from '../routes/metrics/index.ts'
import { limits } from './limits.ts'
import { type EarlyAnswers, HttpMetrics, observe } from './observe.ts'
import { type RateLimit, RateLimiter } from './rate-limit.ts'
import { securityHeaders } from './security-headers.ts'

export const HEALTHCHECK_PATH = '/api/v1/service/healthcheck'

export interface OperationsOptions {
  /** One log line per request. Default: off. */
  accessLog?: boolean
  /** Count requests and serve GET /metrics. Default: on. */
  metrics?: boolean
  /** Requests per client and window; null or absent: no limit. */
  rateLimit?: RateLimit | null
  /** Identify clients by X-Forwarded-For (behind a proxy that sets it). */
  trustProxy?: boolean
  /** Refresh rounds that succeeded and failed (for /metrics). */
  refreshCounts?: () => RefreshCounts
  /** Filled in here: how the app counts and logs an answer it gives before routing. */
  early?: EarlyAnswers
}

export function operations(
  context: ModuleContext,
  options: OperationsOptions & { refreshStatus?: () => RefreshStatus; startedAtMs?: number } = {},
) {
  const http = options.metrics === false ? undefined : new HttpMetrics()
  const plugin = new Elysia({ name: 'operations' })
    // observe first: requests the limits refuse are timed, counted and logged too.
    .use(observe({ metrics: http, accessLog: options.accessLog ?? false, early: options.early }))
    .use(securityHeaders())
    .use(
      limits({
        rateLimiter: options.rateLimit ? new RateLimiter(options.rateLimit) : null,
        trustProxy: options.trustProxy,
        rateLimitExempt: [HEALTHCHECK_PATH, METRICS_PATH],
        clock: context.clock,
      }),
    )
  if (http) {
    plugin.use(
      metricsModule(context, {
        http,
        refreshStatus: options.refreshStatus,
        refreshCounts: options.refreshCounts,
        startedAtMs: options.startedAtMs ?? context.clock(),
      }),
    )
  }
  return plugin
}
