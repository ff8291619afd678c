/** Parameters and helpers shared by the resource modules. */
import { HeavyWork } from '../../io/heavy-work.ts'
import type { CompressionQueue } from '../representations/compression.ts'
import { type TSchema, t } from 'elysia'
import type { Catalog, Satellite } from '../../domain/catalog/catalog.ts'
import { MAX_NORAD_ID } from '../../domain/catalog/omm.ts'
import type { CatalogStore } from '../../domain/catalog/store.ts'
import { dataTimeMs } from '../../domain/orbit/freshness.ts'
import { DEFAULT_MAGNITUDE_LIMIT, MAX_MAGNITUDE_LIMIT, MIN_MAGNITUDE_LIMIT } from '../../domain/orbit/magnitude.ts'
import { recentPositionAt } from '../../domain/orbit/recent-positions.ts'
import { dopplerShiftHz } from '../../domain/orbit/radio.ts'
import { describeLimit } from '../../domain/orbit/validity.ts'
import { ApiError } from '../plugins/errors.ts'
import { type NumberParam, TIME_MAX_MS, type TimeParam, unchecked } from '../plugins/params.ts'

/** What every module needs from the application: the catalogue and the clock. */
export interface ModuleContext {
  store: CatalogStore
  /** Now, in ms since 1970; the only clock the routes read. */
  clock: () => number
  /** Check every answer against its route's response schema (default: yes; see responseSchemas). */
  checkResponses?: boolean
  /** Where long computations run, a slice at a time and a few at once (src/io/heavy-work.ts). */
  heavy: HeavyWork
  /** The one queue every answer's compression waits in (src/http/representations/compression.ts). */
  compression: CompressionQueue
  /**
   * Where a module hands the function that lets go of what its answers stopped
   * using (cached answers, tables); the service runs them every so often
   * (src/io/idle-sweep.ts). Absent: kept as long as the catalogue.
   */
  sweeps?: { add(sweep: () => void): void }
}

/**
 * A route's response schemas: always in the OpenAPI document; checked against
 * every answer (a mismatch is a logged 500) unless the app runs with
 * `checkResponses: false`. The executable turns the check off (it costs more
 * than building a small answer); the test suite runs every request with it on.
 */
export function responseSchemas<R extends Record<number, TSchema>>({ checkResponses = true }: ModuleContext, schemas: R): R {
  if (checkResponses) return schemas
  return Object.fromEntries(Object.entries(schemas).map(([status, schema]) => [status, unchecked({ ...schema })])) as R
}

export const noradIdParam = {
  type: 'integer',
  min: 1,
  max: MAX_NORAD_ID,
  required: true,
  description: 'NORAD catalog number',
} as const satisfies NumberParam

export const timeParam = {
  type: 'time',
  description: 'The instant to compute for: ISO 8601 with a zone (Z or ±hh:mm), 1957-10-04..2100-01-01. Default: now.',
} as const satisfies TimeParam

/** The faintest apparent magnitude counted as visible to the naked eye (routes with `visible`). */
export const magnitudeLimitParam = {
  type: 'number',
  min: MIN_MAGNITUDE_LIMIT,
  max: MAX_MAGNITUDE_LIMIT,
  default: DEFAULT_MAGNITUDE_LIMIT,
  description: `The faintest estimated apparent magnitude counted as visible to the naked eye (larger is fainter). Default ${DEFAULT_MAGNITUDE_LIMIT}: a magnitude inside the naked-eye limit of suburban skies (Bortle classes 5-7: 4.5-6.0), the margin covering the ±1 uncertainty of the estimates. ${MIN_MAGNITUDE_LIMIT}..${MAX_MAGNITUDE_LIMIT}.`,
} as const satisfies NumberParam

/** A radio frequency for Doppler shifts (routes with look angles). */
export const frequencyParam = {
  type: 'number',
  min: 0.001,
  max: 300_000,
  unit: 'MHz',
  description:
    'A frequency the satellite transmits on, MHz (0.001..300000, e.g. 145.8 or 437.8): every look angle then also carries `dopplerShiftHz`, the shift of that signal as the observer receives it (-f·rangeRate/c).',
} as const satisfies NumberParam

/** `rangeRate` (km/s) of a look angle, and `dopplerShiftHz` when a frequency (MHz) was asked for. */
export function radioJson(rangeRateKmS: number, frequencyMHz: number | undefined): { rangeRate: number; dopplerShiftHz?: number } {
  return frequencyMHz === undefined ? { rangeRate: rangeRateKmS } : { rangeRate: rangeRateKmS, dopplerShiftHz: dopplerShiftHz(frequencyMHz * 1e6, rangeRateKmS) }
}

/** The schema fields `radioJson` fills; `precision`: what a route rounds them to, said after each description (/nearby). */
export function radioSchemaFields(precision?: { rangeRate: string; dopplerShiftHz: string }) {
  const to = (field: keyof NonNullable<typeof precision>) => (precision ? `, to ${precision[field]}` : '')
  return {
    rangeRate: t.Number({ description: `How fast the distance from the observer grows, km/s: positive while the satellite moves away, negative while it approaches${to('rangeRate')}` }),
    dopplerShiftHz: t.Optional(
      t.Number({ description: `With \`frequency\`: the shift (Hz) of a signal sent at that frequency, as the observer receives it (-f·rangeRate/c; add it to the frequency to tune)${to('dopplerShiftHz')}` }),
    ),
  }
}

export const observerParams = {
  latitude: { type: 'number', min: -90, max: 90, required: true, description: 'Observer latitude, degrees (WGS84)' },
  longitude: { type: 'number', min: -180, max: 180, required: true, description: 'Observer longitude, degrees, east positive' },
  altitude: {
    type: 'number',
    min: -1000,
    max: 100_000,
    default: 0,
    unit: 'metres',
    description: 'Observer height above the WGS84 ellipsoid, metres',
  },
} as const satisfies Record<string, NumberParam>

/** The instant a request asks for (`time`), or now. */
export function instantOf(time: string | undefined, clock: () => number): Date {
  return time === undefined ? new Date(clock()) : new Date(time)
}

/**
 * Where a span of `lengthMs` from `startMs` ends (a search for passes, a
 * track): no later than the last instant `time` accepts (2100-01-01), so that
 * no answer holds an instant the API would refuse as a parameter, and never
 * before its start (a clock past 2100). The answer's metadata shows the end
 * searched.
 */
export function spanEndMs(startMs: number, lengthMs: number): number {
  return Math.max(startMs, Math.min(startMs + lengthMs, TIME_MAX_MS))
}

/** The satellite with this catalog number, or a 404. */
export function findSatellite(catalog: Catalog, noradId: number): Satellite {
  const satellite = catalog.get(noradId)
  if (!satellite) throw new ApiError(404, `satellite ${noradId} is not in the catalogue`)
  return satellite
}

/**
 * The 422 of a span of time with no position anywhere in it (a track, a pass
 * search): `reason` is why its start has none, said at that instant (its words
 * say "at this instant").
 */
export function noPositionBetween(noradId: number, startMs: number, endMs: number, reason: string | null): ApiError {
  const start = new Date(startMs).toISOString()
  return new ApiError(422, `satellite ${noradId} has no valid position between ${start} and ${new Date(endMs).toISOString()}: at ${start}, ${reason ?? 'no position'}`)
}

/** The satellite's position at `instant`, or a 422 that says why there is none. */
export function requirePosition(catalog: Catalog, satellite: Satellite, instant: Date) {
  const result = recentPositionAt(catalog, satellite, instant)
  if (!result.ok) {
    throw new ApiError(422, `satellite ${satellite.noradId} has no valid position at ${instant.toISOString()}: ${result.reason}`)
  }
  return result.state
}

/**
 * What to do when most satellites are left out at an instant (the notices of
 * /nearby and /passes): newer data when the instant is after the data's own
 * time, data of then when before (the refresh and `make snapshot` only fetch
 * today's), a time near the data's, or another age limit (when `ageLimited`:
 * the age limit is among the reasons).
 */
export function leftOutAdvice(catalog: Catalog, instantMs: number, ageLimited: boolean): string {
  const dataMs = dataTimeMs(catalog)
  const load =
    instantMs >= dataMs
      ? 'Load newer data (--snapshot, --refresh-url, make snapshot)'
      : "Load element sets from around that time (--snapshot; the refresh and make snapshot fetch today's)"
  const near = `ask for a time near the data's (time=${new Date(dataMs).toISOString()})`
  return ageLimited ? `${load}, ${near}, or change --max-element-age.` : `${load} or ${near}.`
}

/**
 * When at least half of what was asked about (the catalogue, or `size` satellites
 * `named` so) is left out at `instantMs` (elements too old, or decayed): why, and what
 * to do (`advice`, by default leftOutAdvice's); else null. The age is said to be
 * `from` the instant, or from what the caller names instead ("the searched time").
 */
export function leftOutNotice(
  catalog: Catalog,
  leftOut: { elementAge: number; decayed: number },
  instantMs: number,
  {
    from = new Date(instantMs).toISOString(),
    size = catalog.size,
    named = '',
    advice = (ageLimited) => leftOutAdvice(catalog, instantMs, ageLimited),
  }: { from?: string; size?: number; named?: string; advice?: (ageLimited: boolean) => string } = {},
): string | null {
  const out = leftOut.elementAge + leftOut.decayed
  if (out * 2 < size || size === 0) return null
  const maxAgeMs = catalog.validity.policy.maxElementAgeMs
  // The age limit is worth changing only when it is among the reasons (not when every one left out has decayed).
  const ageLimited = leftOut.elementAge > 0 && maxAgeMs !== null
  // Before some satellite's launch year (validity.ts), some of those counted by age may be left out for that instead.
  const launchedLater = instantMs < catalog.validity.latestLaunchYearStartMs
  const byAge =
    leftOut.elementAge === 0
      ? null
      : maxAgeMs === null
        ? `${leftOut.elementAge} were launched in a later year (as their international designators say)`
        : `${leftOut.elementAge} have elements more than ${describeLimit(maxAgeMs)} from ${from}${launchedLater ? ' or were launched in a later year' : ''}`
  const reasons = [
    ...(byAge === null ? [] : [byAge]),
    ...(leftOut.decayed > 0 ? [`${leftOut.decayed} have decayed by then`] : []),
  ]
  const obtained = new Date(catalog.origin.obtainedAtMs).toISOString()
  return `${out} of ${size} satellites${named} are left out: ${reasons.join(', ')} (the data was obtained ${obtained}). ${advice(ageLimited)}`
}
