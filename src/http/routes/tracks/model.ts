/** Schemas and shapes of ground tracks: JSON points and GeoJSON lines. */
import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import type { Satellite } from '../../../domain/catalog/catalog.ts'
import type { GroundTrack, TrackLine, TrackPoint } from '../../../domain/orbit/track.ts'
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
          epoch: isoInstant("The element set's epoch"),
          elementAgeDays: t.Number({ description: "Days from the element set's epoch to `from` of this piece" }),
        }),
      }),
    ),
    metadata: t.Object(
      {
        noradId: Type.Integer(),
        epoch: isoInstant("The element set's epoch"),
        elementAgeDays: t.Number({ description: "Days from the element set's epoch to the first sampled instant" }),
        omitted: Type.Integer({ description: 'Sampled instants without a valid position, left out of the lines' }),
        omittedReason: t.Nullable(t.String({ description: 'Why the first omitted instant has no position; null when none is omitted' })),
      },
      { description: 'A foreign member (RFC 7946 §6.1), ignored by GeoJSON readers: what the JSON form says in its metadata' },
    ),
  },
  {
    description:
      'RFC 7946 GeoJSON: one LineString per piece of the track, cut at the antimeridian (a piece ends on ±180° and the next begins on the opposite edge) and at omitted instants; a piece of one lone point is a Point.',
  },
)

const pointJson = (p: TrackPoint) => ({
  datetime: new Date(p.instantMs).toISOString(),
  latitude: p.latitudeDeg,
  longitude: p.longitudeDeg,
  altitude: p.altitudeKm,
})

const trackMetadata = (satellite: Satellite, fromMs: number, toMs: number, stepS: number, total: number, omitted: number, omittedReason: string | null) => ({
  noradId: satellite.noradId,
  name: satellite.name,
  epoch: satellite.epoch,
  from: new Date(fromMs).toISOString(),
  to: new Date(toMs).toISOString(),
  step: stepS,
  total,
  omitted,
  omittedReason,
  elementAgeDays: elementAgeDaysAt(satellite, fromMs),
})

export function trackJson(satellite: Satellite, track: GroundTrack, fromMs: number, toMs: number, stepS: number) {
  return {
    data: track.points.map(pointJson),
    metadata: trackMetadata(satellite, fromMs, toMs, stepS, track.points.length, track.omitted, track.firstOmissionReason),
  }
}

/** Instants computed and written per piece of a streamed track (~130 KB of JSON, ~1 ms of SGP4). */
export const TRACK_PIECE = 1000

/**
 * The text of `JSON.stringify(trackJson(…))`, written a piece at a time as the
 * client reads it: an answer of 10,000 points (1.3 MB) never sits whole in
 * memory, a slow reader holds back the computing instead of a queue of
 * answers, and a client that goes stops it. `first` is the first piece (the
 * caller computes it to know there is a position at all); `piece(start, end)`
 * samples the instants start..end-1.
 */
export function trackJsonStream(
  satellite: Satellite,
  fromMs: number,
  toMs: number,
  stepS: number,
  count: number,
  first: { end: number; points: TrackPoint[]; omitted: number; reason: string | null },
  piece: (start: number, end: number) => { points: TrackPoint[]; omitted: number; firstOmissionReason: string | null },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let next = first.end
  let total = 0
  let omitted = first.omitted
  let reason = first.reason
  let pending: TrackPoint[] | null = first.points
  let opened = false
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      let text = opened ? '' : '{"data":['
      if (pending === null && next < count) {
        const end = Math.min(count, next + TRACK_PIECE)
        const sampled = piece(next, end)
        next = end
        omitted += sampled.omitted
        reason ??= sampled.firstOmissionReason
        pending = sampled.points
      }
      if (pending !== null && pending.length > 0) {
        text += (total > 0 ? ',' : '') + JSON.stringify(pending.map(pointJson)).slice(1, -1)
        total += pending.length
      }
      pending = null
      opened = true
      if (next >= count) {
        text += `],"metadata":${JSON.stringify(trackMetadata(satellite, fromMs, toMs, stepS, total, omitted, reason))}}`
        controller.enqueue(encoder.encode(text))
        controller.close()
        return
      }
      controller.enqueue(encoder.encode(text))
    },
  }, { highWaterMark: 0 })
}

export function trackGeoJson(satellite: Satellite, lines: readonly TrackLine[], track: GroundTrack, fromMs: number) {
  return {
    type: 'FeatureCollection' as const,
    metadata: {
      noradId: satellite.noradId,
      epoch: satellite.epoch,
      elementAgeDays: elementAgeDaysAt(satellite, fromMs),
      omitted: track.omitted,
      omittedReason: track.firstOmissionReason,
    },
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
        epoch: satellite.epoch,
        elementAgeDays: elementAgeDaysAt(satellite, Math.round(line.instantsMs[0]!)),
      },
    })),
  }
}
