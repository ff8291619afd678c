/** GET /api/v1/satellites/:noradId/passes: when a satellite passes over an observer, and whether it can be seen. */
import { Elysia } from 'elysia'
import { standardMagnitude } from '../../../domain/orbit/magnitude.ts'
import { findPassesSliced } from '../../../domain/orbit/passes-sliced.ts'
import { routeParams } from '../../plugins/params.ts'
import { findSatellite, frequencyParam, instantOf, magnitudeLimitParam, type ModuleContext, noPositionBetween, noradIdParam, observerParams, timeParam, responseSchemas, spanEndMs } from '../common.ts'
import { ErrorSchema, iso, elementAgeDaysAt } from '../satellites/model.ts'
import { VERSION } from '../../../io/version.ts'
import { calendarResponse, ICS_CONTENT_DOC, passesCalendar, WITHOUT_POSITION } from './ics.ts'
import { noPositionJson, PassesResponseSchema, passJson } from './model.ts'

const MS_PER_DAY = 86_400_000

export const passesParams = {
  ...observerParams,
  time: {
    ...timeParam,
    description: 'Start of the search: ISO 8601 with a zone (Z or ±hh:mm), 1957-10-04..2100-01-01. Default: now.',
  },
  days: { type: 'integer', min: 1, max: 10, default: 1, description: 'Length of the search, days (it ends at 2100-01-01 at the latest: metadata.to)' },
  'elevation-threshold': {
    type: 'number',
    min: 0,
    max: 90,
    default: 10,
    description: 'The elevation a pass must reach, degrees: rise and set are where the satellite crosses it',
  },
  'visible-only': { type: 'boolean', default: false, description: 'Only passes visible to the naked eye at some moment' },
  'magnitude-limit': magnitudeLimitParam,
  frequency: frequencyParam,
  format: {
    type: 'enum',
    values: ['json', 'ics'],
    default: 'json',
    description: 'json, or ics: the passes as an iCalendar file (RFC 5545, text/calendar), one event per pass with stable UIDs, for a calendar to show or subscribe to',
  },
} as const

const passesRoute = routeParams({ params: { noradId: noradIdParam }, query: passesParams })

const DESCRIPTION = `Every pass of the satellite over the observer between \`time\` (default now) and \`days\` later: the stretches of time in which it is at or above \`elevation-threshold\`.

- \`rise\` and \`set\` are the crossings of the threshold, \`culmination\` the highest point (with \`range\`), \`duration\` the seconds above the threshold. Every point has \`rangeRate\` (km/s, positive while the satellite moves away) and, with \`frequency\` (MHz), \`dopplerShiftHz\`. Times agree with Skyfield's \`find_events\` within a second (crossings are located to a few ms).
- **Cut by the searched time**: a pass in progress at \`time\` has \`rise: null\` (it starts at \`metadata.from\`); one still in progress at the end has \`set: null\` (it ends at \`metadata.to\`). Its culmination is its highest point within the searched time, which may be that edge, and its duration counts only that time.
- **Never sets** (a geostationary satellite above the threshold, a high orbit lingering): one pass covering the whole searched time, \`rise\` and \`set\` null.
- **Never rises**: \`data\` is empty.
- \`visible\`: visible to the naked eye at some moment of the pass: the satellite is sunlit (not in the Earth's umbra) while the Sun is at or below -6° at the observer, and its estimated magnitude is at or below \`magnitude-limit\` (default 4.5; the rule of /nearby). \`visibleWindow\` is the first such stretch (\`null\` when none); \`visibleWindows\` lists all of them (more than one only in long passes of high orbits).
- **Brightness**: \`culmination.magnitude\` is the estimated apparent magnitude at the highest point (null in the Earth's shadow); \`brightest\` is the brightest moment while sunlit in a dark sky (null when never), so a pass is visible exactly when \`brightest.magnitude\` is at or below the limit. Magnitudes follow from the satellite's standard magnitude (\`metadata.standardMagnitude\`: published for the ISS, the Chinese station, HST...; otherwise defaults by name family, R/B and DEB, and orbit class: see the README), the range and the phase angle (Lambertian sphere), and are good to about ±1.
- **Stale elements**: passes are looked for only where the satellite has a position: within the age limit from its elements' epoch (\`--max-element-age\`, 30 days by default), before its decay, where SGP4 gives a state at a plausible height (80 km up to the elements' apogee height + 10 % + 200 km). The stretches without one are listed in \`metadata.noPosition\`, and a pass cut by one has \`rise\` or \`set\` null. No position anywhere in the searched time: 422.
- **Calendars**: \`format=ics\` answers \`text/calendar\` (RFC 5545): one event per pass from its rise to its set (for a cut pass, the searched time's edge or where the satellite's positions begin or end), the summary naming the satellite, the highest elevation with its compass direction and the magnitude (\`ISS (ZARYA): 72° SSW, mag -3.2, visible\`), with UIDs stable from one request to the next so a calendar subscribed to the URL updates its events rather than adding new ones; the calendar's description gives the stretches without a position. Errors stay JSON.`

export function passesModule(context: ModuleContext) {
  const { store, clock } = context
  return new Elysia({ name: 'passes', prefix: '/api/v1/satellites' }).get(
    '/:noradId/passes',
    async (ctx) => {
      const { params, query } = passesRoute.read(ctx.query, ctx.params)
      const catalog = store.current
      const satellite = findSatellite(catalog, params.noradId)
      const startMs = instantOf(query.time, clock).getTime()
      const endMs = spanEndMs(startMs, query.days * MS_PER_DAY)
      const standard = standardMagnitude(satellite).magnitude
      // Days of search take 10-170 ms: run in slices, a few at a time, and stopped if the client goes.
      const passQuery = {
        observer: { latitudeDeg: query.latitude, longitudeDeg: query.longitude, altitudeM: query.altitude },
        startMs,
        endMs,
        minElevationDeg: query['elevation-threshold'],
        brightness: { standardMagnitude: standard, magnitudeLimit: query['magnitude-limit'] },
      }
      const search = await context.heavy.run(findPassesSliced(catalog, catalog.indexOf(satellite.noradId)!, passQuery), ctx.request.signal)
      if (!search.anyPosition) throw noPositionBetween(satellite.noradId, startMs, endMs, search.noPosition[0]?.reason ?? null)
      const kept = search.passes.filter((pass) => pass.visible.length > 0 || !query['visible-only'])
      const observer = { latitude: query.latitude, longitude: query.longitude, altitude: query.altitude }
      if (query.format === 'ics') {
        const calendar = passesCalendar({
          title: `sattrack: ${satellite.name} over ${observer.latitude}, ${observer.longitude}`,
          observer,
          elevationThreshold: query['elevation-threshold'],
          magnitudeLimit: query['magnitude-limit'],
          generatedMs: clock(),
          fromMs: startMs,
          toMs: endMs,
          version: VERSION,
          // The stretches without positions, which the events cannot show.
          ...(search.noPosition.length === 0
            ? {}
            : {
                description: `${satellite.name} has no position ${search.noPosition.map((span) => `from ${iso(span.fromMs)} to ${iso(span.toMs)} (${span.reason})`).join('; ')}: ${WITHOUT_POSITION}.`,
              }),
          passes: kept.map((pass) => ({ noradId: satellite.noradId, name: satellite.name, epochMs: satellite.elements.epochMs, pass })),
        })
        // A Response goes out as it is (no JSON schema applies); typed away so the route keeps its JSON answer's type.
        return calendarResponse(calendar, `sattrack-${satellite.noradId}-passes.ics`) as never
      }
      const passes = kept.map((pass) => passJson(pass, query.frequency))
      return {
        data: passes,
        metadata: {
          total: passes.length,
          noradId: satellite.noradId,
          name: satellite.name,
          epoch: iso(satellite.elements.epochMs),
          elementAgeDays: elementAgeDaysAt(satellite, startMs),
          observer,
          from: iso(startMs),
          to: iso(endMs),
          days: query.days,
          elevationThreshold: query['elevation-threshold'],
          visibleOnly: query['visible-only'],
          magnitudeLimit: query['magnitude-limit'],
          ...(query.frequency === undefined ? {} : { frequency: query.frequency }),
          standardMagnitude: standard,
          noPosition: search.noPosition.map(noPositionJson),
        },
      }
    },
    {
      ...passesRoute.hooks,
      response: responseSchemas(context, { 200: PassesResponseSchema, 400: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema, 503: ErrorSchema }),
      detail: { tags: ['satellites'], summary: 'Passes of a satellite over an observer', description: DESCRIPTION, 'x-response-content': ICS_CONTENT_DOC },
    },
  )
}
