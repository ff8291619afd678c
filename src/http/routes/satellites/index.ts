/** Satellites: the list and its search, one satellite, geopositions (one or a batch), and the ISS. */
import { Elysia } from 'elysia'
import type { Catalog } from '../../../domain/catalog/catalog.ts'
import { type Selection, selectSatellites } from '../../../domain/catalog/select.ts'
import { positionsAt } from '../../../domain/orbit/position.ts'
import { routeParams, type Values } from '../../plugins/params.ts'
import { MAX_CACHED_BYTES, RepresentationCache } from '../../representations/cache.ts'
import { blobRepresentation, JSON_CONTENT_TYPE, jsonRepresentation } from '../../representations/representation.ts'
import { findSatellite, instantOf, type ModuleContext, noradIdParam, requirePosition, timeParam, responseSchemas } from '../common.ts'
import {
  BatchGeopositionSchema,
  ErrorSchema,
  geopositionJson,
  elementAgeDaysAt,
  IssSchema,
  SatelliteListSchema,
  SatelliteOneSchema,
  SatellitePositionSchema,
  satelliteJson,
  satellitePositionJson,
} from './model.ts'
import { SerialisedList } from './serialised-list.ts'

export const ISS_NORAD_ID = 25544
/** The most satellites one request's `ids` may name. */
export const MAX_BATCH_IDS = 100
/** The most satellites one page may hold. */
export const MAX_PAGE_SIZE = 1000
/** Page size when `page` is given alone. */
export const DEFAULT_PAGE_SIZE = 100
/** Filtered lists kept prepared per catalogue version (the least recently used go first). */
const MAX_CACHED_SEARCHES = 256

const listParams = {
  group: {
    type: 'text',
    maxLength: 100,
    description: 'Only satellites loaded from this upstream group (e.g. `stations`; case-insensitive). A group the catalogue does not have matches nothing.',
  },
  search: {
    type: 'text',
    maxLength: 100,
    description: 'Case-insensitive part of the name (`iss`), or the exact catalog number (`25544`)',
  },
  ids: {
    type: 'ids',
    maxItems: MAX_BATCH_IDS,
    description: `Only these catalog numbers: a comma-separated list of up to ${MAX_BATCH_IDS} distinct ids`,
  },
  page: { type: 'integer', min: 1, max: 1_000_000, description: 'Page to show, from 1 (default 1 when page-size is given)' },
  'page-size': {
    type: 'integer',
    min: 1,
    max: MAX_PAGE_SIZE,
    description: `Satellites per page, 1..${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE} when page is given)`,
  },
} as const

const listRoute = routeParams({ query: listParams })
const issRoute = routeParams({ query: { time: timeParam } })
const oneRoute = routeParams({ params: { noradId: noradIdParam } })
const geopositionRoute = routeParams({ params: { noradId: noradIdParam }, query: { time: timeParam } })
const batchRoute = routeParams({
  query: {
    ids: {
      type: 'ids',
      maxItems: MAX_BATCH_IDS,
      required: true,
      description: `Catalog numbers, comma-separated: 1 to ${MAX_BATCH_IDS} distinct ids`,
    },
    time: timeParam,
  },
})

type ListQuery = Values<typeof listParams>

/** A search's answer: where its satellites are in the catalogue (one page of them when paging is asked for), and its metadata. */
function listAnswer(catalog: Catalog, query: ListQuery) {
  const selection: Selection = { group: query.group, search: query.search, ids: query.ids }
  const matches = selectSatellites(catalog, selection).map((satellite) => catalog.indexOf(satellite.noradId)!)
  if (query.page === undefined && query['page-size'] === undefined) return { indices: matches, metadata: { total: matches.length } }
  const page = query.page ?? 1
  const pageSize = query['page-size'] ?? DEFAULT_PAGE_SIZE
  const start = (page - 1) * pageSize
  return {
    indices: matches.slice(start, start + pageSize),
    metadata: { total: matches.length, page, pageSize, pages: Math.ceil(matches.length / pageSize) },
  }
}

/** One key per distinct answer: case folded where matching ignores it, ids in order. */
function searchKey(query: ListQuery): string {
  const parts = [
    ['group', query.group?.toLowerCase()],
    ['search', query.search?.toLowerCase()],
    ['ids', query.ids ? [...query.ids].sort((a, b) => a - b).join(',') : undefined],
    ['page', query.page],
    ['page-size', query['page-size']],
  ] as const
  return `list?${parts.map(([name, value]) => `${name}=${encodeURIComponent(value ?? '')}`).join('&')}`
}

const isSearch = (query: ListQuery) => (Object.keys(listParams) as (keyof ListQuery)[]).some((name) => query[name] !== undefined)

/** The OpenAPI entry of a 304 (answers with an ETag). */
const NOT_MODIFIED = { description: 'Not modified (If-None-Match matched the ETag)' }

export function satellitesModule(context: ModuleContext) {
  const { store, clock, compression } = context
  const answers = new RepresentationCache<Catalog>(compression)
  const searches = new RepresentationCache<Catalog>(compression, { maxEntries: MAX_CACHED_SEARCHES, maxBytes: MAX_CACHED_BYTES })
  const lists = new WeakMap<Catalog, SerialisedList>()
  /** Whether the list or a search was asked for since the last sweep (both read the serialised list). */
  let listAsked = false
  context.sweeps?.add(() => {
    const catalog = store.current
    answers.sweep(catalog)
    searches.sweep(catalog)
    if (!listAsked) lists.delete(catalog)
    listAsked = false
  })
  const serialisedList = (catalog: Catalog) => {
    let list = lists.get(catalog)
    if (!list) {
      list = new SerialisedList(catalog)
      lists.set(catalog, list)
    }
    return list
  }

  return new Elysia({ name: 'satellites', prefix: '/api/v1/satellites' })
    .get(
      '',
      (ctx) => {
        const { query } = listRoute.read(ctx.query)
        const catalog = store.current
        listAsked = true
        if (!isSearch(query)) {
          const list = answers.get(catalog, 'list', () => blobRepresentation(catalog.version, 'list', JSON_CONTENT_TYPE, serialisedList(catalog).body))
          return answers.respond(ctx.request, ctx.set, list)
        }
        const key = searchKey(query)
        const list = serialisedList(catalog)
        const search = () => {
          const found = searches.get(catalog, key, () => {
            const { indices, metadata } = listAnswer(catalog, query)
            return blobRepresentation(catalog.version, key, JSON_CONTENT_TYPE, list.cut(indices, metadata))
          })
          return searches.respond(ctx.request, ctx.set, found)
        }
        // The first search of a catalogue version waits for the copy of the list's bytes that searches are cut from.
        const preparing = list.prepareCuts()
        const answered: Promise<Response> | Response = preparing ? preparing.then(search) : search()
        return answered
      },
      {
        ...listRoute.hooks,
        response: responseSchemas(context, { 200: SatelliteListSchema, 400: ErrorSchema }),
        detail: {
          tags: ['satellites'],
          summary: 'List all satellites, or search them',
          description:
            'Ordered by noradId ascending. Without parameters: the whole catalogue. `group`, `search` and `ids` filter (every one given must hold); ' +
            'a group the catalogue does not have matches nothing (an empty list, not an error). ' +
            '`page` and `page-size` cut the matches into pages and add `page`, `pageSize` and `pages` to `metadata` (`total` counts every match); ' +
            'a page past the last is an empty list. Answers are serialised and compressed (gzip, brotli) once per catalogue version and query, ' +
            'sent with a strong ETag, and a matching If-None-Match gets 304.',
          'x-responses': { 304: NOT_MODIFIED },
        },
      },
    )
    .get(
      '/geoposition',
      (ctx) => {
        const { query } = batchRoute.read(ctx.query)
        const catalog = store.current
        const instant = instantOf(query.time, clock)
        const { found, missing, noPosition, noPositionReasons } = positionsAt(catalog, query.ids, instant)
        const data = found.map(({ satellite, state }) => satellitePositionJson(satellite, state, instant))
        return { data, metadata: { total: data.length, datetime: instant.toISOString(), missing, noPosition, noPositionReasons } }
      },
      {
        ...batchRoute.hooks,
        response: responseSchemas(context, { 200: BatchGeopositionSchema, 400: ErrorSchema }),
        detail: {
          tags: ['satellites'],
          summary: 'Geopositions of several satellites',
          description:
            `Sub-satellite points and heights of up to ${MAX_BATCH_IDS} satellites at one instant (\`time\`, default now), in the order of \`ids\`. ` +
            'Ids not in the catalogue are listed in `metadata.missing`, ids without a valid position then in `metadata.noPosition`; neither fails the request. ' +
            'A malformed, repeated, duplicated or too long id list is a 400.',
        },
      },
    )
    .get(
      '/iss',
      (ctx) => {
        const { query } = issRoute.read(ctx.query)
        const catalog = store.current
        const instant = instantOf(query.time, clock)
        const satellite = findSatellite(catalog, ISS_NORAD_ID)
        const state = requirePosition(catalog, satellite, instant)
        return {
          data: { ...satelliteJson(satellite), geoposition: geopositionJson(state) },
          metadata: { total: 1 as const, datetime: instant.toISOString(), elementAgeDays: elementAgeDaysAt(satellite, instant.getTime()) },
        }
      },
      {
        ...issRoute.hooks,
        response: responseSchemas(context, { 200: IssSchema, 400: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema }),
        detail: { tags: ['satellites'], summary: 'The International Space Station (25544) with its position' },
      },
    )
    .get(
      '/:noradId',
      (ctx) => {
        const { params } = oneRoute.read(ctx.query, ctx.params)
        const catalog = store.current
        const satellite = findSatellite(catalog, params.noradId)
        const key = `satellite/${satellite.noradId}`
        const one = answers.get(catalog, key, () =>
          jsonRepresentation(catalog.version, key, { data: satelliteJson(satellite), metadata: { total: 1 } }),
        )
        return answers.respond(ctx.request, ctx.set, one)
      },
      {
        ...oneRoute.hooks,
        response: responseSchemas(context, { 200: SatelliteOneSchema, 400: ErrorSchema, 404: ErrorSchema }),
        detail: { tags: ['satellites'], summary: 'One satellite', description: 'Sent with a strong ETag; a matching If-None-Match gets 304.', 'x-responses': { 304: NOT_MODIFIED } },
      },
    )
    .get(
      '/:noradId/geoposition',
      (ctx) => {
        const { params, query } = geopositionRoute.read(ctx.query, ctx.params)
        const catalog = store.current
        const instant = instantOf(query.time, clock)
        const satellite = findSatellite(catalog, params.noradId)
        const state = requirePosition(catalog, satellite, instant)
        return satellitePositionJson(satellite, state, instant)
      },
      {
        ...geopositionRoute.hooks,
        response: responseSchemas(context, { 200: SatellitePositionSchema, 400: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema }),
        detail: {
          tags: ['satellites'],
          summary: "A satellite's geoposition",
          description:
            'Sub-satellite point and height at `time` (default now). 422 when the satellite has no valid position then (the rule of the introduction: more than `--max-element-age` from its epoch, after its decay, or a height SGP4 gives outside 80 km to its apogee + 10 % + 200 km), with the reason.',
        },
      },
    )
}
