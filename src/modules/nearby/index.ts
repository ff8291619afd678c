/** GET /api/v1/satellites/nearby: satellites above an observer. */
import { Elysia } from 'elysia'
import { NearbyEngine, TABLE_STEP_MS } from '../../orbit/nearby-engine.ts'
import { routeParams } from '../../plugins/params.ts'
import { instantOf, type ModuleContext, observerParams, timeParam } from '../common.ts'
import { ErrorSchema } from '../satellites/model.ts'
import { NearbyResponseSchema, nearbyEntryJson } from './model.ts'

const nearbyParams = {
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
  'visible-only': { type: 'boolean', default: false, description: 'Only satellites visible to the naked eye' },
  time: timeParam,
} as const

const nearbyRoute = routeParams({ query: nearbyParams })

export function nearbyModule({ store, clock }: ModuleContext) {
  const engine = new NearbyEngine()
  return new Elysia({ name: 'nearby', prefix: '/api/v1/satellites' }).get(
    '/nearby',
    (ctx) => {
      const { query } = nearbyRoute.read(ctx)
      const instant = instantOf(query.time, clock)
      const observer = { latitudeDeg: query.latitude, longitudeDeg: query.longitude, altitudeM: query.altitude }
      const catalog = store.current
      const { sky, entries } = engine.find(catalog, {
        observer,
        instant,
        minElevationDeg: query['elevation-threshold'],
        azimuthFromDeg: query['azimuth-range-from'],
        azimuthToDeg: query['azimuth-range-to'],
        visibleOnly: query['visible-only'],
      })
      // Requests for "now" keep coming: have the next grid table ready before it is needed.
      if (query.time === undefined) engine.prefetch(catalog, NearbyEngine.gridBefore(instant.getTime()) + 2 * TABLE_STEP_MS)
      const extended = query.mode === 'extended'
      return {
        metadata: { total: entries.length, mode: extended ? ('extended' as const) : ('basic' as const) },
        observer: { latitude: query.latitude, longitude: query.longitude, altitude: query.altitude, datetime: instant.toISOString() },
        satellites: entries.map((e) => nearbyEntryJson(e, sky.observerDaytime, extended)),
      }
    },
    {
      ...nearbyRoute.hooks,
      response: { 200: NearbyResponseSchema, 400: ErrorSchema },
      detail: {
        tags: ['satellites'],
        summary: 'Satellites above an observer',
        description:
          'Every satellite with a position at or above `elevation-threshold`, highest first. `visible`: sunlit and the Sun at or below -6° at the observer.',
      },
    },
  )
}
