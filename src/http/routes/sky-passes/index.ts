/** GET /api/v1/passes: every pass of every satellite (of a group) over an observer in a window of hours: what can I see tonight. */
import { Elysia } from 'elysia'
import type { Catalog } from '../../../domain/catalog/catalog.ts'
import { selectSatellites } from '../../../domain/catalog/select.ts'
import { findSkyPasses, type SkyPassesAnswer, type SkyPassesPlan } from '../../../domain/sky-passes/engine.ts'
import { VERSION } from '../../../io/version.ts'
import { ApiError } from '../../plugins/errors.ts'
import { routeParams, type Values } from '../../plugins/params.ts'
import { frequencyParam, instantOf, leftOutNotice, magnitudeLimitParam, type ModuleContext, observerParams, responseSchemas, spanEndMs, timeParam } from '../common.ts'
import { calendarResponse, ICS_CONTENT_DOC, passesCalendar, WITHOUT_POSITION } from '../passes/ics.ts'
import { noPositionJson } from '../passes/model.ts'
import { ErrorSchema, iso } from '../satellites/model.ts'
import { SkyPassesResponseSchema, skyPassJson } from './model.ts'

const HOUR_MS = 3_600_000
export const MAX_HOURS = 48
export const MAX_PAGE_SIZE = 1000
export const DEFAULT_PAGE_SIZE = 100
/** Without visible-only: satellites searched × hours at most (every pass is searched in full: ~0.2-1 ms each). */
export const MAX_SATELLITE_HOURS = 4_800
/**
 * Visible-only: satellites that can look bright enough × hours at most, at magnitude-limit 5 and
 * brighter (at the default 4.5, the whole catalogue for 20 hours at the equator and two nights at
 * Paris: docs/passes.md); each magnitude fainter divides it by 4 (faint limits let thousands of faint
 * satellites through, each with visible passes to work out).
 */
export const MAX_VISIBLE_SATELLITE_HOURS = 150_000
/** Answers kept per catalogue for paging through them (the least recently used go first). */
const CACHED_ANSWERS = 8

export const skyPassesParams = {
  ...observerParams,
  time: { ...timeParam, description: 'Start of the search: ISO 8601 with a zone (Z or ±hh:mm), 1957-10-04..2100-01-01. Default: now.' },
  hours: { type: 'integer', min: 1, max: MAX_HOURS, default: 12, description: `Length of the search, hours (1..${MAX_HOURS}; 12: a night; it ends at 2100-01-01 at the latest: metadata.to)` },
  'elevation-threshold': {
    type: 'number',
    min: 0,
    max: 90,
    default: 10,
    description: 'The elevation a pass must reach, degrees: rise and set are where the satellite crosses it',
  },
  'visible-only': { type: 'boolean', default: false, description: 'Only passes visible to the naked eye at some moment (sunlit, in a dark sky, bright enough)' },
  'magnitude-limit': magnitudeLimitParam,
  group: {
    type: 'text',
    maxLength: 100,
    description: 'Only satellites loaded from this upstream group (e.g. `stations`; case-insensitive). A group the catalogue does not have matches nothing.',
  },
  page: { type: 'integer', min: 1, max: 1_000_000, description: 'Page to show, from 1 (default 1 when page-size is given)' },
  'page-size': {
    type: 'integer',
    min: 1,
    max: MAX_PAGE_SIZE,
    description: `Passes per page, 1..${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE} when page is given)`,
  },
  frequency: frequencyParam,
  format: {
    type: 'enum',
    values: ['json', 'ics'],
    default: 'json',
    description: 'json, or ics: the passes (of the page, when paging) as an iCalendar file (RFC 5545, text/calendar), one event per pass with stable UIDs',
  },
} as const

type SkyPassesParams = Values<typeof skyPassesParams>
const route = routeParams({ query: skyPassesParams })

/** The visible-only budget at a magnitude limit (see MAX_VISIBLE_SATELLITE_HOURS). */
export function visibleBudget(magnitudeLimit: number): number {
  return Math.floor(MAX_VISIBLE_SATELLITE_HOURS / 4 ** Math.max(0, magnitudeLimit - 5))
}

/** Refuses, with what is allowed, a search of `hours` (those searched: up to 2100-01-01) that would cost more than the limits. */
function admission(query: SkyPassesParams, hours: number) {
  const selection = query.group === undefined ? 'the catalogue' : `the group "${query.group}"`
  return (plan: SkyPassesPlan) => {
    if (!query['visible-only']) {
      if (plan.withPosition * hours <= MAX_SATELLITE_HOURS) return
      const most = Math.floor(MAX_SATELLITE_HOURS / plan.withPosition)
      throw new ApiError(
        400,
        `too costly: without visible-only, satellites searched × hours must be at most ${MAX_SATELLITE_HOURS} (${selection} has ${plan.withPosition} satellites with a position then: ${plan.withPosition} × ${hours} h); ` +
          (most >= 1 ? `ask for hours=${most} or fewer, ` : '') +
          'a smaller group, or visible-only=true',
      )
    }
    const budget = visibleBudget(query['magnitude-limit'])
    if (plan.candidates * hours <= budget) return
    const most = Math.floor(budget / plan.candidates)
    throw new ApiError(
      400,
      `too costly: with visible-only at magnitude-limit ${query['magnitude-limit']}, satellites that can look bright enough × hours must be at most ${budget} ` +
        `(${plan.candidates} of ${selection} can: ${plan.candidates} × ${hours} h; ${MAX_VISIBLE_SATELLITE_HOURS} at magnitude-limit 5 or brighter, a quarter for each magnitude fainter); ` +
        (most >= 1 ? `ask for hours=${most} or fewer, ` : '') +
        'a group, or a brighter magnitude-limit',
    )
  }
}

/** The calendar's description: the notice, and how many satellites have no position for part of the time (the events cannot show it). */
function calendarDescription(notice: string | null, partly: number, searched: number): { description?: string } {
  const gaps =
    partly === 0
      ? null
      : `${partly} of the ${searched} satellites have no position for part of the searched time (the elements' age limit or launch year, a decay, no plausible SGP4 state): ${WITHOUT_POSITION}; the JSON answer lists the stretches in metadata.noPosition.`
  const text = [notice, gaps].filter((part) => part !== null).join(' ')
  return text === '' ? {} : { description: text }
}

const DESCRIPTION = `Every pass of every satellite of the catalogue (or of \`group\`) over the observer between \`time\` (default now) and \`hours\` later, ordered by start: what can be seen tonight, when, where and how bright.

- Each pass is what \`/satellites/{noradId}/passes\` gives for that satellite over the same time, to the millisecond: \`rise\`, \`culmination\`, \`set\` (each with \`rangeRate\`, and \`dopplerShiftHz\` with \`frequency\`), \`brightest\`, \`duration\`, \`visible\` and the visible windows; plus \`noradId\`, \`name\`, \`elementAgeDays\` and \`magnitude\` (the brightest while sunlit in a dark sky).
- \`visible-only=true\`: only the passes visible to the naked eye at some moment (sunlit, the Sun at or below -6° at the observer, magnitude at or below \`magnitude-limit\`).
- Paging as on the satellite list: \`page\` and \`page-size\` cut the passes into pages and add \`page\`, \`pageSize\` and \`pages\` to \`metadata\`; the same search asked for again with another page is answered from the first one's result.
- **Trust**: passes are looked for only where a satellite has a position (the element-age limit, \`--max-element-age\`; decay; plausible heights). Satellites the age limit or a decay leaves without one anywhere in the time are counted in \`metadata.leftOut\` (and \`metadata.notice\` says what to do when they are most of the selection); one SGP4 gives no plausible position anywhere in the time is in neither \`metadata.satellites\` nor \`leftOut\`; stretches without one inside the time are listed in \`metadata.noPosition\`.
- **Limits**: without visible-only, satellites searched × hours must be at most ${MAX_SATELLITE_HOURS} (the \`stations\` group for 48 hours; the whole catalogue needs visible-only or a group); with visible-only, satellites that can look bright enough × hours must be at most ${MAX_VISIBLE_SATELLITE_HOURS} at magnitude-limit 5 or brighter (how many can depends on the latitude and the season: at the default 4.5, the whole catalogue for 20 hours at the equator, 48 hours at Paris, in late May), a quarter of that for each magnitude fainter. Beyond: 400 saying what is allowed. Searches run a slice at a time, at most two at once (503 with Retry-After beyond).
- \`format=ics\`: the passes (of the page, when paging) as an iCalendar file (RFC 5545, \`text/calendar\`), one event per pass with stable UIDs: a calendar subscribed to the URL updates its events rather than duplicating them.`

/** The search's result for a query, kept per catalogue so pages of one search are cut from one result. */
class AnswerCache {
  private readonly byCatalog = new WeakMap<Catalog, Map<string, SkyPassesAnswer>>()

  get(catalog: Catalog, key: string): SkyPassesAnswer | undefined {
    const entries = this.byCatalog.get(catalog)
    const answer = entries?.get(key)
    if (entries && answer) {
      entries.delete(key)
      entries.set(key, answer)
    }
    return answer
  }

  set(catalog: Catalog, key: string, answer: SkyPassesAnswer): void {
    let entries = this.byCatalog.get(catalog)
    if (!entries) this.byCatalog.set(catalog, (entries = new Map()))
    entries.set(key, answer)
    while (entries.size > CACHED_ANSWERS) entries.delete(entries.keys().next().value!)
  }
}

export function skyPassesModule(context: ModuleContext) {
  const { store, clock } = context
  const cache = new AnswerCache()
  return new Elysia({ name: 'sky-passes', prefix: '/api/v1' }).get(
    '/passes',
    async (ctx) => {
      const { query } = route.read(ctx.query)
      const catalog = store.current
      const startMs = instantOf(query.time, clock).getTime()
      const endMs = spanEndMs(startMs, query.hours * HOUR_MS)
      const observer = { latitudeDeg: query.latitude, longitudeDeg: query.longitude, altitudeM: query.altitude }
      const key = JSON.stringify([startMs, query.hours, query.latitude, query.longitude, query.altitude, query['elevation-threshold'], query['visible-only'], query['magnitude-limit'], query.group?.toLowerCase() ?? null])
      let answer = cache.get(catalog, key)
      if (!answer) {
        const indices = selectSatellites(catalog, { group: query.group }).map((s) => catalog.indexOf(s.noradId)!)
        const search = findSkyPasses(catalog, {
          observer,
          startMs,
          endMs,
          minElevationDeg: query['elevation-threshold'],
          visibleOnly: query['visible-only'],
          magnitudeLimit: query['magnitude-limit'],
          indices,
          admit: admission(query, Math.ceil((endMs - startMs) / HOUR_MS)),
        })
        answer = await context.heavy.run(search, ctx.request.signal)
        cache.set(catalog, key, answer)
      }
      const paging = query.page !== undefined || query['page-size'] !== undefined
      const page = query.page ?? 1
      const pageSize = query['page-size'] ?? DEFAULT_PAGE_SIZE
      const shown = paging ? answer.passes.slice((page - 1) * pageSize, page * pageSize) : answer.passes
      const observerJson = { latitude: query.latitude, longitude: query.longitude, altitude: query.altitude }

      // When most of the selection has no position anywhere in the searched time: why, and what to do.
      const notice = leftOutNotice(catalog, answer.leftOut, startMs, {
        from: 'the searched time',
        size: answer.stats.satellites,
        named: query.group === undefined ? '' : ` of the group "${query.group}"`,
      })
      if (query.format === 'ics') {
        const where = `${query.latitude}, ${query.longitude}`
        const calendar = passesCalendar({
          title: `sattrack: ${query['visible-only'] ? 'visible passes' : 'passes'}${query.group ? ` of ${query.group}` : ''} over ${where}`,
          observer: observerJson,
          elevationThreshold: query['elevation-threshold'],
          magnitudeLimit: query['magnitude-limit'],
          generatedMs: clock(),
          fromMs: startMs,
          toMs: endMs,
          version: VERSION,
          ...calendarDescription(notice, answer.noPosition.length, answer.stats.satellites),
          passes: shown.map(({ index, pass }) => {
            const satellite = catalog.satellites[index]!
            return { noradId: satellite.noradId, name: satellite.name, epochMs: satellite.elements.epochMs, pass }
          }),
        })
        // A Response goes out as it is (no JSON schema applies); typed away so the route keeps its JSON answer's type.
        return calendarResponse(calendar, 'sattrack-passes.ics') as never
      }

      const total = answer.passes.length
      const maxAgeMs = catalog.validity.policy.maxElementAgeMs
      return {
        data: shown.map(({ index, pass }) => skyPassJson(catalog.satellites[index]!, pass, query.frequency)),
        metadata: {
          total,
          ...(paging ? { page, pageSize, pages: Math.ceil(total / pageSize) } : {}),
          observer: observerJson,
          from: iso(startMs),
          to: iso(endMs),
          hours: query.hours,
          elevationThreshold: query['elevation-threshold'],
          visibleOnly: query['visible-only'],
          magnitudeLimit: query['magnitude-limit'],
          group: query.group ?? null,
          ...(query.frequency === undefined ? {} : { frequency: query.frequency }),
          satellites: answer.stats.satellites - answer.withoutPosition.length,
          leftOut: answer.leftOut,
          maxElementAgeDays: maxAgeMs === null ? null : maxAgeMs / 86_400_000,
          noPosition: answer.noPosition.flatMap(({ index, spans }) => spans.map((span) => ({ noradId: catalog.satellites[index]!.noradId, ...noPositionJson(span) }))),
          ...(notice === null ? {} : { notice }),
        },
      }
    },
    {
      ...route.hooks,
      response: responseSchemas(context, { 200: SkyPassesResponseSchema, 400: ErrorSchema, 503: ErrorSchema }),
      detail: { tags: ['satellites'], summary: 'Passes of the whole catalogue over an observer (what can I see tonight)', description: DESCRIPTION, 'x-response-content': ICS_CONTENT_DOC },
    },
  )
}
