/** GET /api/v1/satellites/:noradId/positions: a ground track, as points or as GeoJSON. */
import { Elysia, t } from 'elysia'
import { sampleCount, type TrackPoint, trackLines, trackSamples } from '../../../domain/orbit/track.ts'
import { groundTrackSliced } from '../../../domain/orbit/track-sliced.ts'
import { ApiError } from '../../plugins/errors.ts'
import { routeParams } from '../../plugins/params.ts'
import { findSatellite, instantOf, type ModuleContext, noPositionBetween, noradIdParam, responseSchemas, spanEndMs } from '../common.ts'
import { ErrorSchema } from '../satellites/model.ts'
import { TRACK_PIECE, TrackGeoJsonSchema, TrackSchema, trackGeoJson, trackJson, trackJsonStream } from './model.ts'

/** The most instants one track may sample. */
export const MAX_TRACK_POINTS = 10_000
const DEFAULT_STEP_S = 60

const INSTANT = 'ISO 8601 with a zone (Z or ±hh:mm), 1957-10-04..2100-01-01'

const tracksRoute = routeParams({
  params: { noradId: noradIdParam },
  query: {
    from: { type: 'time', description: `First instant, ${INSTANT}. Default: now.` },
    to: {
      type: 'time',
      description: `Last instant (sampled when it falls on a step), ${INSTANT}. Default: one orbital period after from (shortened to what ${MAX_TRACK_POINTS} points at step allow, and to 2100-01-01).`,
    },
    step: { type: 'integer', min: 1, max: 86_400, default: DEFAULT_STEP_S, unit: 'seconds', description: 'Seconds between samples, 1..86400' },
    format: {
      type: 'enum',
      values: ['json', 'geojson'],
      default: 'json',
      description: '`json`: `{data: points, metadata}`; `geojson`: a FeatureCollection of LineStrings cut at the antimeridian',
    },
  },
})

export function tracksModule(context: ModuleContext) {
  const { store, clock } = context
  return new Elysia({ name: 'tracks', prefix: '/api/v1/satellites' }).get(
    '/:noradId/positions',
    async (ctx) => {
      const { params, query } = tracksRoute.read(ctx.query, ctx.params)
      const catalog = store.current
      const satellite = findSatellite(catalog, params.noradId)
      const stepMs = query.step * 1000
      const fromMs = instantOf(query.from, clock).getTime()
      const oneOrbitMs = Math.round(satellite.orbitalParams.orbitalPeriod * 60_000)
      const toMs = query.to !== undefined ? Date.parse(query.to) : spanEndMs(fromMs, Math.min(oneOrbitMs, (MAX_TRACK_POINTS - 1) * stepMs))
      if (toMs < fromMs) {
        const from = query.from === undefined ? `from (not given: now, ${new Date(fromMs).toISOString()})` : `from (${new Date(fromMs).toISOString()})`
        throw new ApiError(400, `to (${new Date(toMs).toISOString()}) must not be before ${from}`)
      }
      const count = sampleCount(fromMs, toMs, stepMs)
      if (count > MAX_TRACK_POINTS) {
        throw new ApiError(400, `from, to and step give ${count} points; at most ${MAX_TRACK_POINTS} (raise step or shorten the interval)`)
      }
      const index = catalog.indexOf(satellite.noradId)!
      if (query.format === 'geojson') {
        // Up to 10,000 propagations (~15 ms): as heavy work, a piece at a time, a few at once, stopped if the client goes.
        const track = await context.heavy.run(groundTrackSliced(catalog, index, fromMs, toMs, stepMs), ctx.request.signal)
        if (track.points.length === 0) throw noPositionBetween(satellite.noradId, fromMs, toMs, track.firstOmissionReason)
        ctx.set.headers['content-type'] = 'application/geo+json'
        return trackGeoJson(satellite, trackLines(track), track, fromMs)
      }
      // JSON is written a piece at a time as the client reads (trackJsonStream); the pieces up to the
      // first position are computed now, to answer 422 when there is none.
      const piece = (start: number, end: number) => trackSamples(catalog, index, fromMs, stepMs, start, end)
      const first = { end: 0, points: [] as TrackPoint[], omitted: 0, reason: null as string | null }
      while (first.points.length === 0 && first.end < count) {
        const end = Math.min(count, first.end + TRACK_PIECE)
        const sampled = piece(first.end, end)
        first.end = end
        first.points = sampled.points
        first.omitted += sampled.omitted
        first.reason ??= sampled.firstOmissionReason
      }
      if (first.points.length === 0) throw noPositionBetween(satellite.noradId, fromMs, toMs, first.reason)
      if (count <= TRACK_PIECE) return trackJson(satellite, { points: first.points, omitted: first.omitted, firstOmissionReason: first.reason, stepMs }, fromMs, toMs, query.step)
      // (A Response the route's typing cannot express next to the objects: its schema is checked on the objects.)
      return new Response(trackJsonStream(satellite, fromMs, toMs, query.step, count, first, piece), { headers: { 'content-type': 'application/json; charset=utf-8' } }) as never
    },
    {
      ...tracksRoute.hooks,
      response: responseSchemas(context, { 200: t.Union([TrackSchema, TrackGeoJsonSchema]), 400: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema, 503: ErrorSchema }),
      detail: {
        tags: ['satellites'],
        summary: 'Ground track: positions over an interval',
        description:
          `The sub-satellite point and height at \`from\`, \`from + step\`, … up to and including \`to\`: at most ${MAX_TRACK_POINTS} instants, ` +
          '`to` before `from` or more points than that is a 400. Instants without a valid position (the API rule) are left out and counted in ' +
          '`metadata.omitted`; when no instant has one, 422. `format=geojson` answers `application/geo+json`: a FeatureCollection of LineStrings ' +
          '(`[longitude, latitude]`) cut at the antimeridian, so no line jumps across the map, and at omitted instants.',
        'x-response-content': { 'application/geo+json': { schema: TrackGeoJsonSchema } },
      },
    },
  )
}
