/** GET /NORAD/elements/gp.php: the CelesTrak-compatible feed through app.handle. */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { parseTleText } from '../../../src/domain/catalog/elements.ts'
import { parseOmmCsv, parseOmmJson } from '../../../src/domain/catalog/omm.ts'
import { feedCatalog, OMM_ONLY_ID, OMM_WITH_TLE_ID } from '../../feed/fixtures.ts'
import { appFor, request } from '../../helpers/catalog.ts'

/** CelesTrak's CSV header, written out (not taken from the code under test). */
const CELESTRAK_CSV_HEADER =
  'OBJECT_NAME,OBJECT_ID,EPOCH,MEAN_MOTION,ECCENTRICITY,INCLINATION,RA_OF_ASC_NODE,ARG_OF_PERICENTER,MEAN_ANOMALY,EPHEMERIS_TYPE,CLASSIFICATION_TYPE,NORAD_CAT_ID,ELEMENT_SET_NO,REV_AT_EPOCH,BSTAR,MEAN_MOTION_DOT,MEAN_MOTION_DDOT'
const CELESTRAK_JSON_KEYS = CELESTRAK_CSV_HEADER.split(',')

let catalog: Catalog
let app: ReturnType<typeof appFor>
beforeAll(async () => {
  catalog = await feedCatalog()
  app = appFor(catalog)
})

const feed = (query: string, init?: RequestInit) => request(app, `/NORAD/elements/gp.php?${query}`, init)
const members = (group: string) => catalog.satellites.filter((s) => s.groups.includes(group))

describe('how old the sets served are', () => {
  test("every set held is served whatever its age; the headers give the oldest set's epoch and its age now, 304 included", async () => {
    const nowMs = Date.UTC(2026, 10, 26) // months after the sets: served all the same
    const late = appFor(catalog, nowMs)
    const stations = members('stations')
    const oldest = stations.reduce((a, b) => (b.elements.epochMs < a.elements.epochMs ? b : a))
    const answer = await request(late, '/NORAD/elements/gp.php?GROUP=stations&FORMAT=json')
    expect(answer.status).toBe(200)
    expect(answer.body).toHaveLength(stations.length)
    expect(answer.headers.get('sattrack-element-epoch')).toBe(oldest.epoch)
    expect(Number(answer.headers.get('sattrack-element-age-days'))).toBe(Math.round(((nowMs - oldest.elements.epochMs) / 86_400_000) * 1000) / 1000)
    expect(answer.headers.get('access-control-expose-headers')).toBe('ETag, Retry-After, sattrack-element-epoch, sattrack-element-age-days')
    const again = await request(late, '/NORAD/elements/gp.php?GROUP=stations&FORMAT=json', { headers: { 'if-none-match': answer.headers.get('etag')! } })
    expect(again.status).toBe(304)
    expect(again.headers.get('sattrack-element-epoch')).toBe(oldest.epoch)
    // One satellite: its own set.
    const one = await request(late, `/NORAD/elements/gp.php?CATNR=${stations[0]!.noradId}`)
    expect(one.headers.get('sattrack-element-epoch')).toBe(stations[0]!.epoch)
    // Nothing served, nothing said.
    const none = await request(late, '/NORAD/elements/gp.php?GROUP=nosuchgroup')
    expect(none.status).toBe(404)
    expect(none.headers.get('sattrack-element-epoch')).toBeNull()
  })
})

describe('TLE, 3LE and 2LE', () => {
  test('3LE: a name line padded to 24 characters, the two published lines, CRLF everywhere', async () => {
    const { status, headers, text } = await feed('GROUP=stations&FORMAT=3le')
    expect(status).toBe(200)
    expect(headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(text.endsWith('\r\n')).toBe(true)
    expect(text.replace(/\r\n/g, '')).not.toContain('\n')
    const lines = text.slice(0, -2).split('\r\n')
    const expected = members('stations')
    expect(expected.length).toBeGreaterThan(10)
    expect(lines).toHaveLength(expected.length * 3)
    expected.forEach((s, i) => {
      expect(lines[3 * i]).toBe(s.name.padEnd(24))
      expect(lines[3 * i]).toHaveLength(Math.max(24, s.name.length))
      expect(lines[3 * i + 1]).toBe(s.elements.tle!.line1)
      expect(lines[3 * i + 2]).toBe(s.elements.tle!.line2)
    })
    const parsed = parseTleText(text)
    expect(parsed.invalid).toEqual([])
    expect(parsed.elements.map((e) => e.noradId)).toEqual(expected.map((s) => s.noradId))
  })

  test('TLE is the same as 3LE (as at CelesTrak), and the default format', async () => {
    const threeLe = (await feed('GROUP=stations&FORMAT=3le')).text
    expect((await feed('GROUP=stations&FORMAT=tle')).text).toBe(threeLe)
    expect((await feed('GROUP=stations')).text).toBe(threeLe)
  })

  test('2LE: the lines alone', async () => {
    const { text } = await feed('GROUP=stations&FORMAT=2le')
    const lines = text.slice(0, -2).split('\r\n')
    expect(lines).toHaveLength(members('stations').length * 2)
    expect(lines.every((l) => /^[12] /.test(l) && l.length === 69)).toBe(true)
  })

  test('an OMM-only object (catalog number past 99999) is left out; one within the range gets generated lines', async () => {
    const { text } = await feed('GROUP=synthetic&FORMAT=3le')
    expect(text).not.toContain('SYNTH OMM ONLY')
    const parsed = parseTleText(text)
    expect(parsed.elements.map((e) => e.noradId)).toEqual([OMM_WITH_TLE_ID])
    expect(text.split('\r\n')[0]).toBe('SYNTH, WITH TLE'.padEnd(24))
    // Only OMM-only objects match: nothing to send in a TLE format.
    expect((await feed(`CATNR=${OMM_ONLY_ID}&FORMAT=tle`)).text).toBe('No GP data found')
    expect((await feed(`CATNR=${OMM_ONLY_ID}&FORMAT=2le`)).text).toBe('No GP data found')
  })
})

describe('OMM JSON and CSV', () => {
  test("JSON: an array of OMM objects with CelesTrak's keys in CelesTrak's order", async () => {
    const { status, headers, body } = await feed('GROUP=synthetic&FORMAT=json')
    expect(status).toBe(200)
    expect(headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(Array.isArray(body)).toBe(true)
    expect(body.map((r: any) => r.NORAD_CAT_ID)).toEqual([OMM_WITH_TLE_ID, OMM_ONLY_ID])
    for (const record of body) expect(Object.keys(record)).toEqual(CELESTRAK_JSON_KEYS)
    const omm = body.find((r: any) => r.NORAD_CAT_ID === OMM_ONLY_ID)
    expect(omm).toMatchObject({ OBJECT_NAME: 'SYNTH OMM ONLY', OBJECT_ID: '2026-100A', EPOCH: '2026-05-30T06:07:08.123456', CLASSIFICATION_TYPE: 'U' })
    expect(typeof omm.MEAN_MOTION).toBe('number')
  })

  test('JSON of real TLEs: values as the TLE states them, epoch to the microsecond', async () => {
    const { body } = await feed('CATNR=25544&FORMAT=JSON')
    expect(body).toHaveLength(1)
    const iss = catalog.get(25544)!.elements
    expect(body[0]).toMatchObject({
      OBJECT_NAME: 'ISS (ZARYA)',
      OBJECT_ID: '1998-067A',
      NORAD_CAT_ID: 25544,
      MEAN_MOTION: iss.meanMotionRevPerDay,
      ECCENTRICITY: iss.eccentricity,
      INCLINATION: iss.inclinationDeg,
      BSTAR: iss.bstar,
    })
    expect(body[0].EPOCH).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/)
  })

  test('JSON-PRETTY: the same records, indented', async () => {
    const compact = await feed('GROUP=stations&FORMAT=json')
    const pretty = await feed('GROUP=stations&FORMAT=json-pretty')
    expect(pretty.text).toStartWith('[\n    {\n        "OBJECT_NAME": ')
    expect(pretty.body).toEqual(compact.body)
  })

  test("CSV: CelesTrak's header, one row per element set, CRLF; reads back to the same elements", async () => {
    const { status, headers, text } = await feed('GROUP=synthetic&FORMAT=csv')
    expect(status).toBe(200)
    expect(headers.get('content-type')).toBe('text/csv; charset=utf-8')
    const rows = text.slice(0, -2).split('\r\n')
    expect(rows[0]).toBe(CELESTRAK_CSV_HEADER)
    expect(rows).toHaveLength(3)
    expect(rows[1]).toStartWith('"SYNTH, WITH TLE",2026-100B,2026-05-30T18:00:00.000001,')
    const parsed = parseOmmCsv(text)
    expect(parsed.ok).toBe(true)
    if (!parsed.ok) return
    expect(parsed.result.invalid).toEqual([])
    for (const elements of parsed.result.elements) {
      const original = catalog.get(elements.noradId)!.elements
      expect({ ...elements, tle: null }).toEqual({ ...original, tle: null })
    }
  })

  test('JSON and CSV of the real catalogue round-trip through the OMM readers', async () => {
    const json = parseOmmJson((await feed('GROUP=stations&FORMAT=json')).text)
    const csv = parseOmmCsv((await feed('GROUP=stations&FORMAT=csv')).text)
    expect(json.ok && csv.ok).toBe(true)
    if (!json.ok || !csv.ok) return
    const ids = members('stations').map((s) => s.noradId)
    expect(json.result.elements.map((e) => e.noradId)).toEqual(ids)
    expect(csv.result.elements.map((e) => e.noradId)).toEqual(ids)
    for (const e of csv.result.elements) {
      const original = catalog.get(e.noradId)!.elements
      expect(e.tle).toEqual(original.tle) // the OMM values give back the published lines
      expect(Math.abs(e.epochUs! - original.epochUs!)).toBeLessThanOrEqual(1)
    }
  })
})

describe('queries', () => {
  const ids = async (query: string) => (await feed(`${query}&FORMAT=json`)).body.map((r: any) => r.NORAD_CAT_ID)

  test('CATNR: one satellite (leading zeros allowed)', async () => {
    expect(await ids('CATNR=25544')).toEqual([25544])
    expect(await ids('CATNR=0025544')).toEqual([25544])
  })

  test('NAME: a case-insensitive part of the name', async () => {
    const found = await ids('NAME=iss')
    expect(found).toContain(25544)
    expect(found.length).toBe(members('stations').filter((s) => s.name.toLowerCase().includes('iss')).length)
  })

  test('INTDES: all pieces of a launch, or one piece', async () => {
    const launch = await ids('INTDES=1998-067')
    expect(launch).toContain(25544)
    expect(launch.length).toBeGreaterThan(1)
    expect(await ids('INTDES=1998-067a')).toEqual([25544])
    expect(await ids('INTDES=2026-100')).toEqual([OMM_WITH_TLE_ID, OMM_ONLY_ID])
  })

  test('GROUP is case-insensitive; parameter names and FORMAT values too', async () => {
    const upper = await feed('GROUP=STATIONS&FORMAT=CSV')
    const lower = await feed('group=stations&format=csv')
    expect(lower.status).toBe(200)
    expect(lower.text).toBe(upper.text)
    expect(lower.text).toStartWith(CELESTRAK_CSV_HEADER)
  })

  test('unknown parameters are ignored, a value that is not valid percent-encoding too', async () => {
    expect(await ids('CATNR=25544&_=12345')).toEqual([25544])
    expect(await ids('CATNR=25544&_=%ZZ')).toEqual([25544])
    // Names and values decoded as a form: NAME=iss%20(zarya) and NAME=iss+(zarya) find the same.
    expect(await ids('NAME=iss%20(zarya)')).toEqual([25544])
    expect(await ids('NAME=iss+(zarya)')).toEqual([25544])
    expect(await ids('%43ATNR=25544')).toEqual([25544])
  })

  test.each(['GROUP=nosuchgroup', 'CATNR=999999', 'NAME=no such satellite', 'INTDES=1957-001'])(
    'a valid query that matches nothing: 404 "No GP data found" (%s)',
    async (query) => {
      for (const format of ['tle', 'json', 'csv']) {
        const { status, headers, text } = await feed(`${query}&FORMAT=${format}`)
        expect(status).toBe(404)
        expect(headers.get('content-type')).toBe('text/plain; charset=utf-8')
        expect(text).toBe('No GP data found')
      }
    },
  )

  test.each([
    ['', 'give one of CATNR, INTDES, GROUP, NAME'],
    ['FORMAT=tle', 'give one of CATNR, INTDES, GROUP, NAME'],
    ['GROUP=stations&CATNR=25544', 'give only one of'],
    ['CATNR=abc', 'CATNR must be a catalog number'],
    ['CATNR=0', 'CATNR must be a catalog number'],
    ['CATNR=1234567890', 'CATNR must be a catalog number'],
    ['CATNR=25544&CATNR=20580', 'CATNR is given more than once'],
    ['catnr=25544&CATNR=20580', 'CATNR is given more than once'],
    ['INTDES=98067A', 'INTDES must be a launch'],
    ['GROUP=', 'GROUP must be a group name'],
    ['GROUP=../etc', 'GROUP must be a group name'],
    ['NAME=', 'NAME must be 1 to 100 characters'],
    ['GROUP=stations&FORMAT=xml', 'FORMAT must be one of'],
    ['GROUP=stations&FORMAT=kvn', 'FORMAT must be one of'],
    ['GROUP=stations&FORMAT=', 'FORMAT must be one of'],
    ['NAME=%ZZ', 'NAME is not valid percent-encoding (got "%ZZ")'],
    ['NAME=%FF', 'NAME is not valid percent-encoding (got "%FF")'],
    ['GROUP=stations&%ZZ=1', 'a parameter name is not valid percent-encoding (got "%ZZ")'],
  ])('an invalid query is a plain-text 400: %s', async (query, message) => {
    const { status, headers, text } = await feed(query)
    expect(status).toBe(400)
    expect(headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(text).toStartWith('Invalid query: ')
    expect(text).toContain(message)
  })
})

describe('HTTP', () => {
  test('strong ETag, 304 on If-None-Match, compressed when accepted', async () => {
    const first = await feed('GROUP=stations&FORMAT=3le')
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[0-9a-z]+"$/)
    expect((await feed('GROUP=stations&FORMAT=3le', { headers: { 'if-none-match': etag } })).status).toBe(304)
    // Another format or query is another representation.
    expect((await feed('GROUP=stations&FORMAT=2le')).headers.get('etag')).not.toBe(etag)
    expect((await feed('GROUP=stations&FORMAT=2le', { headers: { 'if-none-match': etag } })).status).toBe(200)
    const gz = await app.handle(new Request('http://localhost/NORAD/elements/gp.php?GROUP=stations&FORMAT=3le', { headers: { 'accept-encoding': 'gzip' } }))
    expect(gz.headers.get('content-encoding')).toBe('gzip')
    expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await gz.arrayBuffer())))).toBe(first.text)
  })

  test('HEAD answers like GET without a body; other methods are 405', async () => {
    const head = await feed('GROUP=stations', { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.text).toBe('')
    expect(head.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    const post = await feed('GROUP=stations', { method: 'POST' })
    expect(post.status).toBe(405)
  })

  test('documented in the OpenAPI document with its parameters', async () => {
    const spec = (await request(app, '/openapi/json')).body
    const operation = spec.paths['/NORAD/elements/gp.php']?.get
    expect(operation).toBeDefined()
    expect(operation.parameters.map((p: any) => p.name)).toEqual(['GROUP', 'CATNR', 'NAME', 'INTDES', 'FORMAT'])
    expect(Object.keys(operation.responses[200].content)).toEqual(['text/plain', 'application/json', 'text/csv'])
  })
})
