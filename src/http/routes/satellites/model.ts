/** Schemas and JSON shapes of satellites, geopositions and the list. */
import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import type { Satellite } from '../../../domain/catalog/catalog.ts'
import type { SatelliteState } from '../../../domain/orbit/position.ts'

/*
 * Integers use TypeBox's own Integer: Elysia's `t.Integer` documents itself as
 * "string or integer" (its query coercion), which is wrong for a response.
 */

export const ErrorSchema = t.Object(
  {
    message: t.String({ description: 'What is wrong: names the parameter and the rule' }),
    statusCode: Type.Integer({ description: 'Equals the HTTP status' }),
  },
  { description: 'Error body' },
)

/** An ISO 8601 UTC instant with milliseconds, in a schema. */
export const isoInstant = (description: string) => t.String({ format: 'date-time', description })

export const TleSchema = t.Object(
  {
    line1: t.String({ description: 'First TLE line (69 characters)' }),
    line2: t.String({ description: 'Second TLE line (69 characters)' }),
  },
  { description: 'The two-line element set as published' },
)

export const OrbitalParamsSchema = t.Object(
  {
    inclination: t.Number({ description: 'degrees' }),
    eccentricity: t.Number({ description: 'no unit' }),
    meanMotion: t.Number({ description: 'revolutions per day' }),
    orbitalPeriod: t.Number({ description: 'minutes (1440 / meanMotion)' }),
    perigeeHeight: t.Number({ description: 'km above 6378.137 km' }),
    apogeeHeight: t.Number({ description: 'km above 6378.137 km' }),
    semiMajorAxis: t.Number({ description: "km, from SGP4's recovered (Brouwer) mean motion, μ = 398600.4418 km³/s²" }),
  },
  { description: "From the element set's mean elements" },
)

export const SatelliteSchema = t.Object({
  noradId: Type.Integer({ description: 'NORAD catalog number' }),
  name: t.String(),
  labels: t.Array(t.String(), { description: 'Derived tags; exactly one orbit class among LEO, MEO, GEO, HEO' }),
  groups: t.Array(t.String(), { description: 'Upstream groups the satellite was loaded from, sorted' }),
  tle: t.Nullable(TleSchema, { description: 'null when the element set has no two-line form (OMM past the 5-digit range)' }),
  epoch: t.Nullable(isoInstant("The element set's epoch")),
  orbitalParams: t.Nullable(OrbitalParamsSchema),
})

export const ELEMENT_AGE_DESCRIPTION = "Days from the element set's epoch to this instant (negative before it): positions are given within the age limit only (--max-element-age)"

/** The decimals of `elementAgeDays`: to the thousandth of a day. */
export const ELEMENT_AGE_DECIMALS = 3

/** Days from an epoch to an instant (both ms since 1970), unrounded. */
export function daysBetween(epochMs: number, instantMs: number): number {
  return (instantMs - epochMs) / 86_400_000
}

/** Days from a satellite's epoch to an instant, to the thousandth (the `elementAgeDays` of every position). */
export function elementAgeDaysAt(satellite: Satellite, instantMs: number): number {
  return Math.round(daysBetween(satellite.epochMs, instantMs) * 10 ** ELEMENT_AGE_DECIMALS) / 10 ** ELEMENT_AGE_DECIMALS
}

export const GeopositionSchema = t.Object({
  latitude: t.Number({ description: 'degrees, geodetic (WGS84)' }),
  longitude: t.Number({ description: 'degrees, -180..180' }),
  altitude: t.Number({ description: 'km above the WGS84 ellipsoid' }),
})

export const SatellitePositionSchema = t.Object({
  noradId: Type.Integer(),
  name: t.String(),
  latitude: t.Number({ description: 'degrees, geodetic (WGS84)' }),
  longitude: t.Number({ description: 'degrees, -180..180' }),
  epoch: isoInstant("The element set's epoch"),
  datetime: isoInstant('The instant of the position'),
  altitude: t.Number({ description: 'km above the WGS84 ellipsoid' }),
  elementAgeDays: t.Number({ description: ELEMENT_AGE_DESCRIPTION }),
})

export const SatelliteListSchema = t.Object({
  data: t.Array(SatelliteSchema),
  metadata: t.Object({
    total: Type.Integer({ description: 'Satellites that match (on every page together); the whole catalogue without filters' }),
    page: t.Optional(Type.Integer({ description: 'The page shown, from 1 (only with page or page-size)' })),
    pageSize: t.Optional(Type.Integer({ description: 'Satellites per page (only with page or page-size)' })),
    pages: t.Optional(Type.Integer({ description: 'How many pages the matches fill: ceil(total / pageSize); 0 when nothing matches' })),
  }),
})

/** What each kind of refusal (validity.ts RefusalKind) means. */
export const REFUSAL_KINDS_MEANING =
  'element-age: beyond the age limit, or before the year of launch; decayed: at or after the decay instant; sgp4: SGP4 gives no state; implausible: a height outside the plausible range'
/** The kinds of refusal (validity.ts RefusalKind). */
export const RefusalKindSchema = t.Union([t.Literal('element-age'), t.Literal('decayed'), t.Literal('sgp4'), t.Literal('implausible')], { description: REFUSAL_KINDS_MEANING })

export const NoPositionReasonSchema = t.Object({
  noradId: Type.Integer(),
  kind: RefusalKindSchema,
  reason: t.String(),
})

export const BatchGeopositionSchema = t.Object({
  data: t.Array(SatellitePositionSchema, { description: 'One entry per requested satellite that has a position, in the order of ids' }),
  metadata: t.Object({
    total: Type.Integer({ description: 'Entries in data' }),
    datetime: isoInstant('The instant of every position'),
    missing: t.Array(Type.Integer(), { description: 'Requested ids that are not in the catalogue, in the order of ids' }),
    noPosition: t.Array(Type.Integer(), {
      description: 'Requested ids in the catalogue without a valid position at that instant (see the API rule), in the order of ids',
    }),
    noPositionReasons: t.Array(NoPositionReasonSchema, { description: 'Why each id of noPosition has none, in the same order' }),
  }),
})

export const SatelliteOneSchema = t.Object({
  data: SatelliteSchema,
  metadata: t.Object({ total: Type.Integer({ minimum: 1, maximum: 1 }) }),
})

export const IssSchema = t.Object({
  data: t.Composite([SatelliteSchema, t.Object({ geoposition: GeopositionSchema })]),
  metadata: t.Object({
    total: Type.Integer({ minimum: 1, maximum: 1 }),
    datetime: isoInstant('The instant of the position'),
    elementAgeDays: t.Number({ description: ELEMENT_AGE_DESCRIPTION }),
  }),
})

export const iso = (ms: number) => new Date(ms).toISOString()

export function satelliteJson(satellite: Satellite) {
  return {
    noradId: satellite.noradId,
    name: satellite.name,
    labels: satellite.labels,
    groups: satellite.groups,
    tle: satellite.elements.tle ? { line1: satellite.elements.tle.line1, line2: satellite.elements.tle.line2 } : null,
    epoch: satellite.epoch,
    orbitalParams: satellite.orbitalParams,
  }
}

/** A satellite's position at an instant, as /:noradId/geoposition answers it. */
export function satellitePositionJson(satellite: Satellite, state: SatelliteState, instant: Date) {
  return {
    noradId: satellite.noradId,
    name: satellite.name,
    latitude: state.latitudeDeg,
    longitude: state.longitudeDeg,
    epoch: satellite.epoch,
    datetime: instant.toISOString(),
    altitude: state.altitudeKm,
    elementAgeDays: elementAgeDaysAt(satellite, instant.getTime()),
  }
}

export function geopositionJson(state: SatelliteState) {
  return { latitude: state.latitudeDeg, longitude: state.longitudeDeg, altitude: state.altitudeKm }
}
