/** Satellites: the list, one satellite, its geoposition, and the ISS. */
import { Elysia } from 'elysia'
import type { Catalog, Satellite } from '../../catalog/catalog.ts'
import { positionAt, siderealTimeRad } from '../../orbit/position.ts'
import { ApiError } from '../../plugins/errors.ts'
import { routeParams } from '../../plugins/params.ts'
import { jsonRepresentation, RepresentationCache } from '../../plugins/representations.ts'
import { instantOf, type ModuleContext, noradIdParam, timeParam } from '../common.ts'
import {
  ErrorSchema,
  geopositionJson,
  IssSchema,
  SatelliteListSchema,
  SatelliteOneSchema,
  SatellitePositionSchema,
  satelliteJson,
} from './model.ts'

export const ISS_NORAD_ID = 25544

const issRoute = routeParams({ query: { time: timeParam } })
const oneRoute = routeParams({ params: { noradId: noradIdParam } })
const geopositionRoute = routeParams({ params: { noradId: noradIdParam }, query: { time: timeParam } })

function findSatellite(catalog: Catalog, noradId: number): Satellite {
  const satellite = catalog.get(noradId)
  if (!satellite) throw new ApiError(404, `satellite ${noradId} is not in the catalogue`)
  return satellite
}

/** The satellite's position at `instant`, or a 422 that says why there is none. */
function requirePosition(catalog: Catalog, satellite: Satellite, instant: Date) {
  const result = positionAt(catalog.satrecOf(satellite), satellite.elements, instant, siderealTimeRad(instant))
  if (!result.ok) {
    throw new ApiError(422, `satellite ${satellite.noradId} has no valid position at ${instant.toISOString()}: ${result.reason}`)
  }
  return result.state
}

export function satellitesModule({ store, clock }: ModuleContext) {
  const answers = new RepresentationCache<Catalog>()

  return new Elysia({ name: 'satellites', prefix: '/api/v1/satellites' })
    .get(
      '',
      ({ request }) => {
        const catalog = store.current
        const list = answers.get(catalog, 'list', () =>
          jsonRepresentation(catalog.version, 'list', { data: catalog.satellites.map(satelliteJson), metadata: { total: catalog.size } }),
        )
        return answers.respond(request, list)
      },
      {
        response: { 200: SatelliteListSchema },
        detail: {
          tags: ['satellites'],
          summary: 'List all satellites',
          description:
            'The whole catalogue ordered by noradId ascending. Serialised and compressed (gzip, brotli) once per catalogue version; sent with a strong ETag, and a matching If-None-Match gets 304.',
        },
      },
    )
    .get(
      '/iss',
      (ctx) => {
        const { query } = issRoute.read(ctx)
        const catalog = store.current
        const instant = instantOf(query.time, clock)
        const satellite = findSatellite(catalog, ISS_NORAD_ID)
        const state = requirePosition(catalog, satellite, instant)
        return {
          data: { ...satelliteJson(satellite), geoposition: geopositionJson(state) },
          metadata: { total: 1 as const, datetime: instant.toISOString() },
        }
      },
      {
        ...issRoute.hooks,
        response: { 200: IssSchema, 400: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema },
        detail: { tags: ['satellites'], summary: 'The International Space Station (25544) with its position' },
      },
    )
    .get(
      '/:noradId',
      (ctx) => {
        const { params } = oneRoute.read(ctx)
        const catalog = store.current
        const satellite = findSatellite(catalog, params.noradId)
        const key = `satellite/${satellite.noradId}`
        const one = answers.get(catalog, key, () =>
          jsonRepresentation(catalog.version, key, { data: satelliteJson(satellite), metadata: { total: 1 } }),
        )
        return answers.respond(ctx.request, one)
      },
      {
        ...oneRoute.hooks,
        response: { 200: SatelliteOneSchema, 400: ErrorSchema, 404: ErrorSchema },
        detail: { tags: ['satellites'], summary: 'One satellite' },
      },
    )
    .get(
      '/:noradId/geoposition',
      (ctx) => {
        const { params, query } = geopositionRoute.read(ctx)
        const catalog = store.current
        const instant = instantOf(query.time, clock)
        const satellite = findSatellite(catalog, params.noradId)
        const state = requirePosition(catalog, satellite, instant)
        return {
          noradId: satellite.noradId,
          name: satellite.name,
          latitude: state.latitudeDeg,
          longitude: state.longitudeDeg,
          epoch: satellite.epoch,
          datetime: instant.toISOString(),
          altitude: state.altitudeKm,
        }
      },
      {
        ...geopositionRoute.hooks,
        response: { 200: SatellitePositionSchema, 400: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema },
        detail: {
          tags: ['satellites'],
          summary: "A satellite's geoposition",
          description:
            'Sub-satellite point and height at `time` (default now). 422 when the satellite has no valid position then (see the API rule: SGP4 error, non-finite state, or a height outside 0..1,000,000 km).',
        },
      },
    )
}
