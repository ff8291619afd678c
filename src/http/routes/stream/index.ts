/**
 * Live positions as Server-Sent Events: GET /api/v1/satellites/:noradId/stream
 * (one satellite) and /api/v1/satellites/stream?ids= (several), one event per
 * second, with look angles when an observer is given.
 */
import { Elysia } from 'elysia'
import { log } from '../../../io/log.ts'
import { positionAt, positionsAt, type SatelliteState, siderealTimeRad } from '../../../domain/orbit/position.ts'
import { rangeRateKmS } from '../../../domain/orbit/radio.ts'
import { lookAngles, type Observer, toGeodeticRad } from '../../../domain/orbit/sky.ts'
import { geodeticToEcf } from 'satellite.js'
import type { Server } from 'bun'
import { requestPath } from '../../plugins/edge.ts'
import { lastForwardedFor } from '../../plugins/limits.ts'
import { ApiError } from '../../plugins/errors.ts'
import { routeParams } from '../../plugins/params.ts'
import { findSatellite, frequencyParam, type ModuleContext, noradIdParam, observerParams, radioJson, requirePosition } from '../common.ts'
import { streamPositionJson } from './model.ts'
import { OpenStreams, SSE_HEADERS, type SseEvent, sseStream } from './sse.ts'

export interface StreamOptions {
  /** Streams open at once across the service; one more gets 503. Default 100. */
  maxStreams?: number
  /** Streams one client (address) may hold open; one more gets 429. Default a quarter of maxStreams. */
  maxStreamsPerClient?: number
  /** Identify clients by the last X-Forwarded-For address (behind a proxy that sets it). */
  trustProxy?: boolean
  /** Time between heartbeat comments, ms. Default 15 000. */
  heartbeatMs?: number
  /**
   * With --workers: the instance's stream slots, which the supervisor holds,
   * so that the caps hold for the whole instance (each worker still counts its
   * own streams, to close them when it stops).
   */
  slots?: { acquire(client: string): Promise<'ok' | 'full' | 'client' | 'unanswered'>; release(client: string): void }
}

export const DEFAULT_MAX_STREAMS = 100
export const DEFAULT_HEARTBEAT_MS = 15_000
/** One event per second. */
export const STREAM_INTERVAL_MS = 1000
/** The most satellites one stream may follow. */
export const MAX_STREAM_IDS = 100

/** The observer, optional here: with latitude and longitude every position also has look angles. */
const observerQuery = {
  latitude: { type: 'number', min: -90, max: 90, description: 'Observer latitude, degrees (WGS84); with longitude, adds azimuth, elevation and range' },
  longitude: { type: 'number', min: -180, max: 180, description: 'Observer longitude, degrees, east positive; with latitude' },
  altitude: observerParams.altitude,
  frequency: { ...frequencyParam, description: `${frequencyParam.description} Only with an observer.` },
} as const

const oneRoute = routeParams({ params: { noradId: noradIdParam }, query: observerQuery })
const manyRoute = routeParams({
  query: {
    ids: { type: 'ids', maxItems: MAX_STREAM_IDS, required: true, description: `Catalog numbers, comma-separated: 1 to ${MAX_STREAM_IDS} distinct ids` },
    ...observerQuery,
  },
})

function observerOf(query: { latitude?: number; longitude?: number; altitude: number; frequency?: number }): Observer | null {
  if (query.latitude === undefined && query.longitude === undefined) {
    if (query.frequency !== undefined) throw new ApiError(400, `frequency needs an observer: give latitude and longitude too (got frequency=${query.frequency} alone)`)
    return null
  }
  if (query.latitude === undefined || query.longitude === undefined) {
    const given = query.latitude === undefined ? `longitude=${query.longitude} without latitude` : `latitude=${query.latitude} without longitude`
    throw new ApiError(400, `latitude and longitude must be given together (got ${given})`)
  }
  return { latitudeDeg: query.latitude, longitudeDeg: query.longitude, altitudeM: query.altitude }
}

/** How events come and how many streams may be open, with this instance's limits. */
const eventsDoc = (heartbeatMs: number, max: number, perClient: number) =>
  `Each event's \`data\` is one line of JSON. The first event comes at once, then one a second; a \`: heartbeat\` comment line comes every ${heartbeatMs / 1000} s, ` +
  'and `retry: 5000` asks clients to wait 5 s before reconnecting. The stream never ends by itself: it ends, and its timers stop, when the client disconnects. ' +
  `This instance keeps at most ${max} streams open at once (\`--max-streams\`), and at most ${perClient} per client address (\`--max-streams-per-client\`); ` +
  'one more is refused with 503 (all taken) or 429 (the share of that client taken) and the error body. Times are the service clock at each tick.'

/**
 * The stream routes. The open streams are in the app's store as `streams`
 * (`app.store.streams`: `active`, `max`, `closeAll()`); a stopping service calls
 * `closeAll()` before it drains, since a stream never finishes by itself.
 */
export function streamModule({ store, clock }: ModuleContext, options: StreamOptions = {}) {
  const streams = new OpenStreams(options.maxStreams ?? DEFAULT_MAX_STREAMS, options.maxStreamsPerClient)
  const clientOf = (request: Request, server: Server<unknown> | null | undefined): string =>
    (options.trustProxy ? lastForwardedFor(request.headers.get('x-forwarded-for')) : null) ?? server?.requestIP(request)?.address ?? 'unknown'
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS

  const refuse = (set: { headers: Record<string, unknown> }, grant: 'full' | 'client' | 'unanswered', held: number): never => {
    set.headers['retry-after'] = '10'
    if (grant === 'full') throw new ApiError(503, `too many open streams (at most ${streams.max}); try again later`)
    if (grant === 'unanswered') throw new ApiError(503, "the instance's open streams could not be counted (its supervisor did not answer in time); try again later")
    throw new ApiError(429, `this client has ${held} stream${held === 1 ? '' : 's'} open, its share (at most ${streams.maxPerClient} of ${streams.max}); close one first`)
  }

  /** The SSE answer, or a 503 when the cap is reached. HEAD gets the same status and headers, but no stream is opened. */
  const open = (request: Request, server: Server<unknown> | null | undefined, set: { headers: Record<string, unknown> }, next: () => SseEvent) => {
    if (streams.full) refuse(set, 'full', 0)
    const client = clientOf(request, server)
    if (streams.fullFor(client)) refuse(set, 'client', streams.heldBy(client))
    const { slots } = options
    if (!slots) return start(request, client, next, () => {})
    // The instance's slots: refused there, the client holds its whole share (or the instance is full).
    return slots.acquire(client).then((grant) => {
      if (grant !== 'ok') refuse(set, grant, streams.maxPerClient)
      return start(request, client, next, () => slots.release(client))
    })
  }

  /** Opens the stream (HEAD: none, and the slot is given back at once); `release` runs once when it ends. */
  const start = (request: Request, client: string, next: () => SseEvent, release: () => void) => {
    if (request.method === 'HEAD') {
      release()
      return new Response(null, { headers: SSE_HEADERS })
    }
    let end: (() => void) | undefined
    const stream = sseStream({
      next,
      intervalMs: STREAM_INTERVAL_MS,
      heartbeatMs,
      signal: request.signal,
      onClose: () => {
        if (end) streams.remove(end)
        release()
      },
      onError: (error) => log.error('stream event failed', { path: requestPath(request.url), error: String(error instanceof Error ? error.stack : error) }),
    })
    // A client gone before the stream started has closed it already.
    if (!stream.closed) {
      end = stream.end
      streams.add(end, client)
    }
    return new Response(stream.body, { headers: SSE_HEADERS })
  }

  /** Look angles, range rate and (with a frequency) Doppler shift from the observer; null without one. */
  const lookFor = (observer: Observer | null, frequencyMHz: number | undefined, state: SatelliteState, gmst: number) => {
    if (!observer) return null
    const look = lookAngles(observer, state.eciKm, gmst)
    const rangeRate = rangeRateKmS(geodeticToEcf(toGeodeticRad(observer)), state.eciKm, state.velocityKmS, gmst)
    return { ...look, ...radioJson(rangeRate, frequencyMHz) }
  }

  return new Elysia({ name: 'stream', prefix: '/api/v1/satellites' })
    .state('streams', streams)
    .get(
      '/stream',
      (ctx) => {
        const { query } = manyRoute.read(ctx.query)
        const observer = observerOf(query)
        if (query.ids.every((id) => store.current.get(id) === undefined)) throw new ApiError(404, `none of the satellites ${query.ids.join(', ')} is in the catalogue`)
        return open(ctx.request, ctx.server, ctx.set, () => {
          const catalog = store.current
          const instant = new Date(clock())
          const gmst = siderealTimeRad(instant)
          const { found, missing, noPosition, noPositionReasons } = positionsAt(catalog, query.ids, instant, gmst)
          const data = found.map(({ satellite, state }) => streamPositionJson(satellite, state, instant, lookFor(observer, query.frequency, state, gmst)))
          return { event: 'positions', data: { data, metadata: { total: data.length, datetime: instant.toISOString(), missing, noPosition, noPositionReasons } } }
        })
      },
      {
        ...manyRoute.hooks,
        detail: {
          tags: ['satellites'],
          summary: 'Live positions of several satellites (Server-Sent Events)',
          description:
            'A `text/event-stream` of `positions` events, one a second: `data` is `{data: [position], metadata: {total, datetime, missing, noPosition, noPositionReasons}}`, ' +
            'the batch geoposition answer at that second, each position also with `velocityKmHs` (km/h) and, with an observer, ' +
            '`azimuth`, `elevation` (degrees), `range` (km) and `rangeRate` (km/s, positive while receding; with `frequency` also `dopplerShiftHz`). Ids not in the catalogue are listed in `missing` (none of them known: 404). ' +
            eventsDoc(heartbeatMs, streams.max, streams.maxPerClient),
          responses: streamResponses('event: positions\ndata: {"data":[{"noradId":25544,"name":"ISS (ZARYA)","latitude":-12.3,"longitude":101.2,"epoch":"2026-05-30T12:25:10.469Z","datetime":"2026-05-31T06:00:00.000Z","altitude":417.2,"velocityKmHs":27576.1}],"metadata":{"total":1,"datetime":"2026-05-31T06:00:00.000Z","missing":[],"noPosition":[]}}\n\n'),
        },
      },
    )
    .get(
      '/:noradId/stream',
      (ctx) => {
        const { params, query } = oneRoute.read(ctx.query, ctx.params)
        const observer = observerOf(query)
        const first = store.current
        const satellite = findSatellite(first, params.noradId)
        requirePosition(first, satellite, new Date(clock()))
        return open(ctx.request, ctx.server, ctx.set, () => {
          // The catalogue may be replaced while the stream is open: read it on every tick.
          const catalog = store.current
          const instant = new Date(clock())
          const current = catalog.get(params.noradId)
          if (!current) {
            return {
              event: 'no-position',
              data: { noradId: params.noradId, datetime: instant.toISOString(), kind: 'missing', message: `satellite ${params.noradId} is no longer in the catalogue` },
            }
          }
          const gmst = siderealTimeRad(instant)
          const result = positionAt(catalog, catalog.indexOf(current.noradId)!, instant, gmst)
          if (!result.ok) {
            return { event: 'no-position', data: { noradId: current.noradId, datetime: instant.toISOString(), kind: result.kind, message: `no valid position: ${result.reason}` } }
          }
          return { event: 'position', data: streamPositionJson(current, result.state, instant, lookFor(observer, query.frequency, result.state, gmst)) }
        })
      },
      {
        ...oneRoute.hooks,
        detail: {
          tags: ['satellites'],
          summary: 'Live position of one satellite (Server-Sent Events)',
          description:
            'A `text/event-stream` of `position` events, one a second: `data` is the geoposition answer at that second ' +
            '(`noradId, name, latitude, longitude, epoch, datetime, altitude, elementAgeDays`) plus `velocityKmHs` (km/h) and, with an observer (`latitude`, `longitude`, ' +
            'optional `altitude` in metres), `azimuth`, `elevation` (degrees), `range` (km) and `rangeRate` (km/s, positive while receding; with `frequency` in MHz also `dopplerShiftHz`). A second without a valid position sends a `no-position` event ' +
            '`{noradId, datetime, kind, message}` instead (`kind` as in a batch\'s noPositionReasons, or `missing` once the satellite has left the catalogue). ' +
            'Unknown satellite: 404; no valid position when the stream would open: 422. ' +
            eventsDoc(heartbeatMs, streams.max, streams.maxPerClient),
          responses: streamResponses(
            'event: position\ndata: {"noradId":25544,"name":"ISS (ZARYA)","latitude":-12.3,"longitude":101.2,"epoch":"2026-05-30T12:25:10.469Z","datetime":"2026-05-31T06:00:00.000Z","altitude":417.2,"velocityKmHs":27576.1,"azimuth":231.5,"elevation":-41.2,"range":9120.4,"rangeRate":-3.912}\n\n',
            true,
          ),
        },
      },
    )
}

/** The answers of a stream route (`one`: the one-satellite route, the only one refused with a 422). */
function streamResponses(example: string, one = false) {
  const schema = {
    type: 'object' as const,
    required: ['message', 'statusCode'],
    properties: { message: { type: 'string' as const }, statusCode: { type: 'integer' as const } },
  }
  const error = (description: string) => ({ description, content: { 'application/json': { schema } } })
  return {
    200: {
      description: 'An endless event stream',
      content: { 'text/event-stream': { schema: { type: 'string' as const }, example: `retry: 5000\n\n${example}: heartbeat\n\n` } },
    },
    400: error('A parameter breaks its rule'),
    404: error('Not in the catalogue'),
    ...(one ? { 422: error('No valid position when the stream would open') } : {}),
    429: error('This client (address) holds its share of the streams already (a quarter of the cap by default); Retry-After says when to try again'),
    503: error('Too many streams open; Retry-After says when to try again'),
  }
}
