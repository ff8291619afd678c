#!/usr/bin/env bun
/**
 * Records the examples of the served OpenAPI document: asks the app itself
 * (in-process, through app.handle, over the embedded snapshot, its clock at
 * EXAMPLES_INSTANT) one or more requests per operation and status, and writes
 * the answers to src/http/plugins/openapi-examples.json, which the docs plugin
 * embeds. Run it again when an answer changes (the test
 * test/http/plugins/openapi-examples.test.ts says which):
 *
 *   bun scripts/openapi-examples.ts
 */
import { join, resolve } from 'node:path'
import { type ExamplesFile, type RecordedExample, recordExample } from '../src/http/plugins/openapi-examples.ts'
import { examplesApp, EXAMPLES_INSTANT } from './openapi-examples-app.ts'

type Wanted = Pick<RecordedExample, 'operation' | 'name' | 'summary' | 'request'>

const T = EXAMPLES_INSTANT
const SYDNEY = 'latitude=-33.87&longitude=151.21'

/** The requests whose answers become the examples: small answers, every documented status that can be shown. */
const WANTED: Wanted[] = [
  { operation: '/api/v1/satellites', name: 'search', summary: 'Stations named ISS, two per page', request: '/api/v1/satellites?group=stations&search=iss&page-size=2' },
  { operation: '/api/v1/satellites', name: 'repeatedId', summary: 'A catalog number given twice', request: '/api/v1/satellites?ids=25544,25544' },
  { operation: '/api/v1/satellites/{noradId}', name: 'iss', summary: 'The ISS', request: '/api/v1/satellites/25544' },
  { operation: '/api/v1/satellites/{noradId}', name: 'badId', summary: 'Not a catalog number', request: '/api/v1/satellites/0' },
  { operation: '/api/v1/satellites/{noradId}', name: 'unknown', summary: 'Not in the catalogue', request: '/api/v1/satellites/99999999' },
  { operation: '/api/v1/satellites/{noradId}/geoposition', name: 'iss', summary: 'The ISS', request: `/api/v1/satellites/25544/geoposition?time=${T}` },
  { operation: '/api/v1/satellites/{noradId}/geoposition', name: 'badTime', summary: 'A time without a zone', request: '/api/v1/satellites/25544/geoposition?time=2026-05-31' },
  { operation: '/api/v1/satellites/{noradId}/geoposition', name: 'unknown', summary: 'Not in the catalogue', request: `/api/v1/satellites/99999999/geoposition?time=${T}` },
  { operation: '/api/v1/satellites/{noradId}/geoposition', name: 'elementAge', summary: 'Elements too old at that instant', request: '/api/v1/satellites/25544/geoposition?time=2026-11-22T10:00:00Z' },
  { operation: '/api/v1/satellites/{noradId}/geoposition', name: 'decayed', summary: 'After the decay', request: '/api/v1/satellites/48880/geoposition?time=2026-06-20T10:00:00Z' },
  { operation: '/api/v1/satellites/geoposition', name: 'three', summary: 'The ISS, Hubble and an unknown id', request: `/api/v1/satellites/geoposition?ids=25544,20580,999999&time=${T}` },
  { operation: '/api/v1/satellites/geoposition', name: 'noIds', summary: 'ids missing', request: `/api/v1/satellites/geoposition?time=${T}` },
  { operation: '/api/v1/satellites/iss', name: 'iss', summary: 'The ISS', request: `/api/v1/satellites/iss?time=${T}` },
  { operation: '/api/v1/satellites/iss', name: 'badTime', summary: 'A time out of range', request: '/api/v1/satellites/iss?time=2200-01-01T00:00:00Z' },
  { operation: '/api/v1/satellites/iss', name: 'elementAge', summary: 'Elements too old at that instant', request: '/api/v1/satellites/iss?time=2026-11-22T10:00:00Z' },
  { operation: '/api/v1/satellites/nearby', name: 'sydney', summary: 'Above Sydney, 70° up and higher', request: `/api/v1/satellites/nearby?${SYDNEY}&elevation-threshold=70&time=${T}` },
  { operation: '/api/v1/satellites/nearby', name: 'badLatitude', summary: 'A latitude out of range', request: '/api/v1/satellites/nearby?latitude=91&longitude=0' },
  { operation: '/api/v1/satellites/{noradId}/passes', name: 'visible', summary: 'Visible passes of the ISS over Sydney, one day', request: `/api/v1/satellites/25544/passes?${SYDNEY}&visible-only=true&time=${T}` },
  { operation: '/api/v1/satellites/{noradId}/passes', name: 'days', summary: 'Too many days', request: `/api/v1/satellites/25544/passes?${SYDNEY}&days=11&time=${T}` },
  { operation: '/api/v1/satellites/{noradId}/passes', name: 'unknown', summary: 'Not in the catalogue', request: `/api/v1/satellites/99999999/passes?${SYDNEY}&time=${T}` },
  { operation: '/api/v1/satellites/{noradId}/passes', name: 'decayed', summary: 'Decayed before the searched time', request: '/api/v1/satellites/48880/passes?latitude=0&longitude=0&time=2026-11-22T10:00:00Z' },
  { operation: '/api/v1/passes', name: 'stations', summary: 'Passes of the stations group over Sydney, 3 hours', request: `/api/v1/passes?${SYDNEY}&group=stations&hours=3&time=${T}` },
  { operation: '/api/v1/passes', name: 'tooCostly', summary: 'Every pass of the whole catalogue: beyond the limits', request: `/api/v1/passes?${SYDNEY}&time=${T}` },
  { operation: '/api/v1/satellites/{noradId}/positions', name: 'threeMinutes', summary: 'The ISS, a point a minute', request: `/api/v1/satellites/25544/positions?from=${T}&to=2026-05-31T00:02:00Z&step=60` },
  { operation: '/api/v1/satellites/{noradId}/positions', name: 'tooMany', summary: 'More than 10,000 points', request: `/api/v1/satellites/25544/positions?from=${T}&to=2026-06-30T00:00:00Z&step=60` },
  { operation: '/api/v1/satellites/{noradId}/positions', name: 'unknown', summary: 'Not in the catalogue', request: `/api/v1/satellites/99999999/positions?from=${T}` },
  { operation: '/api/v1/satellites/{noradId}/positions', name: 'decayed', summary: 'No instant with a position', request: '/api/v1/satellites/48880/positions?from=2026-11-22T10:00:00Z' },
  { operation: '/api/v1/satellites/{noradId}/stream', name: 'iss', summary: 'The first event, seen from Berlin', request: '/api/v1/satellites/25544/stream?latitude=52.52&longitude=13.4' },
  { operation: '/api/v1/satellites/{noradId}/stream', name: 'unknown', summary: 'Not in the catalogue', request: '/api/v1/satellites/99999999/stream' },
  { operation: '/api/v1/satellites/stream', name: 'two', summary: 'The first event: the ISS and Hubble', request: '/api/v1/satellites/stream?ids=25544,20580' },
  { operation: '/api/v1/satellites/stream', name: 'noneKnown', summary: 'No id in the catalogue', request: '/api/v1/satellites/stream?ids=99999999' },
  { operation: '/NORAD/elements/gp.php', name: 'tle', summary: 'The ISS as 3LE', request: '/NORAD/elements/gp.php?CATNR=25544&FORMAT=tle' },
  { operation: '/NORAD/elements/gp.php', name: 'json', summary: 'The ISS as OMM JSON', request: '/NORAD/elements/gp.php?CATNR=25544&FORMAT=json' },
  { operation: '/NORAD/elements/gp.php', name: 'csv', summary: 'The ISS as OMM CSV', request: '/NORAD/elements/gp.php?CATNR=25544&FORMAT=csv' },
  { operation: '/NORAD/elements/gp.php', name: 'noMatch', summary: 'A group the catalogue does not have', request: '/NORAD/elements/gp.php?GROUP=nosuchgroup' },
  { operation: '/NORAD/elements/gp.php', name: 'invalid', summary: 'A malformed catalog number', request: '/NORAD/elements/gp.php?CATNR=abc' },
  { operation: '/api/v1/service/healthcheck', name: 'ok', summary: 'Healthy', request: '/api/v1/service/healthcheck' },
  { operation: '/api/v1/service/status', name: 'embedded', summary: 'The embedded snapshot, refresh off', request: '/api/v1/service/status' },
  // The compatible APIs (docs/compat.md), at the same instant ("now" for them).
  { operation: '/rest/v1/satellite/tle/{id}', name: 'iss', summary: 'N2YO: the ISS TLE', request: '/rest/v1/satellite/tle/25544?apiKey=K' },
  {
    operation: '/rest/v1/satellite/positions/{id}/{observer_lat}/{observer_lng}/{observer_alt}/{seconds}',
    name: 'iss',
    summary: 'N2YO: two seconds of the ISS seen from Sydney',
    request: '/rest/v1/satellite/positions/25544/-33.870000/151.210000/0/2?apiKey=K',
  },
  {
    operation: '/rest/v1/satellite/visualpasses/{id}/{observer_lat}/{observer_lng}/{observer_alt}/{days}/{min_visibility}',
    name: 'iss',
    summary: 'N2YO: visible passes of the ISS over Sydney, 2 days',
    request: '/rest/v1/satellite/visualpasses/25544/-33.87/151.21/0/2/60?apiKey=K',
  },
  {
    operation: '/rest/v1/satellite/radiopasses/{id}/{observer_lat}/{observer_lng}/{observer_alt}/{days}/{min_elevation}',
    name: 'iss',
    summary: 'N2YO: passes of the ISS over Sydney above 40°, 1 day',
    request: '/rest/v1/satellite/radiopasses/25544/-33.87/151.21/0/1/40?apiKey=K',
  },
  {
    operation: '/rest/v1/satellite/above/{observer_lat}/{observer_lng}/{observer_alt}/{search_radius}/{category_id}',
    name: 'all',
    summary: 'N2YO: every category within 15° of the zenith over Sydney',
    request: '/rest/v1/satellite/above/-33.87/151.21/0/15/0?apiKey=K',
  },
  { operation: '/iss-now.json', name: 'now', summary: 'Open Notify: where the ISS is', request: '/iss-now.json' },
  { operation: '/iss-pass.json', name: 'sydney', summary: 'Open Notify: the next two passes over Sydney', request: '/iss-pass.json?lat=-33.87&lon=151.21&n=2' },
  { operation: '/astros.json', name: 'unknown', summary: 'Open Notify: the crew (not known here)', request: '/astros.json' },
  { operation: '/v1/satellites', name: 'list', summary: 'wheretheiss.at: the satellites', request: '/v1/satellites' },
  { operation: '/v1/satellites/{id}', name: 'iss', summary: 'wheretheiss.at: the ISS', request: '/v1/satellites/25544?timestamp=1780185600' },
  { operation: '/v1/satellites/{id}/positions', name: 'two', summary: 'wheretheiss.at: the ISS at two instants, in miles', request: '/v1/satellites/25544/positions?timestamps=1780185600,1780185660&units=miles' },
  { operation: '/v1/satellites/{id}/tles', name: 'iss', summary: 'wheretheiss.at: the ISS TLE', request: '/v1/satellites/25544/tles' },
  { operation: '/v1/coordinates/{coordinates}', name: 'sydney', summary: 'wheretheiss.at: the time zone and country of a point', request: '/v1/coordinates/-33.87,151.21' },
]

const app = await examplesApp()
const examples: RecordedExample[] = []
for (const wanted of WANTED) examples.push(await recordExample((request) => app.handle(request), wanted))
const file: ExamplesFile = { instant: T, examples }
const out = join(resolve(import.meta.dir, '..'), 'src/http/plugins/openapi-examples.json')
await Bun.write(out, `${JSON.stringify(file, null, 1)}\n`)
console.log(`${out}: ${examples.length} examples at ${T}`)
