/**
 * N2YO REST v1 (`/rest/v1/satellite/…`): tle, positions, visualpasses,
 * radiopasses and above, with N2YO's fields and types, computed by sattrack's
 * engine under its rules (element age, decay); any apiKey, or none, is accepted.
 */
import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import type { Catalog } from '../../../domain/catalog/catalog.ts'
import { objectIdOf } from '../../../domain/catalog/omm.ts'
import { NearbyEngine, TABLE_STEP_MS } from '../../../domain/nearby/engine.ts'
import { compassPoint, topocentricRaDec } from '../../../domain/orbit/observing.ts'
import { beginsWithPositions, endsWithPositions, type Pass, type PassSearch } from '../../../domain/orbit/passes.ts'
import { positionAt, siderealTimeRad } from '../../../domain/orbit/position.ts'
import { isSunlit, lookAngles, type Observer, sunPositionAu } from '../../../domain/orbit/sky.ts'
import { percentDecoded, requestPath, shown } from '../../plugins/edge.ts'
import { ApiError } from '../../plugins/errors.ts'
import type { AnswerSet } from '../../representations/cache.ts'
import { findSatellite, leftOutNotice, type ModuleContext, responseSchemas, spanEndMs } from '../common.ts'
import { ANY_CATEGORY, categoryOf, inCategory, type N2yoCategory } from './n2yo-categories.ts'
import { boundedNumber, catalogNumber, ELEMENT_AGE_HEADERS_DOC, inFamilyShape, PASS_HEADERS_DOC, passesOf, setElementAge, setNoPosition, skyAt, unixSecondsFloor, unixSecondsNearest } from './shared.ts'

export const N2YO_PREFIX = '/rest/v1/satellite'
/** N2YO's `mag` where the magnitude cannot be determined. */
export const UNKNOWN_MAGNITUDE = 100000
const MAX_SECONDS = 300
const MAX_DAYS = 10
const DAY_MS = 86_400_000

/** Each endpoint's path segments after its name, in order. */
export const N2YO_ENDPOINTS = {
  tle: ['id'],
  positions: ['id', 'observer_lat', 'observer_lng', 'observer_alt', 'seconds'],
  visualpasses: ['id', 'observer_lat', 'observer_lng', 'observer_alt', 'days', 'min_visibility'],
  radiopasses: ['id', 'observer_lat', 'observer_lng', 'observer_alt', 'days', 'min_elevation'],
  above: ['observer_lat', 'observer_lng', 'observer_alt', 'search_radius', 'category_id'],
} as const
type Endpoint = keyof typeof N2YO_ENDPOINTS

// ---------------------------------------------------------------------------
// Answers

const int = (description: string) => Type.Integer({ description })
const num = (description: string) => t.Number({ description })
const TRANSACTIONS = int('Transactions with this API key in the last 60 minutes at N2YO; here always 0 (no key, no quota)')

export const N2yoErrorSchema = t.Object({ error: t.String({ description: 'What is wrong (clients test for this key)' }) }, { description: "N2YO's error body" })

export const N2yoTleSchema = t.Object({
  info: t.Object({ satid: int('NORAD id'), satname: t.String(), transactionscount: TRANSACTIONS }),
  tle: t.String({ description: 'The two TLE lines joined by \\r\\n' }),
})

const N2yoPositionSchema = t.Object({
  satlatitude: num('Sub-satellite latitude, degrees'),
  satlongitude: num('Sub-satellite longitude, degrees'),
  sataltitude: num('km above the WGS84 ellipsoid'),
  azimuth: num('degrees from north through east, [0, 360)'),
  elevation: num('degrees above the horizon'),
  ra: num('Topocentric right ascension, degrees [0, 360) (TEME: true equator, mean equinox of date)'),
  dec: num('Topocentric declination, degrees'),
  timestamp: int('Unix seconds of this position'),
  eclipsed: t.Boolean({ description: "In the Earth's umbra" }),
})

export const N2yoPositionsSchema = t.Object({
  info: t.Object({ satname: t.String(), satid: int('NORAD id'), transactionscount: TRANSACTIONS }),
  positions: t.Array(N2yoPositionSchema, { description: 'One a second from the current second' }),
})

const passPoint = (where: string) => ({
  [`${where}Az`]: num(`Azimuth at the ${where}, degrees`),
  [`${where}AzCompass`]: t.String({ description: 'The nearest of the 16 compass points (N, NNE, NE, … NNW)' }),
  [`${where}UTC`]: int(`Unix seconds of the ${where}`),
})

const N2yoRadioPassSchema = t.Object({
  ...passPoint('start'),
  ...passPoint('max'),
  maxEl: num('Elevation at the highest point, degrees'),
  ...passPoint('end'),
})

const N2yoVisualPassSchema = t.Object({
  ...passPoint('start'),
  startEl: num('Elevation where it becomes visible, degrees'),
  ...passPoint('max'),
  maxEl: num('Elevation at the highest point while visible (between start and end), degrees'),
  ...passPoint('end'),
  endEl: num('Elevation where it stops being visible, degrees'),
  mag: num(`Brightest estimated magnitude while visible; ${UNKNOWN_MAGNITUDE} when unknown`),
  duration: int('Seconds visible'),
})

const passesInfo = t.Object({ satid: int('NORAD id'), satname: t.String(), transactionscount: TRANSACTIONS, passescount: int('Passes listed') })
export const N2yoRadioPassesSchema = t.Object({ info: passesInfo, passes: t.Array(N2yoRadioPassSchema) })
export const N2yoVisualPassesSchema = t.Object({ info: passesInfo, passes: t.Array(N2yoVisualPassSchema) })

export const N2yoAboveSchema = t.Object({
  info: t.Object({ category: t.String({ description: 'The category name; ANY for all' }), transactionscount: TRANSACTIONS, satcount: int('Satellites listed') }),
  above: t.Array(
    t.Object({
      satid: int('NORAD id'),
      satname: t.String(),
      intDesignator: t.String({ description: 'International designator, e.g. 1998-067A' }),
      launchDate: t.String({ description: 'Always "": launch dates are not in element sets' }),
      satlat: num('Sub-satellite latitude, degrees'),
      satlng: num('Sub-satellite longitude, degrees'),
      satalt: num('km above the WGS84 ellipsoid'),
    }),
  ),
})

// ---------------------------------------------------------------------------
// Requests

/**
 * The endpoint and its arguments from the request path as sent: N2YO's own
 * form glues the key to the path (`…/tle/25544&apiKey=K`, even after a slash:
 * `…/5/&apiKey=K`), others put it in the query (`…/tle/25544/?apiKey=K`), so
 * everything from the first `&` of the path is dropped, and trailing slashes.
 */
export function n2yoRequest(url: string): { endpoint: Endpoint; args: Record<string, string> } {
  let rest = requestPath(url).slice(N2YO_PREFIX.length)
  const amp = rest.indexOf('&')
  if (amp >= 0) rest = rest.slice(0, amp)
  const segments = rest.split('/').slice(1)
  while (segments.length > 0 && segments.at(-1) === '') segments.pop()
  const decoded = segments.map((s) => percentDecoded(s) ?? s)
  const [name = '', ...values] = decoded
  if (!Object.hasOwn(N2YO_ENDPOINTS, name)) {
    throw new ApiError(404, `no such N2YO endpoint: "${shown(name)}" (this service answers ${Object.keys(N2YO_ENDPOINTS).join(', ')})`)
  }
  const endpoint = name as Endpoint
  const names = N2YO_ENDPOINTS[endpoint]
  if (values.length !== names.length) {
    throw new ApiError(400, `${endpoint} takes ${names.length} path segment${names.length > 1 ? 's' : ''}: ${N2YO_PREFIX}/${endpoint}/${names.map((n) => `{${n}}`).join('/')} (got ${values.length})`)
  }
  return { endpoint, args: Object.fromEntries(names.map((n, i) => [n, values[i]!])) }
}

function observerOf(args: Record<string, string>): Observer {
  return {
    latitudeDeg: boundedNumber('observer_lat', args.observer_lat, -90, 90),
    longitudeDeg: boundedNumber('observer_lng', args.observer_lng, -180, 180),
    altitudeM: boundedNumber('observer_alt', args.observer_alt, -1000, 100_000, { unit: 'metres' }),
  }
}

// ---------------------------------------------------------------------------
// Endpoints

function tle(catalog: Catalog, args: Record<string, string>, nowMs: number, set: AnswerSet) {
  const satellite = findSatellite(catalog, catalogNumber('id', args.id!))
  const lines = satellite.elements.tle
  if (!lines) throw new ApiError(422, `satellite ${satellite.noradId} has no two-line element set (its catalog number does not fit one)`)
  // Served whatever its age (the set, not a position): the headers say how old it is now.
  setElementAge(set, [satellite], nowMs)
  return {
    info: { satid: satellite.noradId, satname: satellite.name, transactionscount: 0 },
    tle: `${lines.line1}\r\n${lines.line2}`,
  }
}

function positions(catalog: Catalog, args: Record<string, string>, nowMs: number, set: AnswerSet) {
  const satellite = findSatellite(catalog, catalogNumber('id', args.id!))
  const observer = observerOf(args)
  const seconds = boundedNumber('seconds', args.seconds, 1, MAX_SECONDS, { integer: true })
  const index = catalog.indexOf(satellite.noradId)!
  const first = unixSecondsFloor(nowMs) * 1000
  const last = spanEndMs(first, (seconds - 1) * 1000)
  const list = []
  for (let ms = first; ms <= last; ms += 1000) {
    const instant = new Date(ms)
    const gmst = siderealTimeRad(instant)
    const position = positionAt(catalog, index, instant, gmst)
    if (!position.ok) throw new ApiError(422, `satellite ${satellite.noradId} has no valid position at ${instant.toISOString()}: ${position.reason}`)
    const { eciKm, latitudeDeg, longitudeDeg, altitudeKm } = position.state
    const look = lookAngles(observer, eciKm, gmst)
    const { raDeg, decDeg } = topocentricRaDec(observer, eciKm, gmst)
    list.push({
      satlatitude: latitudeDeg,
      satlongitude: longitudeDeg,
      sataltitude: altitudeKm,
      azimuth: look.azimuthDeg,
      elevation: look.elevationDeg,
      ra: raDeg,
      dec: decDeg,
      timestamp: unixSecondsFloor(instant.getTime()),
      eclipsed: !isSunlit(eciKm, sunPositionAu(instant)),
    })
  }
  setElementAge(set, [satellite], first)
  return { info: { satname: satellite.name, satid: satellite.noradId, transactionscount: 0 }, positions: list }
}

/** One end of a pass in N2YO's form (`startAz`, `startAzCompass`, `startUTC`), and the elevation there. */
function pointAt(prefix: 'start' | 'max' | 'end', azimuthDeg: number, instantMs: number) {
  return { [`${prefix}Az`]: azimuthDeg, [`${prefix}AzCompass`]: compassPoint(azimuthDeg), [`${prefix}UTC`]: unixSecondsNearest(instantMs) }
}

async function passes(context: ModuleContext, catalog: Catalog, args: Record<string, string>, nowMs: number, kind: 'visual' | 'radio', signal: AbortSignal, set: AnswerSet) {
  const satellite = findSatellite(catalog, catalogNumber('id', args.id!))
  const observer = observerOf(args)
  const days = boundedNumber('days', args.days, 1, MAX_DAYS, { integer: true })
  const minimum =
    kind === 'visual'
      ? boundedNumber('min_visibility', args.min_visibility, 0, MAX_DAYS * 86_400, { unit: 'seconds' })
      : boundedNumber('min_elevation', args.min_elevation, 0, 90, { unit: 'degrees' })
  const startMs = unixSecondsFloor(nowMs) * 1000
  const endMs = spanEndMs(startMs, days * DAY_MS)
  // Radio and visual passes are both above the horizon (0°), as N2YO's are.
  const search: PassSearch = await passesOf(context, catalog, satellite, observer, startMs, endMs, 0, signal)
  const sky = (instantMs: number) => skyAt(catalog, satellite, observer, instantMs)
  // Where the satellite's positions begin or end inside the searched time (element age, decay, implausible height), a pass has no
  // rise or set there: N2YO's fields cannot say so, so such a pass is left out (Sattrack-No-Position tells why).
  const list: Record<string, number | string>[] = []
  for (const pass of search.passes) {
    const begins = beginsWithPositions(pass, startMs)
    const ends = endsWithPositions(pass, endMs)
    if (kind === 'radio') {
      if (pass.culmination.elevationDeg < minimum || begins || ends) continue
      const start = pass.rise ?? { instantMs: pass.startMs, ...sky(pass.startMs) }
      const end = pass.set ?? { instantMs: pass.endMs, ...sky(pass.endMs) }
      if (start.azimuthDeg === undefined || end.azimuthDeg === undefined) continue
      const max = { ...pointAt('max', pass.culmination.azimuthDeg, pass.culmination.instantMs), maxEl: pass.culmination.elevationDeg }
      list.push({ ...pointAt('start', start.azimuthDeg, start.instantMs), ...max, ...pointAt('end', end.azimuthDeg, end.instantMs) })
      continue
    }
    // Likewise a visible stretch that begins or ends with the positions: not where it becomes or stops being visible.
    if ((begins && pass.visible[0]?.fromMs === pass.startMs) || (ends && pass.visible.at(-1)?.toMs === pass.endMs)) continue
    const visual = visualPass(pass, minimum, sky)
    if (visual) list.push({ ...visual.start, ...visual.max, ...visual.end, mag: visual.mag, duration: visual.duration })
  }
  setElementAge(set, [satellite], startMs)
  setNoPosition(set, search.noPosition)
  return {
    info: { satid: satellite.noradId, satname: satellite.name, transactionscount: 0, passescount: list.length },
    passes: list,
  }
}

/**
 * A pass as a visual pass: from the start of its first visible stretch to the
 * end of its last (visible as /passes says: sunlit, the Sun at or below -6°,
 * and no fainter than the default magnitude limit), seconds visible at least
 * `minSeconds`; null otherwise. Its highest point is the highest between those
 * two instants: the culmination when it lies between them, else the higher end.
 */
function visualPass(pass: Pass, minSeconds: number, sky: (ms: number) => { azimuthDeg: number; elevationDeg: number } | null) {
  if (pass.visible.length === 0) return null
  const seconds = pass.visible.reduce((sum, span) => sum + (span.toMs - span.fromMs), 0) / 1000
  if (seconds < minSeconds) return null
  const fromMs = pass.visible[0]!.fromMs
  const toMs = pass.visible.at(-1)!.toMs
  const first = sky(fromMs)
  const last = sky(toMs)
  if (!first || !last) return null
  const c = pass.culmination
  const highest =
    c.instantMs >= fromMs && c.instantMs <= toMs
      ? { azimuthDeg: c.azimuthDeg, elevationDeg: c.elevationDeg, instantMs: c.instantMs }
      : first.elevationDeg >= last.elevationDeg
        ? { ...first, instantMs: fromMs }
        : { ...last, instantMs: toMs }
  return {
    start: { ...pointAt('start', first.azimuthDeg, fromMs), startEl: first.elevationDeg },
    max: { ...pointAt('max', highest.azimuthDeg, highest.instantMs), maxEl: highest.elevationDeg },
    end: { ...pointAt('end', last.azimuthDeg, toMs), endEl: last.elevationDeg },
    mag: pass.brightest?.magnitude ?? UNKNOWN_MAGNITUDE,
    duration: Math.round(seconds),
  }
}

/** The key of the catalogue indices of each category's satellites (`Catalog.derived`: found once per catalogue, a category's test reads names). */
const CATEGORY_MEMBERS = Symbol('N2YO category members')

/** `leftOutNotice` for the satellites of a category: by the age and decay rules, as /nearby counts them. */
function categoryLeftOutNotice(catalog: Catalog, category: N2yoCategory, ms: number): string | null {
  const byCategory = catalog.derived(CATEGORY_MEMBERS, () => new Map<N2yoCategory, number[]>())
  let members = byCategory.get(category)
  if (members === undefined) {
    members = catalog.satellites.flatMap((s, i) => (inCategory(s, category) ? [i] : []))
    byCategory.set(category, members)
  }
  const leftOut = catalog.validity.countRefusalsAmong(members, ms, (i) => catalog.satrecAt(i))
  return leftOutNotice(catalog, leftOut, ms, { size: members.length, named: ` of the category ${category.name}`, advice: NOW_ONLY_ADVICE })
}

/** What to do, for a route that answers for the current second only (no time to ask for); the age limit only when it is among the reasons. */
const NOW_ONLY_ADVICE = (ageLimited: boolean) =>
  `Load newer data (--snapshot, --refresh-url, make snapshot)${ageLimited ? ' or change --max-element-age' : ''}: this route answers for the current second only.`

function above(catalog: Catalog, engine: NearbyEngine, args: Record<string, string>, nowMs: number, set: AnswerSet) {
  const observer = observerOf(args)
  // N2YO's radius is measured from the zenith: 90 is the whole sky above the horizon (and 180, which clients send, too).
  const radius = Math.min(90, boundedNumber('search_radius', args.search_radius, 0, 180, { unit: 'degrees from the zenith' }))
  const category = categoryOf(args.category_id!)
  const ms = unixSecondsFloor(nowMs) * 1000
  // Stale data: a 422 when most of what was asked for (the catalogue, or the category's satellites) has no position.
  const notice =
    category === ANY_CATEGORY
      ? leftOutNotice(catalog, catalog.validity.countRefusals(ms, (i) => catalog.satrecAt(i)), ms, { advice: NOW_ONLY_ADVICE })
      : categoryLeftOutNotice(catalog, category, ms)
  if (notice !== null) throw new ApiError(422, notice)
  engine.prefetch(catalog, NearbyEngine.gridBefore(ms) + 2 * TABLE_STEP_MS)
  const { entries } = engine.find(catalog, {
    observer,
    instant: new Date(ms),
    minElevationDeg: 90 - radius,
    azimuthFromDeg: 0,
    azimuthToDeg: 360,
    visibleOnly: false,
    geoposition: true,
  })
  const listed = entries.filter((e) => inCategory(e.satellite, category))
  const list = listed.map((e) => ({
    satid: e.satellite.noradId,
    satname: e.satellite.name,
    intDesignator: objectIdOf(e.satellite.elements.intlDesignator),
    launchDate: '',
    satlat: e.latitudeDeg!,
    satlng: e.longitudeDeg!,
    satalt: e.altitudeKm,
  }))
  setElementAge(set, listed.map((e) => e.satellite), ms)
  return { info: { category: category.name, transactionscount: 0, satcount: list.length }, above: list }
}

// ---------------------------------------------------------------------------
// Routes

const DESCRIPTIONS: Record<Endpoint, { summary: string; description: string }> = {
  tle: { summary: 'N2YO: the TLE of a satellite', description: 'The element set as published, its two lines joined by `\\r\\n`.' },
  positions: {
    summary: 'N2YO: positions, one a second',
    description: `\`seconds\` (1..${MAX_SECONDS}) positions from the current second: sub-satellite point and height, look angles, topocentric right ascension and declination, and whether the satellite is in the Earth's umbra. 422 \`{"error"}\` when any of them has no valid position (element age, decay).`,
  },
  visualpasses: {
    summary: 'N2YO: visual passes',
    description: `Passes in the next \`days\` (1..${MAX_DAYS}) above the horizon that are visible to the naked eye (the /passes rule: sunlit, the Sun at or below -6°, magnitude at or below 4.5) for at least \`min_visibility\` seconds. start and end are where it becomes and stops being visible, max the highest point between them, \`mag\` the brightest estimated magnitude while visible (${UNKNOWN_MAGNITUDE} when unknown), \`duration\` the seconds visible. A pass visible up to where the satellite's positions end (or from where they begin: element age, decay, implausible height) is left out: it does not stop (or become) visible there.`,
  },
  radiopasses: {
    summary: 'N2YO: radio passes',
    description: `Passes in the next \`days\` (1..${MAX_DAYS}) above the horizon whose highest point is at least \`min_elevation\` degrees: rise, culmination and set. A pass in progress now starts now; one still in progress at the end ends there. A pass that begins or ends where the satellite's positions do (element age, decay, implausible height) is left out: it has no rise or set there (Sattrack-No-Position says where positions are missing).`,
  },
  above: {
    summary: 'N2YO: satellites above an observer',
    description:
      'Satellites within `search_radius` degrees of the zenith (0..90; more, such as 180, is 90: the whole sky above the horizon), of `category_id` (0, an unknown number or text: all), highest first. A category is recognised by the CelesTrak group its satellites were loaded from or by their names (docs/compat.md). `launchDate` is always "" (not in element sets). 422 `{"error"}` when most of the catalogue (for a category: most of its satellites) has no valid position now (stale data).',
  },
}

const pathOf = (endpoint: Endpoint) => `${N2YO_PREFIX}/${endpoint}/${N2YO_ENDPOINTS[endpoint].map((n) => `:${n}`).join('/')}`

export function n2yoModule(context: ModuleContext, engine: NearbyEngine) {
  const { store, clock } = context
  const errors = (status: number) => [status, N2yoErrorSchema] as const
  const errorSchemas = Object.fromEntries([400, 404, 422, 503].map(errors))
  const success: Record<Endpoint, typeof N2yoTleSchema | typeof N2yoPositionsSchema | typeof N2yoVisualPassesSchema | typeof N2yoRadioPassesSchema | typeof N2yoAboveSchema> = {
    tle: N2yoTleSchema,
    positions: N2yoPositionsSchema,
    visualpasses: N2yoVisualPassesSchema,
    radiopasses: N2yoRadioPassesSchema,
    above: N2yoAboveSchema,
  }

  const answer = ({ request, set }: { request: Request; set: AnswerSet }) =>
    inFamilyShape(set, (_status, message) => ({ error: message }), () => {
      const { endpoint, args } = n2yoRequest(request.url)
      const catalog = store.current
      const nowMs = clock()
      switch (endpoint) {
        case 'tle':
          return tle(catalog, args, nowMs, set)
        case 'positions':
          return positions(catalog, args, nowMs, set)
        case 'visualpasses':
          return passes(context, catalog, args, nowMs, 'visual', request.signal, set)
        case 'radiopasses':
          return passes(context, catalog, args, nowMs, 'radio', request.signal, set)
        case 'above':
          return above(catalog, engine, args, nowMs, set)
      }
    })

  const app = new Elysia({ name: 'compat-n2yo' })
  for (const endpoint of Object.keys(N2YO_ENDPOINTS) as Endpoint[]) {
    app.get(pathOf(endpoint), answer, {
      params: t.Object(Object.fromEntries(N2YO_ENDPOINTS[endpoint].map((n) => [n, t.String()]))),
      response: responseSchemas(context, { 200: success[endpoint], ...errorSchemas }),
      detail: {
        tags: ['n2yo'],
        ...DESCRIPTIONS[endpoint],
        'x-parameters': [{ name: 'apiKey', in: 'query', required: false, schema: { type: 'string' }, description: 'Accepted and ignored (any value, or none); N2YO clients also glue `&apiKey=…` to the path, which works too' }],
        'x-response-headers': endpoint === 'visualpasses' || endpoint === 'radiopasses' ? PASS_HEADERS_DOC : ELEMENT_AGE_HEADERS_DOC,
      },
    })
  }
  // Paths the routes above do not match: `…/radiopasses/…/5/&apiKey=K` (the key after a slash), wrong segment counts, unknown endpoints.
  app.get(`${N2YO_PREFIX}/*`, answer, {
    response: responseSchemas(context, { 200: t.Union(Object.values(success)), ...errorSchemas }),
    detail: { hide: true },
  })
  return app
}
