/**
 * GET /NORAD/elements/gp.php: the catalogue as a CelesTrak-compatible GP feed,
 * so that programs that read CelesTrak (Skyfield's `load.tle_file`, python-sgp4,
 * SDR and planetarium programs) can use the service as their source on a
 * closed network. Same path, parameters, formats and answers to bad or empty
 * queries as CelesTrak.
 */
import { Elysia } from 'elysia'
import type { Catalog, Satellite } from '../../../domain/catalog/catalog.ts'
import { OMM_CSV_COLUMNS } from '../../../domain/catalog/omm.ts'
import { selectSatellites } from '../../../domain/catalog/select.ts'
import { rawQueryOf } from '../../plugins/params.ts'
import { MAX_CACHED_BYTES, RepresentationCache } from '../../representations/cache.ts'
import { type Representation, textRepresentation } from '../../representations/representation.ts'
import type { ModuleContext } from '../common.ts'
import { ELEMENT_AGE_HEADERS_DOC, oldestSet, setElementAge } from '../compat/shared.ts'
import { FEED_CONTENT_TYPES, formatFeed, hasFormOf, TLE_NAME_WIDTH } from './formats.ts'
import { FEED_FORMATS, type FeedSelector, feedKey, parseFeedQuery } from './query.ts'

export const FEED_PATH = '/NORAD/elements/gp.php'
/** CelesTrak's whole answer when a valid query matches nothing. */
export const NO_DATA = 'No GP data found'
/** Feed answers kept prepared per catalogue version (NAME queries vary without end). */
const MAX_CACHED_FEEDS = 512

const TEXT = 'text/plain; charset=utf-8'

function select(catalog: Catalog, selector: FeedSelector): Satellite[] {
  switch (selector.kind) {
    case 'CATNR':
      return selectSatellites(catalog, { ids: [selector.noradId] })
    case 'INTDES':
      return selectSatellites(catalog, { launch: selector.launch })
    case 'GROUP':
      return selectSatellites(catalog, { group: selector.group })
    case 'NAME':
      return selectSatellites(catalog, { nameContains: selector.text })
  }
}

const textSchema = (description: string, example: string) => ({ schema: { type: 'string' as const, description }, example })

export function feedModule({ store, compression, sweeps, clock }: ModuleContext) {
  const answers = new RepresentationCache<Catalog>(compression, { maxEntries: MAX_CACHED_FEEDS, maxBytes: MAX_CACHED_BYTES })
  sweeps?.add(() => answers.sweep(store.current))
  /** The satellite with the oldest set of each answer made (found once, with the answer). */
  const oldestInAnswer = new WeakMap<Representation, Satellite>()
  return new Elysia({ name: 'feed' }).get(
    FEED_PATH,
    ({ request, set }) => {
      const query = parseFeedQuery(rawQueryOf(request.url) ?? '')
      if (!query.ok) return new Response(query.message, { status: 400, headers: { 'content-type': TEXT } })
      const catalog = store.current
      const key = feedKey(query.selector, query.format)
      const answer = answers.get(catalog, key, () => {
        const satellites = select(catalog, query.selector).filter((s) => hasFormOf(s, query.format))
        if (satellites.length === 0) return { ...textRepresentation(catalog.version, key, TEXT, NO_DATA), status: 404 }
        const representation = textRepresentation(catalog.version, key, FEED_CONTENT_TYPES[query.format], formatFeed(satellites, query.format))
        oldestInAnswer.set(representation, oldestSet(satellites)!)
        return representation
      })
      // The sets are served whatever their age (a mirror, not positions): the headers say how old the oldest is now.
      const oldest = oldestInAnswer.get(answer.representation)
      if (oldest) setElementAge(set, [oldest], clock())
      return answers.respond(request, set, answer)
    },
    {
      detail: {
        tags: ['celestrak'],
        summary: 'CelesTrak-compatible GP feed (TLE, 3LE, 2LE, OMM JSON, OMM CSV)',
        description:
          "The catalogue's element sets the way CelesTrak's `gp.php` serves them, for programs that read CelesTrak. " +
          'Parameter names and FORMAT values are case-insensitive; give exactly one of CATNR, INTDES, GROUP or NAME. ' +
          `TLE and 3LE (the same, as at CelesTrak): a name line padded to ${TLE_NAME_WIDTH} characters, then the two lines; 2LE: the two lines alone; ` +
          'every line ends with CRLF. JSON: an array of OMM objects with CelesTrak’s keys in its order (JSON-PRETTY: indented); ' +
          `CSV: OMM with CelesTrak's header (${OMM_CSV_COLUMNS.join(',')}). ` +
          'Objects whose catalog number does not fit a TLE (above 99999) appear only in JSON and CSV. Ordered by catalog number. ' +
          `A valid query that matches nothing: 404 \`${NO_DATA}\` (text/plain), as CelesTrak answers. ` +
          'An invalid query (no selector or several, a malformed value, a repeated parameter, an unknown FORMAT such as XML or KVN): ' +
          '400 with a plain-text message starting `Invalid query:`. Answers carry a strong ETag (If-None-Match gives 304) and are compressed when the client accepts it. ' +
          'Every element set held is served, whatever its age or a decay the service finds (the position routes refuse those): ' +
          'the headers Sattrack-Element-Epoch and Sattrack-Element-Age-Days give the oldest set of the answer and its age now.',
        // Spread: Elysia's type of a detail names no `x-` keys (docs.ts reads this one).
        ...{ 'x-response-headers': ELEMENT_AGE_HEADERS_DOC },
        parameters: [
          { name: 'GROUP', in: 'query', required: false, schema: { type: 'string', example: 'stations' }, description: 'A group of the catalogue (`stations`, `starlink`, `weather`, …); an unknown group matches nothing' },
          { name: 'CATNR', in: 'query', required: false, schema: { type: 'string', pattern: '^[0-9]{1,9}$', example: '25544' }, description: 'One catalog number, 1 to 9 digits' },
          { name: 'NAME', in: 'query', required: false, schema: { type: 'string', maxLength: 100, example: 'ISS' }, description: 'Part of the name, case-insensitive' },
          { name: 'INTDES', in: 'query', required: false, schema: { type: 'string', pattern: '^[0-9]{4}-[0-9]{3}[A-Za-z]{0,3}$', example: '1998-067' }, description: 'A launch (yyyy-nnn: all its objects) or one piece (yyyy-nnnA)' },
          { name: 'FORMAT', in: 'query', required: false, schema: { type: 'string', enum: FEED_FORMATS.map((f) => f.toUpperCase()), default: 'TLE' }, description: 'Output format, case-insensitive; default TLE' },
        ],
        responses: {
          200: {
            description: 'The element sets in the format asked for',
            content: {
              'text/plain': textSchema('TLE, 3LE or 2LE lines (CRLF)', 'EXAMPLE SAT             \r\n1 99999U 98067A   26150.50000000  .00011776  00000+0  10000-3 0  9999\r\n2 99999  52.0000 100.0000 0005000  90.0000 270.0000 15.25000000123456\r\n'),
              'application/json': { schema: { type: 'array' as const, items: { type: 'object' as const, properties: Object.fromEntries(OMM_CSV_COLUMNS.map((c) => [c, {}])) } } },
              'text/csv': textSchema("OMM CSV with CelesTrak's header (CRLF)", `${OMM_CSV_COLUMNS.join(',')}\r\n`),
            },
          },
          304: { description: 'Not modified (If-None-Match matched the ETag)' },
          404: { description: `A valid query that matches nothing: \`${NO_DATA}\``, content: { 'text/plain': textSchema('The text CelesTrak answers', NO_DATA) } },
          400: { description: 'Invalid query', content: { 'text/plain': textSchema('`Invalid query: ` and the rule broken', 'Invalid query: CATNR must be a catalog number from 1 to 999999999 (1 to 9 digits)') } },
        },
      },
    },
  )
}
