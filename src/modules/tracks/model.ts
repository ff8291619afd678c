/** Schemas and shapes of ground tracks: JSON points and GeoJSON lines. */
import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import type { Satellite } from '../../catalog/catalog.ts'
import type { GroundTrack, TrackLine } from '../../orbit/track.ts'
import { elementAgeDaysAt, isoInstant } from '../satellites/model.ts'

export const TrackPointSchema = t.Object({
  datetime: isoInstant('The sampled instant'),
  latitude: t.Number({ description: 'degrees, geodetic (WGS84)' }),
  longitude: t.Number({ description: 'degrees, -180..180' }),
  altitude: t.Number({ description: 'km above the WGS84 ellipsoid' }),
})

export const TrackSchema = t.Object({
  data: t.Array(TrackPointSchema, { description: 'One point per sampled instant that has a position, in time order' }),
  metadata: t.Object({
    noradId: Type.Integer(),
    name: t.String(),
    epoch: isoInstant("The element set's epoch"),
    from: isoInstant('First sampled instant'),
    to: isoInstant('End of the interval (sampled when it falls on a step)'),
    step: Type.Integer({ description: 'seconds between samples' }),
    total: Type.Integer({ description: 'Points in data' }),
    omitted: Type.Integer({ description: 'Sampled instants without a valid position, left out of data' }),
    omittedReason: t.Nullable(t.String({ description: 'Why the first omitted instant has no position (element age, decay, SGP4); null when none is omitted' })),
    elementAgeDays: t.Number({ description: "Days from the element set's epoch to `from` (negative before it)" }),
  }),
})

const PositionSchema = t.Array(t.Number(), { minItems: 2, maxItems: 2, description: '[longitude, latitude], degrees' })

export const TrackGeoJsonSchema = t.Object(
  {
    type: t.Literal('FeatureCollection'),
    features: t.Array(
      t.Object({
        type: t.Literal('Feature'),
        geometry: t.Union([
          t.Object({ type: t.Literal('LineString'), coordinates: t.Array(PositionSchema) }),
          t.Object({ type: t.Literal('Point'), coordinates: PositionSchema }),
        ]),
        properties: t.Object({
          noradId: Type.Integer(),
          name: t.String(),
          from: isoInstant('Instant of the first position of this piece'),
          to: isoInstant('Instant of the last position of this piece'),
        }),
      }),
    ),
  },
  {
    description:
      'RFC 7946 GeoJSON: one LineString per piece of the track, cut at the antimeridian (a piece ends on ±180° and the next begins on the opposite edge) and at omitted instants; a piece of one lone point is a Point.',
  },
)

export function trackJson(satellite: Satellite, track: GroundTrack, fromMs: number, toMs: number, stepS: number) {
  return {
    data: track.points.map((p) => ({
      datetime: new Date(p.instantMs).toISOString(),
      latitude: p.latitudeDeg,
      longitude: p.longitudeDeg,
      altitude: p.altitudeKm,
    })),
    metadata: {
      noradId: satellite.noradId,
      name: satellite.name,
      epoch: satellite.epoch,
      from: new Date(fromMs).toISOString(),
      to: new Date(toMs).toISOString(),
      step: stepS,
      total: track.points.length,
      omitted: track.omitted,
      omittedReason: track.firstOmissionReason,
      elementAgeDays: elementAgeDaysAt(satellite, fromMs),
    },
  }
}

export function trackGeoJson(satellite: Satellite, lines: readonly TrackLine[]) {
  return {
    type: 'FeatureCollection' as const,
    features: lines.map((line) => ({
      type: 'Feature' as const,
      geometry:
        line.coordinates.length === 1
          ? { type: 'Point' as const, coordinates: line.coordinates[0]! }
          : { type: 'LineString' as const, coordinates: line.coordinates },
      properties: {
        noradId: satellite.noradId,
        name: satellite.name,
        from: new Date(Math.round(line.instantsMs[0]!)).toISOString(),
        to: new Date(Math.round(line.instantsMs.at(-1)!)).toISOString(),
      },
    })),
  }
}
