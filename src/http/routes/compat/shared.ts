/** What the compatible API families share: lenient numbers, Unix seconds, errors in each family's shape, and the engine's passes and sky points. */
import type { Catalog, Satellite } from '../../../domain/catalog/catalog.ts'
import { MAX_NORAD_ID } from '../../../domain/catalog/omm.ts'
import { standardMagnitude, DEFAULT_MAGNITUDE_LIMIT } from '../../../domain/orbit/magnitude.ts'
import type { NoPositionSpan, PassSearch } from '../../../domain/orbit/passes.ts'
import { findPassesSliced } from '../../../domain/orbit/passes-sliced.ts'
import { positionAt, siderealTimeRad } from '../../../domain/orbit/position.ts'
import { type LookAngles, lookAngles, type Observer } from '../../../domain/orbit/sky.ts'
import { Busy } from '../../../io/heavy-work.ts'
import { EXPOSED_HEADERS, readableSegment, shown, undecodableSegmentNote } from '../../plugins/edge.ts'
import { ApiError } from '../../plugins/errors.ts'
import type { AnswerSet } from '../../representations/cache.ts'
import { type ModuleContext, noPositionBetween } from '../common.ts'
import { elementAgeDaysAt, iso } from '../satellites/model.ts'

/**
 * A number as the clients of these APIs write it: Python's `%f` and `repr`
 * (`41.702000`, `1e-05`), JavaScript's `String(n)` (`1e-7`), C's `%d`. Not
 * hex, not `NaN` or `inf`, not empty, no spaces around it.
 */
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/

export function compatNumber(raw: string | null | undefined): number | null {
  if (raw === null || raw === undefined || !NUMBER.test(raw)) return null
  const value = Number(raw)
  return Number.isFinite(value) ? value : null
}

/**
 * A number within [min, max] (an integer when `integer`), or a 400 naming the
 * parameter, the rule and the value received.
 */
export function boundedNumber(name: string, raw: string | null | undefined, min: number, max: number, options: { integer?: boolean; unit?: string } = {}): number {
  const value = compatNumber(raw)
  if (value === null || value < min || value > max || (options.integer && !Number.isInteger(value))) {
    const kind = options.integer ? 'an integer' : 'a number'
    const got = raw === null || raw === undefined ? 'nothing' : `"${shown(raw)}"`
    throw new ApiError(400, `${name} must be ${kind} between ${min} and ${max}${options.unit ? ` (${options.unit})` : ''} (got ${got})`)
  }
  return value
}

/**
 * A path parameter of a compatible route as the router decoded it; a 400 naming it and its
 * rule when the client's segment is not valid percent-encoding (see `readableSegment`).
 */
export function pathParam(request: Request, name: string, value: string | null | undefined, rule: string): string {
  const segment = readableSegment(value, request.url)
  if (segment === null) throw new ApiError(400, `${name} must be ${rule} (${undecodableSegmentNote(request.url)})`)
  return segment
}

/** The rule of a NORAD catalog number, as the families' messages say it. */
export const CATALOG_NUMBER_RULE = `a NORAD catalog number: an integer between 1 and ${MAX_NORAD_ID}`

/** A NORAD catalog number: digits only (leading zeros allowed), 1..999999999; else a 400 naming `name`. */
export function catalogNumber(name: string, raw: string): number {
  // Leading zeros are read as the native routes read them (`0000025544` is 25544).
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_NORAD_ID) throw new ApiError(400, `${name} must be ${CATALOG_NUMBER_RULE} (got "${shown(raw)}")`)
  return Number(raw)
}

/** The headers that carry the age of the element sets behind a compatible answer (the families' bodies have no field for it). */
export const ELEMENT_EPOCH_HEADER = 'sattrack-element-epoch'
export const ELEMENT_AGE_HEADER = 'sattrack-element-age-days'
/** The headers that say where a compatible pass search had no positions (the families' bodies have no field for it either). */
export const NO_POSITION_HEADER = 'sattrack-no-position'
export const NO_POSITION_REASON_HEADER = 'sattrack-no-position-reason'

/** The OpenAPI declaration of the element-age headers (a route's `x-response-headers`). */
export const ELEMENT_AGE_HEADERS_DOC = {
  'Sattrack-Element-Epoch': {
    description: "The epoch of the satellite's element set (of the oldest, when the answer lists several): the age of what is answered, in one place whatever the body's shape",
    schema: { type: 'string', format: 'date-time' },
  },
  'Sattrack-Element-Age-Days': {
    description: "That element set's age at the answer's instant (or the start of its search, or the first of its times; now, for an answer of element sets), days to 0.001",
    schema: { type: 'number' },
  },
} as const

/** The same, with the headers of a pass search that met stretches without positions. */
export const PASS_HEADERS_DOC = {
  ...ELEMENT_AGE_HEADERS_DOC,
  'Sattrack-No-Position': {
    description:
      'Only when the searched time had stretches without positions (element age, decay, implausible height), so that fewer passes come back than the time holds: the stretches as ISO 8601 intervals, `from/to`, comma-separated',
    schema: { type: 'string' },
  },
  'Sattrack-No-Position-Reason': { description: "With Sattrack-No-Position: the first stretch's reason", schema: { type: 'string' } },
} as const

/** Lets browser scripts read the sattrack headers the answer carries. */
function exposeHeaders(set: AnswerSet): void {
  const ours = [ELEMENT_EPOCH_HEADER, ELEMENT_AGE_HEADER, NO_POSITION_HEADER, NO_POSITION_REASON_HEADER].filter((name) => set.headers[name] !== undefined)
  set.headers['access-control-expose-headers'] = [...EXPOSED_HEADERS, ...ours].join(', ')
}

/** The satellite with the oldest element set of those listed (undefined: none listed). */
export function oldestSet(satellites: readonly Satellite[]): Satellite | undefined {
  let oldest: Satellite | undefined
  for (const satellite of satellites) if (oldest === undefined || satellite.elements.epochMs < oldest.elements.epochMs) oldest = satellite
  return oldest
}

/**
 * Says how old the element sets behind an answer with positions or passes are,
 * in headers: the epoch of the set (of the oldest, when the answer holds
 * several satellites) and its age in days at `instantMs` (the answer's instant,
 * or the start of its search), exposed to browser scripts. Nothing for an
 * answer that holds no satellite.
 */
export function setElementAge(set: AnswerSet, satellites: readonly Satellite[], instantMs: number): void {
  const oldest = oldestSet(satellites)
  if (oldest === undefined) return
  set.headers[ELEMENT_EPOCH_HEADER] = oldest.epoch
  set.headers[ELEMENT_AGE_HEADER] = String(elementAgeDaysAt(oldest, instantMs))
  exposeHeaders(set)
}

/**
 * Says in headers where a pass search had no positions (the element-age limit, a
 * decay, an implausible height), so that a short list is not read as "no more
 * passes": the stretches as ISO 8601 intervals (`from/to`, comma-separated),
 * and the first one's reason. Nothing when there were positions throughout.
 */
export function setNoPosition(set: AnswerSet, spans: readonly NoPositionSpan[]): void {
  if (spans.length === 0) return
  set.headers[NO_POSITION_HEADER] = spans.map((span) => `${iso(span.fromMs)}/${iso(span.toMs)}`).join(', ')
  // A header holds Latin-1 only; the reasons are ASCII, and anything else is replaced rather than refused.
  set.headers[NO_POSITION_REASON_HEADER] = spans[0]!.reason.replace(/[^\x20-\x7e]/g, '?')
  exposeHeaders(set)
}

/** Whole seconds since 1970 of an instant (rounded down: the second the instant falls in). */
export const unixSecondsFloor = (ms: number) => Math.floor(ms / 1000)
/** Whole seconds since 1970 nearest to an instant (pass times, located to a few ms). */
export const unixSecondsNearest = (ms: number) => Math.round(ms / 1000)

/**
 * Runs a handler and answers an error (ApiError, thrown by the parsing here or by
 * the shared helpers: 400, 404, 422; Busy from the heavy-work queue: 503) in the
 * family's own shape, with the same status and headers (Retry-After). A client
 * that has gone (Abandoned: 499) and anything else (a bug: 500) go on to the
 * service's error handler.
 */
// The answer is typed loosely: Elysia checks it against the route's response schemas (tests run with the check on).
export async function inFamilyShape(
  set: AnswerSet,
  errorBody: (status: number, message: string) => unknown,
  handler: () => unknown,
  // biome-ignore lint: see above
): Promise<any> {
  try {
    return await handler()
  } catch (error) {
    if (error instanceof Busy) {
      // Too many long computations (passes) at once: 503 with Retry-After, as the service answers it.
      set.status = 503
      set.headers['retry-after'] = String(error.retryAfterSeconds)
      return errorBody(503, error.message)
    }
    if (!(error instanceof ApiError)) throw error
    set.status = error.status
    if (error.headers) Object.assign(set.headers, error.headers)
    return errorBody(error.status, error.message)
  }
}

/** The engine's passes of `satellite` over `observer` in [startMs, endMs] above `minElevationDeg`, with magnitudes at the default naked-eye limit (the search may find no position anywhere: `anyPosition`). */
export async function searchPasses(
  context: ModuleContext,
  catalog: Catalog,
  satellite: Satellite,
  observer: Observer,
  startMs: number,
  endMs: number,
  minElevationDeg: number,
  signal?: AbortSignal,
): Promise<PassSearch> {
  const query = {
    observer,
    startMs,
    endMs,
    minElevationDeg,
    brightness: { standardMagnitude: standardMagnitude(satellite).magnitude, magnitudeLimit: DEFAULT_MAGNITUDE_LIMIT },
  }
  return await context.heavy.run(findPassesSliced(catalog, catalog.indexOf(satellite.noradId)!, query), signal)
}

/** The 422 of a pass search that found no position anywhere in [startMs, endMs]. */
export function noPositionError(satellite: Satellite, startMs: number, endMs: number, search: PassSearch): ApiError {
  return noPositionBetween(satellite.noradId, startMs, endMs, search.noPosition[0]?.reason ?? null)
}

/** searchPasses, and a 422 when the satellite has no position anywhere in that time. */
export async function passesOf(...args: Parameters<typeof searchPasses>): Promise<PassSearch> {
  const search = await searchPasses(...args)
  const [, , satellite, , startMs, endMs] = args
  if (!search.anyPosition) throw noPositionError(satellite, startMs, endMs, search)
  return search
}

/** Where the satellite is in the observer's sky at an instant (ms), or null when it has no position then. */
export function skyAt(catalog: Catalog, satellite: Satellite, observer: Observer, instantMs: number): LookAngles | null {
  const instant = new Date(instantMs)
  const gmst = siderealTimeRad(instant)
  const position = positionAt(catalog, catalog.indexOf(satellite.noradId)!, instant, gmst)
  return position.ok ? lookAngles(observer, position.state.eciKm, gmst) : null
}
