/**
 * Open Notify: where the ISS is now (`/iss-now.json`, coordinates as strings),
 * its pass times (`/iss-pass.json`, retired by Open Notify in 2022, revived
 * with the original rules: 10° horizon, passes over 60 s), and `/astros.json`,
 * which says that who is in space is not known here. JSONP with `?callback=`.
 */
import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import type { Catalog } from '../../../domain/catalog/catalog.ts'
import type { NoPositionSpan, Pass } from '../../../domain/orbit/passes.ts'
import type { Observer } from '../../../domain/orbit/sky.ts'
import { requestPath, shown } from '../../plugins/edge.ts'
import { ApiError } from '../../plugins/errors.ts'
import { givenMoreThanOnce } from '../../plugins/params.ts'
import type { AnswerSet } from '../../representations/cache.ts'
import { findSatellite, type ModuleContext, requirePosition, responseSchemas, spanEndMs } from '../common.ts'
import { ISS_NORAD_ID } from '../satellites/index.ts'
import { compatNumber, ELEMENT_AGE_HEADERS_DOC, inFamilyShape, PASS_HEADERS_DOC, noPositionError, searchPasses, setElementAge, setNoPosition, unixSecondsFloor } from './shared.ts'

/** The OpenAPI declaration of the JSONP answer beside JSON (a route's `x-response-content`). */
const JSONP_CONTENT_DOC = { 'application/javascript': { schema: { type: 'string', description: 'with callback: /**/callback({...});' } } } as const

/** Overhead, for Open Notify, is 10° above the horizon. */
export const ISS_PASS_HORIZON_DEG = 10
/** Passes this long or shorter are not listed (the original's `duration > 60`). */
export const MIN_PASS_SECONDS = 60
const DEFAULT_ALTITUDE_M = 100
const DEFAULT_PASSES = 5
const MAX_PASSES = 100
/** Passes are looked for this many days at a time, up to the horizon below. */
const WINDOW_DAYS = 5
/** The furthest ahead passes are looked for (100 ISS passes above 10° take 3 to 4 weeks at mid-latitudes). */
const SEARCH_DAYS = 60
const DAY_MS = 86_400_000

export const ISS_NOW_PATHS = ['/iss-now.json', '/iss-now/', '/iss-now/v1/'] as const
export const ISS_PASS_PATHS = ['/iss-pass.json', '/iss/', '/iss/v1/'] as const
export const ASTROS_PATHS = ['/astros.json', '/astros/', '/astros/v1/'] as const

/**
 * A JSONP callback name: JavaScript identifiers joined by dots (`cb`,
 * `jQuery1124_1617287232`, `window.app.onIss`), at most 100 characters.
 * Anything else could be script, so it is refused.
 */
const CALLBACK = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/
const MAX_CALLBACK_LENGTH = 100

export const OpenNotifyErrorSchema = t.Object(
  { message: t.Literal('failure'), reason: t.String({ description: 'What is wrong' }) },
  { description: "Open Notify's error body" },
)

export const IssNowSchema = t.Object({
  message: t.Literal('success'),
  timestamp: Type.Integer({ description: 'Unix seconds of the position' }),
  iss_position: t.Object({
    latitude: t.String({ description: 'degrees, 4 decimals, as a string (as Open Notify sends it)' }),
    longitude: t.String({ description: 'degrees, 4 decimals, as a string' }),
  }),
})

export const IssPassSchema = t.Object({
  message: t.Literal('success'),
  request: t.Object({
    altitude: t.Number({ description: 'metres (100 when not given)' }),
    datetime: Type.Integer({ description: 'Unix seconds: when the search starts (now)' }),
    latitude: t.Number(),
    longitude: t.Number(),
    passes: Type.Integer({ description: 'n: how many passes were considered' }),
  }),
  response: t.Array(
    t.Object({
      duration: Type.Integer({ description: 'Seconds above 10°' }),
      risetime: Type.Integer({ description: 'Unix seconds when it climbs through 10°' }),
    }),
    { description: 'The next n passes above 10°, less any in progress now and any of 60 s or less (so possibly fewer than n)' },
  ),
})

export const AstrosSchema = t.Object({
  message: t.Literal('success'),
  number: t.Null({ description: 'Unknown: crew lists are not orbital data' }),
  people: t.Array(t.Object({ name: t.String(), craft: t.String() }), { description: 'Always empty' }),
  reason: t.String(),
})

const ASTROS_REASON = 'who is in space is not in orbital element sets, so this service does not know: number is null (unknown) and people is empty'

/** The `callback` of a JSONP request: null when absent or empty (plain JSON); a 400 when it is not a safe name. */
function callbackOf(url: string): string | null {
  const q = url.indexOf('?')
  if (q < 0) return null
  const given = new URLSearchParams(url.slice(q + 1)).getAll('callback')
  if (given.length === 0 || given[0] === '') return null
  if (given.length > 1) throw givenMoreThanOnce('callback', given)
  const name = given[0]!
  if (name.length > MAX_CALLBACK_LENGTH || !CALLBACK.test(name)) {
    throw new ApiError(400, `callback must be a JavaScript name (letters, digits, _ and $, dotted paths allowed; at most ${MAX_CALLBACK_LENGTH} characters) (got "${shown(name)}")`)
  }
  return name
}

/**
 * A success as JSON, or as a JSONP script calling `callback` with it
 * (`application/javascript`). The script starts with an empty comment, so that
 * no callback name can make it begin like another kind of file (the usual
 * defence against content sniffing, e.g. Rosetta Flash). Errors stay JSON: a
 * browser does not run a script answered with an error status anyway.
 */
function jsonOrJsonp(body: unknown, callback: string | null, status: number): unknown {
  if (callback === null || status !== 200) return body
  return new Response(`/**/${callback}(${JSON.stringify(body)});`, { headers: { 'content-type': 'application/javascript; charset=utf-8' } })
}

function issNow(catalog: Catalog, nowMs: number, set: AnswerSet) {
  const instant = new Date(unixSecondsFloor(nowMs) * 1000)
  const iss = findSatellite(catalog, ISS_NORAD_ID)
  const state = requirePosition(catalog, iss, instant)
  setElementAge(set, [iss], instant.getTime())
  return {
    message: 'success' as const,
    timestamp: unixSecondsFloor(instant.getTime()),
    iss_position: { latitude: state.latitudeDeg.toFixed(4), longitude: state.longitudeDeg.toFixed(4) },
  }
}

/** A query value as Open Notify reads it (`lat`, `lon`, `alt`, `n`): a number within the range, or a 400 with the original's words. */
function queryNumber(search: URLSearchParams, name: string, min: number, max: number, missing: string | number, rule: string): number {
  const given = search.getAll(name)
  if (given.length > 1) throw givenMoreThanOnce(name, given)
  if (given.length === 0 || given[0] === '') {
    if (typeof missing === 'number') return missing
    throw new ApiError(400, missing)
  }
  const value = compatNumber(given[0])
  if (value === null || value < min || value > max) throw new ApiError(400, `${rule} (got "${shown(given[0]!)}")`)
  return value
}

async function issPass(context: ModuleContext, catalog: Catalog, url: string, nowMs: number, signal: AbortSignal, set: AnswerSet) {
  const q = url.indexOf('?')
  const search = new URLSearchParams(q < 0 ? '' : url.slice(q + 1))
  const latitude = queryNumber(search, 'lat', -90, 90, 'Latitude must be specified.', 'Latitude must be number between -90.0 and 90.0')
  const longitude = queryNumber(search, 'lon', -180, 180, 'Longitude must be specified.', 'Longitude must be number between -180.0 and 180.0')
  const altitude = queryNumber(search, 'alt', 0, 10_000, DEFAULT_ALTITUDE_M, 'Altitude must be number between 0 and 10,000')
  const n = Math.trunc(queryNumber(search, 'n', 1, MAX_PASSES, DEFAULT_PASSES, 'Number of passes must be number between 1 and 100'))
  const satellite = findSatellite(catalog, ISS_NORAD_ID)
  const observer: Observer = { latitudeDeg: latitude, longitudeDeg: longitude, altitudeM: altitude }
  const startMs = unixSecondsFloor(nowMs) * 1000
  const { passes: considered, noPosition } = await nextPasses(context, catalog, satellite, observer, startMs, n, signal)
  setElementAge(set, [satellite], startMs)
  setNoPosition(set, noPosition)
  // Whole seconds as the original truncated them, from the instants /passes shows for the rise and the set.
  const response = considered
    .flatMap((pass) => (pass.rise && pass.set ? [{ duration: Math.trunc((pass.set.instantMs - pass.rise.instantMs) / 1000), risetime: unixSecondsFloor(pass.rise.instantMs) }] : []))
    .filter((pass) => pass.duration > MIN_PASS_SECONDS)
  return {
    message: 'success' as const,
    request: { altitude, datetime: unixSecondsFloor(startMs), latitude, longitude, passes: n },
    response,
  }
}

/**
 * The first `n` passes above 10° from `startMs` (one in progress then
 * included, as the original's first `next_pass` counted it), looked for a
 * window of days at a time; fewer when positions run out (element age, decay)
 * or none come within SEARCH_DAYS. A pass cut by a window's end is looked for
 * again from the start of the next window, which begins before it. With the
 * stretches of the time looked through that had no positions (where positions
 * run out, to SEARCH_DAYS: nothing later is looked for) when they made the
 * list short of n.
 */
async function nextPasses(
  context: ModuleContext,
  catalog: Catalog,
  satellite: ReturnType<typeof findSatellite>,
  observer: Observer,
  startMs: number,
  n: number,
  signal: AbortSignal,
): Promise<{ passes: Pass[]; noPosition: NoPositionSpan[] }> {
  const found: Pass[] = []
  const noPosition: NoPositionSpan[] = []
  /** A stretch found, joined to the last when they meet (windows overlap by a pass). */
  const add = (span: NoPositionSpan) => {
    const last = noPosition.at(-1)
    if (last && span.fromMs <= last.toMs) last.toMs = Math.max(last.toMs, span.toMs)
    else noPosition.push({ ...span })
  }
  const endMs = spanEndMs(startMs, SEARCH_DAYS * DAY_MS)
  let from = startMs
  while (found.length < n && from < endMs) {
    const to = Math.min(endMs, from + WINDOW_DAYS * DAY_MS)
    const search = await searchPasses(context, catalog, satellite, observer, from, to, ISS_PASS_HORIZON_DEG, signal)
    if (!search.anyPosition) {
      // No position in this window: the passes found before it are all there are.
      if (from === startMs) throw noPositionError(satellite, startMs, to, search)
      add({ fromMs: from, toMs: endMs, reason: search.noPosition[0]?.reason ?? 'no position' })
      break
    }
    let next = to
    for (const pass of search.passes) {
      const cutByWindow = pass.set === null && pass.endMs >= to && to < endMs
      if (cutByWindow && !(pass.rise === null && pass.startMs === from)) {
        // Look for it whole in the next window, which starts a minute before it rose.
        next = Math.max(from + 1, pass.startMs - 60_000)
        break
      }
      found.push(pass)
      if (found.length === n) break
    }
    for (const span of search.noPosition) add(span)
    // Positions end inside this window: nothing later can be found (the age limit and a decay do not end), nor looked for.
    if (search.noPosition.some((span) => span.toMs >= to)) {
      add({ ...noPosition.at(-1)!, toMs: endMs })
      break
    }
    from = next
  }
  // n passes found: the list is whole, whatever the time looked through held beyond them.
  return { passes: found, noPosition: found.length < n ? noPosition : [] }
}

export function openNotifyModule(context: ModuleContext) {
  const { store, clock } = context
  const errorSchemas = { 400: OpenNotifyErrorSchema, 404: OpenNotifyErrorSchema, 422: OpenNotifyErrorSchema, 503: OpenNotifyErrorSchema }
  const failure = (_status: number, reason: string) => ({ message: 'failure' as const, reason })
  type Ctx = { request: Request; set: AnswerSet }

  /** Runs `handler`, answering its result as JSON or JSONP, its error as JSON (a bad callback is a 400). */
  // biome-ignore lint: Elysia checks the answer against the route's response schemas
  const route = (handler: (request: Request, set: AnswerSet) => unknown) => async ({ request, set }: Ctx): Promise<any> => {
    const jsonp: { callback: string | null } = { callback: null }
    const body = await inFamilyShape(set, failure, () => {
      jsonp.callback = callbackOf(request.url)
      return handler(request, set)
    })
    return jsonOrJsonp(body, jsonp.callback, typeof set.status === 'number' ? set.status : 200)
  }

  const app = new Elysia({ name: 'compat-open-notify' })
  const callbackParam = {
    name: 'callback',
    in: 'query',
    required: false,
    schema: { type: 'string', maxLength: MAX_CALLBACK_LENGTH, pattern: CALLBACK.source },
    description: 'JSONP: the answer comes as `/**/callback({...});` (application/javascript). A JavaScript name, dotted paths allowed; anything else is a 400.',
  } as const
  for (const path of ISS_NOW_PATHS) {
    app.get(
      path,
      route((_request, set) => issNow(store.current, clock(), set)),
      {
        response: responseSchemas(context, { 200: IssNowSchema, ...errorSchemas }),
        detail: {
          tags: ['open-notify'],
          summary: 'Open Notify: where the ISS is now',
          description:
            'The sub-satellite point of the ISS at the current second, its coordinates as strings with 4 decimals, as Open Notify sends them. 422 `{"message": "failure", "reason"}` when it has no valid position now (element age, decay).',
          'x-parameters': [callbackParam],
          'x-response-headers': ELEMENT_AGE_HEADERS_DOC,
          'x-response-content': JSONP_CONTENT_DOC,
          // Only the first path is documented (no `hide: false` either: OpenAPI 3.1 allows no unknown keys).
          ...(path === ISS_NOW_PATHS[0] ? {} : { hide: true }),
        },
      },
    )
  }
  for (const path of ISS_PASS_PATHS) {
    app.get(
      path,
      route((request, set) => issPass(context, store.current, request.url, clock(), request.signal, set)),
      {
        response: responseSchemas(context, { 200: IssPassSchema, ...errorSchemas }),
        detail: {
          tags: ['open-notify'],
          summary: 'Open Notify: ISS pass times (revived)',
          description:
            'The next `n` passes of the ISS above 10° (no refraction) from the current second, the original rules: a pass in progress now counts as one of the n but is not listed (pyiss and Home Assistant read one result out of n=2 as "the ISS is above"), nor is one of 60 s or less; `risetime` is when it climbs through 10°, `duration` the whole seconds above it. Fewer when the elements give no positions further on (element age, decay). 400 with the original messages for a bad `lat`, `lon`, `alt` or `n`.',
          'x-response-headers': PASS_HEADERS_DOC,
          'x-response-content': JSONP_CONTENT_DOC,
          'x-parameters': [
            { name: 'lat', in: 'query', required: true, schema: { type: 'number', minimum: -90, maximum: 90 }, description: 'Latitude, degrees' },
            { name: 'lon', in: 'query', required: true, schema: { type: 'number', minimum: -180, maximum: 180 }, description: 'Longitude, degrees' },
            { name: 'alt', in: 'query', required: false, schema: { type: 'number', minimum: 0, maximum: 10_000, default: DEFAULT_ALTITUDE_M }, description: 'Altitude, metres' },
            { name: 'n', in: 'query', required: false, schema: { type: 'number', minimum: 1, maximum: MAX_PASSES, default: DEFAULT_PASSES }, description: 'Passes to consider; a fraction is cut to its whole part, as the original did (`n=2.7` considers 2)' },
            callbackParam,
          ],
          // Only the first path is documented (no `hide: false` either: OpenAPI 3.1 allows no unknown keys).
          ...(path === ISS_PASS_PATHS[0] ? {} : { hide: true }),
        },
      },
    )
  }
  for (const path of ASTROS_PATHS) {
    app.get(
      path,
      route(() => ({ message: 'success' as const, number: null, people: [], reason: ASTROS_REASON })),
      {
        response: responseSchemas(context, { 200: AstrosSchema, 400: OpenNotifyErrorSchema }),
        detail: {
          tags: ['open-notify'],
          summary: 'Open Notify: people in space (unknown here)',
          description: `Answered so that clients reading it with the ISS position (pyiss, Home Assistant's ISS integration) keep working: ${ASTROS_REASON}.`,
          'x-parameters': [callbackParam],
          'x-response-content': JSONP_CONTENT_DOC,
          // Only the first path is documented (no `hide: false` either: OpenAPI 3.1 allows no unknown keys).
          ...(path === ASTROS_PATHS[0] ? {} : { hide: true }),
        },
      },
    )
  }
  // Any other path under the family's folders (`/iss-now/v2/`, `/iss/foo`): a 404 in the family's body, as its clients read errors.
  for (const folder of OPEN_NOTIFY_FOLDERS) {
    app.get(
      `${folder}*`,
      route((request) => {
        throw new ApiError(404, `no such Open Notify path: ${shown(requestPath(request.url))} (this service answers ${[ISS_NOW_PATHS, ISS_PASS_PATHS, ASTROS_PATHS].flat().join(', ')})`)
      }),
      { response: responseSchemas(context, { 400: OpenNotifyErrorSchema, 404: OpenNotifyErrorSchema }), detail: { hide: true } },
    )
  }
  return app
}

/** The folders of the family's paths (`/iss-now/`, `/iss/`, `/astros/`): what else is asked under them is a 404 in its body. */
const OPEN_NOTIFY_FOLDERS = [ISS_NOW_PATHS, ISS_PASS_PATHS, ASTROS_PATHS].map((paths) => paths[1])
