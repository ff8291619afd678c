/** GET /api/v1/satellites/nearby: satellites above an observer. */
import { Elysia } from 'elysia'
import type { Catalog } from '../../../domain/catalog/catalog.ts'
import type { NearbyQuery, NearbyResult } from '../../../domain/nearby/selection.ts'
import { NearbyEngine, TABLE_STEP_MS } from '../../../domain/nearby/engine.ts'
import { soon } from '../../../io/schedule.ts'
import { prepareResonance } from '../../../domain/orbit/resonance.ts'
import { routeParams, type Values } from '../../plugins/params.ts'
import { frequencyParam, instantOf, leftOutNotice, magnitudeLimitParam, type ModuleContext, observerParams, timeParam, responseSchemas } from '../common.ts'
import { ErrorSchema } from '../satellites/model.ts'
import { type NearbyFound, type NearbyResponse, NearbyResponseSchema, nearbyEntryJson } from './model.ts'
import { NearbyAnswerWriter } from './answer-writer.ts'

export const nearbyParams = {
  ...observerParams,
  mode: { type: 'enum', values: ['basic', 'extended'], default: 'basic', description: 'Fields per satellite' },
  'azimuth-range-from': { type: 'number', min: 0, max: 360, default: 0, description: 'Lowest azimuth, degrees (inclusive)' },
  'azimuth-range-to': {
    type: 'number',
    min: 0,
    max: 360,
    default: 360,
    description: 'Highest azimuth, degrees (inclusive); below azimuth-range-from the window wraps through north',
  },
  'elevation-threshold': { type: 'number', min: 10, max: 90, default: 10, description: 'Lowest elevation, degrees (inclusive)' },
  'visible-only': { type: 'boolean', default: false, description: 'Only satellites visible to the naked eye (see `visible`)' },
  'magnitude-limit': magnitudeLimitParam,
  time: timeParam,
  frequency: frequencyParam,
} as const

const nearbyRoute = routeParams({ query: nearbyParams })

export type NearbyParams = Values<typeof nearbyParams>

/** The search behind a /nearby answer for parsed parameters, with `find` doing it (the engine, or the plain loop). */
export function nearbyFound(
  find: (catalog: Catalog, query: NearbyQuery) => NearbyResult,
  catalog: Catalog,
  query: NearbyParams,
  instant: Date,
): NearbyFound {
  const { sky, entries } = find(catalog, {
    observer: { latitudeDeg: query.latitude, longitudeDeg: query.longitude, altitudeM: query.altitude },
    instant,
    minElevationDeg: query['elevation-threshold'],
    azimuthFromDeg: query['azimuth-range-from'],
    azimuthToDeg: query['azimuth-range-to'],
    visibleOnly: query['visible-only'],
    magnitudeLimit: query['magnitude-limit'],
    geoposition: query.mode === 'extended',
  })
  const extended = query.mode === 'extended'
  const ms = instant.getTime()
  const leftOut = catalog.validity.countRefusals(ms, (i) => catalog.satrecAt(i))
  const maxAgeMs = catalog.validity.policy.maxElementAgeMs
  const notice = leftOutNotice(catalog, leftOut, ms)
  const head = {
    metadata: {
      total: entries.length,
      mode: extended ? ('extended' as const) : ('basic' as const),
      magnitudeLimit: query['magnitude-limit'],
      ...(query.frequency === undefined ? {} : { frequency: query.frequency }),
      leftOut,
      maxElementAgeDays: maxAgeMs === null ? null : maxAgeMs / 86_400_000,
      ...(notice === null ? {} : { notice }),
    },
    observer: { latitude: query.latitude, longitude: query.longitude, altitude: query.altitude, datetime: instant.toISOString() },
  }
  return { head, catalog, entries, observerDaytime: sky.observerDaytime, extended, instantMs: ms, frequencyMHz: query.frequency }
}

/** The answer as an object of the schema's shape: what the response checks read, and the reference whose JSON NearbyAnswerWriter writes. */
export function nearbyAnswerObject({ head, entries, observerDaytime, extended, instantMs, frequencyMHz }: NearbyFound): NearbyResponse {
  return { ...head, satellites: entries.map((e) => nearbyEntryJson(e, observerDaytime, extended, instantMs, frequencyMHz)) }
}

/**
 * The answer as it goes out: its JSON bytes, written by `writer`, in a
 * Response made here; or, where responses are checked against their schema
 * (the tests), the object, which Elysia checks and serialises to the same
 * bytes. Bun copies a typed array into a Response as it is made, so the
 * writer's buffer is free for the next answer at once. (Its bytes returned to
 * Elysia, or decoded into a string for it, peaked 10–15 MB higher under load
 * and saved less CPU: docs/architecture.md.)
 */
export function nearbyResponse({ checkResponses = true }: Pick<ModuleContext, 'checkResponses'>, writer: NearbyAnswerWriter, found: NearbyFound): NearbyResponse | Response {
  // Elysia adds the headers every answer carries, JSON's content type among them, in their usual order.
  return checkResponses ? nearbyAnswerObject(found) : new Response(writer.write(found))
}

/** Sliced work run one part after the other (absent parts left out); undefined when there is none. */
function inOrder(...parts: (Generator<void, void> | undefined)[]): Generator<void, void> | undefined {
  const present = parts.filter((part) => part !== undefined)
  if (present.length === 0) return undefined
  return (function* () {
    for (const part of present) yield* part
  })()
}

export interface NearbyOptions {
  /** Fill the position tables for now and the next grid instant in the background right away (the service does; tests need not). */
  warm?: boolean
  /** The engine to search with (shared with other routes that look for satellites above an observer); default: one of its own. */
  engine?: NearbyEngine
}

export function nearbyModule(context: ModuleContext, { warm = false, engine = new NearbyEngine({ defer: soon }) }: NearbyOptions = {}) {
  const { store, clock } = context
  if (warm) {
    const grid = NearbyEngine.gridBefore(clock())
    for (const gridMs of [grid, grid + TABLE_STEP_MS, grid + 2 * TABLE_STEP_MS]) engine.prefetch(store.current, gridMs)
  }
  const writer = new NearbyAnswerWriter()
  return new Elysia({ name: 'nearby', prefix: '/api/v1/satellites' }).get(
    '/nearby',
    (ctx) => {
      const { query } = nearbyRoute.read(ctx.query)
      const instant = instantOf(query.time, clock)
      const catalog = store.current
      const answer = () => nearbyResponse(context, writer, nearbyFound((c, q) => engine.find(c, q), catalog, query, instant))
      // Requests for "now" keep coming: have the next grid table ready before it is needed.
      if (query.time === undefined) engine.prefetch(catalog, NearbyEngine.gridBefore(instant.getTime()) + 2 * TABLE_STEP_MS)
      // Decades from the epochs, the resonance integrator first runs that far for every resonant record (~2 s),
      // and (with no age limit) the decay searches the left-out counts need (~4 s at 2099): as heavy work, in slices, so that other
      // requests are served meanwhile. Otherwise no promise: the answer at once.
      const ms = instant.getTime()
      const preparing =
        query.time === undefined
          ? undefined
          : inOrder(prepareResonance(catalog.resonantSatrecs, ms), catalog.validity.prepareDecays(ms, (i) => catalog.satrecAt(i)))
      const answered: Promise<ReturnType<typeof answer>> | ReturnType<typeof answer> = preparing
        ? context.heavy.run(preparing, ctx.request.signal).then(answer)
        : answer()
      // The schema's answer, or a Response of its JSON (nearbyResponse).
      return answered as never
    },
    {
      ...nearbyRoute.hooks,
      response: responseSchemas(context, { 200: NearbyResponseSchema, 400: ErrorSchema }),
      detail: {
        tags: ['satellites'],
        summary: 'Satellites above an observer',
        description:
          'Every satellite with a position at or above `elevation-threshold`, highest first. `magnitude`: the estimated apparent visual magnitude (null when the satellite is in the Earth\'s shadow), from its standard magnitude (published values for the ISS, the Chinese station, HST...; defaults by name family, R/B and DEB, and orbit class: see the README), range and phase angle (Lambertian sphere). `visible`: visible to the naked eye, i.e. sunlit, the Sun at or below -6° at the observer, and `magnitude` at or below `magnitude-limit`. ' +
          '`rangeRate`: how fast the distance grows (km/s, negative while the satellite approaches); with `frequency` (MHz) also `dopplerShiftHz`. ' +
          'Satellites whose elements are too far from the instant (--max-element-age) or that have decayed by then are not considered: ' +
          '`metadata.leftOut` counts them, and `metadata.notice` says what to do when they are most of the catalogue.',
      },
    },
  )
}
