/** Service endpoints: the healthcheck and the status (catalogue freshness, refresh state). */
import { Elysia } from 'elysia'
import { disabledRefreshStatus, type RefreshStatus } from '../../../domain/catalog/refresh.ts'
import { VERSION } from '../../../io/version.ts'
import { type ModuleContext, responseSchemas } from '../common.ts'
import { ErrorSchema } from '../satellites/model.ts'
import { HealthSchema, StatusSchema, statusJson } from './model.ts'

/** The probe path (exempt from the rate limit). */
export const HEALTHCHECK_PATH = '/api/v1/service/healthcheck'

export interface ServiceOptions {
  /** The refresh state; refresh is reported as disabled without it. */
  refreshStatus?: () => RefreshStatus
  /** When the service started, ms since 1970 (for uptimeSeconds); default: when the module was created. */
  startedAtMs?: number
}

export function serviceModule(context: ModuleContext, options: ServiceOptions = {}) {
  const { store, clock } = context
  const startedAtMs = options.startedAtMs ?? clock()
  const refreshStatus = options.refreshStatus ?? disabledRefreshStatus
  return new Elysia({ name: 'service', prefix: '/api/v1/service' })
    .get(
      '/healthcheck',
      ({ set }) => {
        if (store.current.size === 0) {
          set.status = 503
          return { message: 'no catalogue loaded', statusCode: 503 }
        }
        return { message: 'OK' as const }
      },
      {
        response: responseSchemas(context, { 200: HealthSchema, 503: ErrorSchema }),
        detail: { tags: ['service'], summary: 'Health check', description: '200 {"message": "OK"} while the service answers from a loaded catalogue.' },
      },
    )
    .get(
      '/status',
      ({ set }) => {
        const nowMs = clock()
        set.headers['cache-control'] = 'no-store'
        return statusJson({ version: VERSION, uptimeMs: nowMs - startedAtMs, catalog: store.current, nowMs, refresh: refreshStatus() })
      },
      {
        response: responseSchemas(context, { 200: StatusSchema }),
        detail: {
          tags: ['service'],
          summary: 'Service status: catalogue freshness and refresh',
          description:
            'Version, uptime, where the catalogue came from (embedded, snapshot, cache or refresh), its size per group, ' +
            'its oldest, newest and median element age, and the background refresh: last attempt, success and error, next attempt. ' +
            'Timestamps are ISO 8601 UTC with milliseconds, null when not applicable.',
        },
      },
    )
}
