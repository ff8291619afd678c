/**
 * What the service tells about its background refresh (GET /api/v1/service/status,
 * /metrics): the shape, and the answer when refresh is off. The refresh itself
 * (network, clock, timers) is in src/io/refresh.ts.
 */
import type { ElementFormat } from './formats.ts'

/** What GET /api/v1/service/status shows under `refresh`; timestamps ISO with ms, null when not applicable. */
export interface RefreshStatus {
  enabled: boolean
  url: string | null
  intervalSeconds: number | null
  format: ElementFormat | null
  groups: string[]
  lastAttemptAt: string | null
  lastSuccessAt: string | null
  /** Why the last round failed; null when it succeeded or none ran yet. */
  lastError: string | null
  nextAttemptAt: string | null
  consecutiveFailures: number
  inProgress: boolean
  /** Why the last successful round could not be written to the data dir, or null. */
  cacheError: string | null
  /** Why each group failed in the last round (it keeps the element sets it had); empty when none did. */
  groupErrors: Record<string, string>
  /** Groups the upstream said it does not have in the last round (CelesTrak's "No GP data found"). */
  missingGroups: string[]
}

export function disabledRefreshStatus(): RefreshStatus {
  return {
    enabled: false,
    url: null,
    intervalSeconds: null,
    format: null,
    groups: [],
    lastAttemptAt: null,
    lastSuccessAt: null,
    lastError: null,
    nextAttemptAt: null,
    consecutiveFailures: 0,
    inProgress: false,
    cacheError: null,
    groupErrors: {},
    missingGroups: [],
  }
}
