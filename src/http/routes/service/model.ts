/** Schemas and JSON shapes of the service endpoints: healthcheck and status. */
import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import type { Catalog } from '../../../domain/catalog/catalog.ts'
import type { RefreshStatus } from '../../../domain/catalog/refresh.ts'
import { freshness } from '../../../domain/orbit/freshness.ts'
import { iso } from '../satellites/model.ts'

const isoOrNull = (description: string) => t.Nullable(t.String({ format: 'date-time', description }))

export const HealthSchema = t.Object({ message: t.Literal('OK') })

export const CatalogStatusSchema = t.Object(
  {
    source: t.Union([t.Literal('embedded'), t.Literal('snapshot'), t.Literal('cache'), t.Literal('refresh')], {
      description: 'Where the catalogue in use came from',
    }),
    satellites: Type.Integer({ description: 'Satellites in the catalogue' }),
    groups: t.Record(t.String(), Type.Integer(), { description: 'Satellites per upstream group' }),
    loadedAt: t.String({ format: 'date-time', description: 'When this catalogue was loaded or swapped in' }),
    obtainedAt: t.String({
      format: 'date-time',
      description: "When its data was obtained upstream (a snapshot's stamp, a file's time, a fetch): its oldest group's time, so all it serves is at least that fresh",
    }),
    groupsObtainedAt: t.Record(t.String(), t.String({ format: 'date-time' }), { description: 'When each group was obtained upstream' }),
    epochs: t.Object({
      oldest: isoOrNull('The oldest element-set epoch'),
      newest: isoOrNull('The newest element-set epoch'),
      medianAgeDays: t.Nullable(t.Number({ description: 'Median element age now, days' })),
    }),
    freshness: t.Object(
      {
        obtainedAt: t.String({ format: 'date-time', description: 'When the data was obtained upstream: its oldest group' }),
        newestObtainedAt: t.String({ format: 'date-time', description: 'When its newest group was obtained' }),
        oldestGroups: t.Array(t.String(), { description: 'The groups obtained at obtainedAt, when the groups were obtained at different times (else empty)' }),
        dataAgeDays: t.Number({ description: 'Days since obtainedAt: the age of the oldest data served' }),
        maxElementAgeDays: t.Nullable(t.Number({ description: 'The age limit on element sets, days (--max-element-age); null: none' })),
        withinAgeLimit: Type.Integer({ description: 'Satellites whose elements can give a position now: within the age limit and not decayed' }),
        decayed: Type.Integer({ description: 'Satellites decayed by now' }),
        stale: t.Boolean({ description: 'The oldest data, or its elements (their median epoch), are over 14 days old, or fewer than half the satellites can give a position now' }),
        summary: t.String({ description: "The data's date and age, and what it means for positions now" }),
        dataTime: t.String({
          format: 'date-time',
          description: "The data's own time, to the minute: the median of the element sets' epochs (a file's time may be months after its elements')",
        }),
        advice: t.Nullable(t.String({ description: 'When stale: how to load newer data, or look at the sky at dataTime; when the clock is before the elements: to set it' })),
      },
      { description: "The data's age now and what it means: the same text as the page and the start log" },
    ),
  },
  { description: 'The catalogue in use' },
)

export const RefreshStatusSchema = t.Object(
  {
    enabled: t.Boolean({ description: 'Whether background refresh is configured' }),
    url: t.Nullable(t.String({ description: 'The GP endpoint (GROUP and FORMAT are added)' })),
    intervalSeconds: t.Nullable(t.Number({ description: 'Time between successful rounds' })),
    format: t.Nullable(t.String({ description: 'FORMAT asked for: json, csv or tle' })),
    groups: t.Array(t.String(), { description: 'Groups fetched in each round' }),
    lastAttemptAt: isoOrNull('Start of the last round'),
    lastSuccessAt: isoOrNull('End of the last round that took or confirmed (304) at least one group, even if others failed: when the upstream last gave data'),
    lastError: t.Nullable(t.String({ description: 'Why the last round failed; null when it succeeded' })),
    nextAttemptAt: isoOrNull('When the next round is due (after failures: from a minute, doubling, up to the interval, or a Retry-After)'),
    consecutiveFailures: Type.Integer({ description: 'Failed rounds in a row' }),
    inProgress: t.Boolean({ description: 'A round is running' }),
    cacheError: t.Nullable(t.String({ description: 'Why the last success could not be written to the data dir' })),
    groupErrors: t.Record(t.String(), t.String(), { description: 'Why each group failed in the last round (it keeps the element sets it had)' }),
    missingGroups: t.Array(t.String(), { description: 'Groups the upstream says it does not have (the others are refreshed)' }),
  },
  { description: 'Background refresh' },
)

export const StatusSchema = t.Object({
  version: t.String(),
  uptimeSeconds: Type.Integer(),
  catalog: CatalogStatusSchema,
  refresh: RefreshStatusSchema,
})


export function catalogStatusJson(catalog: Catalog, nowMs: number, refreshing = false) {
  const stats = catalog.epochStats(nowMs)
  return {
    source: catalog.origin.source,
    satellites: catalog.size,
    groups: { ...catalog.groupCounts },
    loadedAt: iso(catalog.loadedAtMs),
    obtainedAt: iso(catalog.origin.obtainedAtMs),
    groupsObtainedAt: Object.fromEntries(Object.keys(catalog.groupCounts).map((g) => [g, iso(catalog.origin.groupsObtainedAtMs?.[g] ?? catalog.origin.obtainedAtMs)])),
    epochs: {
      oldest: stats ? iso(stats.oldestMs) : null,
      newest: stats ? iso(stats.newestMs) : null,
      medianAgeDays: stats ? Math.round(stats.medianAgeDays * 1000) / 1000 : null,
    },
    freshness: freshness(catalog, nowMs, { refreshing }),
  }
}

export function statusJson(options: { version: string; uptimeMs: number; catalog: Catalog; nowMs: number; refresh: RefreshStatus }) {
  return {
    version: options.version,
    uptimeSeconds: Math.max(0, Math.floor(options.uptimeMs / 1000)),
    catalog: catalogStatusJson(options.catalog, options.nowMs, options.refresh.enabled),
    refresh: options.refresh,
  }
}
