/**
 * wheretheiss.at v1: `/v1/satellites`, one satellite's position (`?units`,
 * `?timestamp`), up to 10 positions (`?timestamps`), its TLE, and what is at a
 * point of the Earth (`/v1/coordinates/{lat},{lon}`: time zone and country from
 * data shipped with the service), with wheretheiss.at's fields and units.
 */
import { Type } from '@sinclair/typebox'
import { Elysia, t } from 'elysia'
import type { Catalog, Satellite } from '../../../domain/catalog/catalog.ts'
import { footprintKm, julianDate, subsolarPoint } from '../../../domain/orbit/observing.ts'
import { positionAt, siderealTimeRad } from '../../../domain/orbit/position.ts'
import { isSunlit, sunPositionAu } from '../../../domain/orbit/sky.ts'
import { requestPath, shown } from '../../plugins/edge.ts'
import { ApiError } from '../../plugins/errors.ts'
import type { AnswerSet } from '../../representations/cache.ts'
import { givenMoreThanOnce, TIME_MAX_MS, TIME_MIN_MS } from '../../plugins/params.ts'
import { findSatellite, type ModuleContext, responseSchemas } from '../common.ts'
import { ISS_NORAD_ID } from '../satellites/index.ts'
import { Places } from './places.ts'
import { CATALOG_NUMBER_RULE, catalogNumber, compatNumber, ELEMENT_AGE_HEADERS_DOC, inFamilyShape, pathParam, setElementAge, unixSecondsFloor } from './shared.ts'

const KM_PER_MILE = 1.609344
/** The most instants one `positions` request may ask for. */
export const MAX_TIMESTAMPS = 10
const UNITS = ['kilometers', 'miles'] as const
type Units = (typeof UNITS)[number]

export const WhereTheIssErrorSchema = t.Object(
  { error: t.String({ description: 'What is wrong' }), status: Type.Integer({ description: 'Equals the HTTP status' }) },
  { description: "wheretheiss.at's error body" },
)

const SatelliteRefSchema = t.Object({ name: t.String({ description: '`iss` for 25544, else the catalogue name' }), id: Type.Integer({ description: 'NORAD id' }) })

export const WhereTheIssPositionSchema = t.Object({
  name: t.String(),
  id: Type.Integer(),
  latitude: t.Number({ description: 'Sub-satellite latitude, degrees' }),
  longitude: t.Number({ description: 'Sub-satellite longitude, degrees' }),
  altitude: t.Number({ description: 'Height above the WGS84 ellipsoid, in `units`' }),
  velocity: t.Number({ description: 'Speed (SGP4 TEME velocity), km/h or mph' }),
  visibility: t.Union([t.Literal('daylight'), t.Literal('eclipsed')], { description: "daylight: sunlit; eclipsed: in the Earth's umbra" }),
  footprint: t.Number({ description: 'Diameter of the area that sees it above the horizon, in `units`' }),
  timestamp: t.Number({ description: 'Unix seconds of the position' }),
  daynum: t.Number({ description: 'Julian date of the position' }),
  solar_lat: t.Number({ description: 'Latitude of the point with the Sun at the zenith, degrees' }),
  solar_lon: t.Number({ description: 'East longitude of that point, degrees [0, 360)' }),
  units: t.Union([t.Literal('kilometers'), t.Literal('miles')]),
})

export const WhereTheIssTlesSchema = t.Object({
  requested_timestamp: Type.Integer({ description: 'Unix seconds of the request' }),
  tle_timestamp: Type.Integer({ description: "Unix seconds of the element set's epoch" }),
  id: t.String({ description: 'NORAD id, as a string' }),
  name: t.String(),
  header: t.String({ description: 'The satellite name of the element set (line 0)' }),
  line1: t.String(),
  line2: t.String(),
})

export const WhereTheIssCoordinatesSchema = t.Object({
  latitude: t.String({ description: 'As requested' }),
  longitude: t.String({ description: 'As requested' }),
  timezone_id: t.String({ description: 'IANA time zone; Etc/GMT±N at sea' }),
  offset: t.Number({ description: "The zone's offset from UTC now, hours" }),
  country_code: t.String({ description: 'ISO 3166-1 alpha-2, or ?? at sea' }),
  map_url: t.String({ description: "A map link in the original's form (the service itself never fetches it)" }),
})

/** wheretheiss.at's name for a satellite: `iss` for the ISS (the only one it serves), the catalogue name for the others this service knows. */
const nameOf = (satellite: Satellite) => (satellite.noradId === ISS_NORAD_ID ? 'iss' : satellite.name)

function query(url: string): URLSearchParams {
  const q = url.indexOf('?')
  return new URLSearchParams(q < 0 ? '' : url.slice(q + 1))
}

/** The one value of a query parameter, or undefined (an empty value, `?format=`, is the parameter left out); a repeated one is a 400. */
function single(search: URLSearchParams, name: string): string | undefined {
  const given = search.getAll(name)
  if (given.length > 1) throw givenMoreThanOnce(name, given)
  return given[0] === '' ? undefined : given[0]
}

function unitsOf(search: URLSearchParams): Units {
  const raw = single(search, 'units')
  if (raw === undefined) return 'kilometers'
  if (!(UNITS as readonly string[]).includes(raw)) throw new ApiError(400, `units must be kilometers or miles (got "${shown(raw)}")`)
  return raw as Units
}

/** A Unix time in seconds (decimals allowed) within the service's range of instants, as ms. */
function unixInstant(name: string, raw: string): number {
  const value = compatNumber(raw)
  const ms = value === null ? Number.NaN : Math.round(value * 1000)
  if (!(ms >= TIME_MIN_MS && ms <= TIME_MAX_MS)) {
    throw new ApiError(400, `${name} must be Unix times in seconds between ${TIME_MIN_MS / 1000} (1957-10-04) and ${TIME_MAX_MS / 1000} (2100-01-01) (got "${shown(raw)}")`)
  }
  return ms
}

function positionJson(catalog: Catalog, satellite: Satellite, instantMs: number, units: Units) {
  const instant = new Date(instantMs)
  const gmst = siderealTimeRad(instant)
  const position = positionAt(catalog, catalog.indexOf(satellite.noradId)!, instant, gmst)
  if (!position.ok) throw new ApiError(422, `satellite ${satellite.noradId} has no valid position at ${instant.toISOString()}: ${position.reason}`)
  const { eciKm, latitudeDeg, longitudeDeg, altitudeKm, speedKmH } = position.state
  const scale = units === 'miles' ? 1 / KM_PER_MILE : 1
  const sun = subsolarPoint(instant, gmst)
  return {
    name: nameOf(satellite),
    id: satellite.noradId,
    latitude: latitudeDeg,
    longitude: longitudeDeg,
    altitude: altitudeKm * scale,
    velocity: speedKmH * scale,
    visibility: isSunlit(eciKm, sunPositionAu(instant)) ? ('daylight' as const) : ('eclipsed' as const),
    footprint: footprintKm(altitudeKm) * scale,
    timestamp: instantMs / 1000,
    daynum: julianDate(instantMs),
    solar_lat: sun.latitudeDeg,
    solar_lon: sun.longitudeDeg,
    units,
  }
}

function satelliteOf(catalog: Catalog, raw: string): Satellite {
  const id = catalogNumber('id', raw)
  if (catalog.get(id) === undefined) throw new ApiError(404, 'satellite not found')
  return findSatellite(catalog, id)
}

const COORDINATES_RULE = 'latitude,longitude in degrees (-90..90, -180..180)'

/** `lat,lon` (a space after the comma, as some clients send, is fine): the two numbers and the text given for each. */
function coordinatesOf(raw: string) {
  const parts = raw.split(',').map((p) => p.trim())
  const bad = () => new ApiError(400, `coordinates must be ${COORDINATES_RULE} (got "${shown(raw)}")`)
  if (parts.length !== 2) throw bad()
  const latitude = compatNumber(parts[0])
  const longitude = compatNumber(parts[1])
  if (latitude === null || longitude === null || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) throw bad()
  return { latitude, longitude, latitudeText: parts[0]!, longitudeText: parts[1]! }
}

const DESCRIPTION_NOTE = 'Errors are `{"error", "status"}`: 400 bad parameter, 404 unknown satellite, 422 no valid position (element age, decay).'

export function whereTheIssModule(context: ModuleContext) {
  const places = new Places()
  const { store, clock } = context
  const errorSchemas = { 400: WhereTheIssErrorSchema, 404: WhereTheIssErrorSchema, 422: WhereTheIssErrorSchema }
  const shaped = (status: number, error: string) => ({ error, status })
  type Ctx = { request: Request; set: AnswerSet; params: Record<string, string | null> }
  const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9]{1,9}$', example: '25544' }, description: 'NORAD catalog number (25544: the ISS)' } as const
  const unitsParam = { name: 'units', in: 'query' as const, required: false, schema: { type: 'string' as const, enum: [...UNITS] as string[], default: 'kilometers' }, description: 'Units of altitude, velocity and footprint' }

  /** What both position routes read first: the satellite (404 when unknown), then the query and its units (400). */
  const positionRequest = (request: Request, id: string) => {
    const catalog = store.current
    const satellite = satelliteOf(catalog, id)
    const search = query(request.url)
    return { catalog, satellite, search, units: unitsOf(search) }
  }

  return new Elysia({ name: 'compat-wheretheiss', prefix: '/v1' })
    .get(
      '/satellites',
      ({ set }: Ctx) =>
        inFamilyShape(set, shaped, () => {
          const iss = store.current.get(ISS_NORAD_ID)
          return iss ? [{ name: nameOf(iss), id: iss.noradId }] : []
        }),
      {
        response: responseSchemas(context, { 200: t.Array(SatelliteRefSchema) }),
        detail: { tags: ['wheretheiss'], summary: 'wheretheiss.at: the satellites', description: 'The ISS, as wheretheiss.at lists it (`[{"name": "iss", "id": 25544}]`). The other routes answer any satellite of the catalogue by its id.' },
      },
    )
    .get(
      '/satellites/:id',
      ({ request, set, params }: Ctx) =>
        inFamilyShape(set, shaped, () => {
          const { catalog, satellite, search, units } = positionRequest(request, pathParam(request, 'id', params.id, CATALOG_NUMBER_RULE))
          const timestamp = single(search, 'timestamp')
          const instantMs = timestamp === undefined ? unixSecondsFloor(clock()) * 1000 : unixInstant('timestamp', timestamp)
          const position = positionJson(catalog, satellite, instantMs, units)
          setElementAge(set, [satellite], instantMs)
          return position
        }),
      {
        params: t.NoValidate(t.Object({ id: t.String() })),
        response: responseSchemas(context, { 200: WhereTheIssPositionSchema, ...errorSchemas }),
        detail: {
          tags: ['wheretheiss'],
          summary: "wheretheiss.at: a satellite's position",
          description: `At \`timestamp\` (Unix seconds; default the current second): sub-satellite point, height, speed, sunlit or eclipsed, footprint, Julian date and the sub-solar point. ${DESCRIPTION_NOTE}`,
          'x-response-headers': ELEMENT_AGE_HEADERS_DOC,
          'x-parameters': [idParam, unitsParam, { name: 'timestamp', in: 'query', required: false, schema: { type: 'number' }, description: 'Unix seconds (1957-10-04..2100-01-01); default now' }],
        },
      },
    )
    .get(
      '/satellites/:id/positions',
      ({ request, set, params }: Ctx) =>
        inFamilyShape(set, shaped, () => {
          const { catalog, satellite, search, units } = positionRequest(request, pathParam(request, 'id', params.id, CATALOG_NUMBER_RULE))
          const raw = single(search, 'timestamps')
          if (raw === undefined) throw new ApiError(400, `timestamps is required: 1 to ${MAX_TIMESTAMPS} comma-separated Unix times in seconds`)
          const list = raw.split(',')
          if (list.length > MAX_TIMESTAMPS) throw new ApiError(400, `timestamps must list at most ${MAX_TIMESTAMPS} Unix times (got ${list.length})`)
          const instants = list.map((text) => unixInstant('timestamps', text.trim()))
          const positions = instants.map((instantMs) => positionJson(catalog, satellite, instantMs, units))
          setElementAge(set, [satellite], instants[0]!)
          return positions
        }),
      {
        params: t.NoValidate(t.Object({ id: t.String() })),
        response: responseSchemas(context, { 200: t.Array(WhereTheIssPositionSchema), ...errorSchemas }),
        detail: {
          tags: ['wheretheiss'],
          summary: 'wheretheiss.at: positions at several instants',
          description: `One position per instant of \`timestamps\` (1 to ${MAX_TIMESTAMPS} comma-separated Unix seconds), in their order. Any instant without a valid position makes the whole answer a 422. ${DESCRIPTION_NOTE}`,
          'x-response-headers': ELEMENT_AGE_HEADERS_DOC,
          'x-parameters': [idParam, unitsParam, { name: 'timestamps', in: 'query', required: true, schema: { type: 'string', example: '1780185600,1780185660' }, description: `1 to ${MAX_TIMESTAMPS} comma-separated Unix seconds` }],
        },
      },
    )
    .get(
      '/satellites/:id/tles',
      ({ request, set, params }: Ctx) =>
        inFamilyShape(set, shaped, () => {
          const catalog = store.current
          const satellite = satelliteOf(catalog, pathParam(request, 'id', params.id, CATALOG_NUMBER_RULE))
          const format = single(query(request.url), 'format') ?? 'json'
          if (format !== 'json' && format !== 'text') throw new ApiError(400, `format must be json or text (got "${shown(format)}")`)
          const lines = satellite.elements.tle
          if (!lines) throw new ApiError(422, `satellite ${satellite.noradId} has no two-line element set (its catalog number does not fit one)`)
          // Served whatever its age (the set, not a position): the headers say how old it is now.
          setElementAge(set, [satellite], clock())
          if (format === 'text') return new Response(`${satellite.name}\n${lines.line1}\n${lines.line2}`, { headers: { 'content-type': 'text/plain; charset=utf-8' } })
          return {
            requested_timestamp: unixSecondsFloor(clock()),
            tle_timestamp: unixSecondsFloor(satellite.elements.epochMs),
            id: String(satellite.noradId),
            name: nameOf(satellite),
            header: satellite.name,
            line1: lines.line1,
            line2: lines.line2,
          }
        }),
      {
        params: t.NoValidate(t.Object({ id: t.String() })),
        response: responseSchemas(context, { 200: WhereTheIssTlesSchema, ...errorSchemas }),
        detail: {
          tags: ['wheretheiss'],
          summary: "wheretheiss.at: a satellite's TLE",
          description: `The element set as published; \`id\` is a string, as wheretheiss.at sends it; \`format=text\` gives the three lines as text/plain. ${DESCRIPTION_NOTE}`,
          'x-response-headers': ELEMENT_AGE_HEADERS_DOC,
          'x-parameters': [idParam, { name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['json', 'text'], default: 'json' }, description: 'json or text' }],
          'x-response-content': { 'text/plain': { schema: { type: 'string', description: 'format=text: the name and the two lines, one a line' } } },
        },
      },
    )
    .get(
      '/coordinates/:coordinates',
      ({ request, set, params }: Ctx) =>
        inFamilyShape(set, shaped, async () => {
          const { latitude, longitude, latitudeText, longitudeText } = coordinatesOf(pathParam(request, 'coordinates', params.coordinates, COORDINATES_RULE))
          const place = await places.at(latitude, longitude, clock())
          return {
            latitude: latitudeText,
            longitude: longitudeText,
            timezone_id: place.timezoneId,
            offset: place.offsetHours,
            country_code: place.countryCode,
            map_url: `https://maps.google.com/maps?q=${latitudeText},${longitudeText}&z=4`,
          }
        }),
      {
        params: t.NoValidate(t.Object({ coordinates: t.String() })),
        response: responseSchemas(context, { 200: WhereTheIssCoordinatesSchema, 400: WhereTheIssErrorSchema }),
        detail: {
          tags: ['wheretheiss'],
          summary: 'wheretheiss.at: time zone and country at a point',
          description:
            'Answered offline from data shipped with the service: the IANA time zone (a nautical Etc/GMT±N zone at sea) and its offset now, and the ISO 3166-1 alpha-2 code of the territory, `??` at sea. Borders and zones are those of the libraries shipped (docs/compat.md), not a live geocoder.',
          'x-parameters': [{ name: 'coordinates', in: 'path', required: true, schema: { type: 'string', example: '37.795517,-122.393693' }, description: 'latitude,longitude in degrees' }],
        },
      },
    )
    // Any other path under /v1/ (`/v1/satellites/25544/unknown`, a wrong segment count): a 404 in the family's body, as its clients read errors.
    .get(
      '/*',
      ({ request, set }: Ctx) =>
        inFamilyShape(set, shaped, () => {
          throw new ApiError(404, `no such wheretheiss.at path: ${shown(requestPath(request.url))} (this service answers ${WHERETHEISS_PATHS.join(', ')})`)
        }),
      { response: responseSchemas(context, { 404: WhereTheIssErrorSchema }), detail: { hide: true } },
    )
}

/** The paths of the family, as its 404 lists them. */
const WHERETHEISS_PATHS = ['/v1/satellites', '/v1/satellites/{id}', '/v1/satellites/{id}/positions', '/v1/satellites/{id}/tles', '/v1/coordinates/{lat},{lon}'] as const
