/** GET /api/v1/satellites/geoposition?ids=: geopositions of several satellites at one instant. */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { appFor, embeddedCatalog, request } from '../../helpers/catalog.ts'
import { declaredParameters, describeParameters } from '../../helpers/params.ts'

const NOW = Date.UTC(2026, 4, 31, 6)

let catalog: Catalog
let app: ReturnType<typeof appFor>
beforeAll(async () => {
  catalog = await embeddedCatalog()
  app = appFor(catalog, NOW)
})

const batch = (query: string) => request(app, `/api/v1/satellites/geoposition?${query}`)

describe('GET /api/v1/satellites/geoposition', () => {
  test('each entry is what /:noradId/geoposition answers, in the order of ids', async () => {
    const time = '2026-05-31T00:00:00Z'
    const { status, body } = await batch(`ids=25544,20580,49044&time=${time}`)
    expect(status).toBe(200)
    expect(body.data.map((e: any) => e.noradId)).toEqual([25544, 20580, 49044])
    expect(body.metadata).toEqual({ total: 3, datetime: '2026-05-31T00:00:00.000Z', missing: [], noPosition: [], noPositionReasons: [] })
    for (const entry of body.data) {
      const one = await request(app, `/api/v1/satellites/${entry.noradId}/geoposition?time=${time}`)
      expect(entry).toEqual(one.body)
    }
  })

  test('without time, the clock', async () => {
    const { body } = await batch('ids=25544')
    expect(body.metadata.datetime).toBe(new Date(NOW).toISOString())
    expect(body.data[0].datetime).toBe(new Date(NOW).toISOString())
  })

  test('unknown ids in metadata.missing, ids without a position in metadata.noPosition; the rest still answered', async () => {
    const { status, body } = await batch('ids=48880,999999,25544,1&time=2026-06-20T10:00:00Z')
    expect(status).toBe(200)
    expect(body.data.map((e: any) => e.noradId)).toEqual([25544])
    expect(body.metadata).toEqual({
      total: 1,
      datetime: '2026-06-20T10:00:00.000Z',
      missing: [999999, 1],
      noPosition: [48880],
      noPositionReasons: [{ noradId: 48880, kind: 'decayed', reason: expect.stringMatching(/^decayed at 2026-06-\d\dT.*; no later positions$/) }],
    })
  })

  test('nothing known: 200 with an empty list', async () => {
    const { status, body } = await batch('ids=999999')
    expect(status).toBe(200)
    expect(body.data).toEqual([])
    expect(body.metadata.missing).toEqual([999999])
  })

  test('100 ids are allowed (the first 100 satellites of the catalogue)', async () => {
    const ids = catalog.satellites.slice(0, 100).map((s) => s.noradId)
    const { status, body } = await batch(`ids=${ids.join(',')}&time=2026-05-31T00:00:00Z`)
    expect(status).toBe(200)
    expect(body.data.length + body.metadata.noPosition.length).toBe(100)
    expect(body.metadata.missing).toEqual([])
  })

  test('a static path: /geoposition is not taken for a satellite id', async () => {
    const { status, body } = await request(app, '/api/v1/satellites/geoposition')
    expect(status).toBe(400)
    expect(body.message).toStartWith('ids is required')
  })

  test('parameters: as declared (each refused outside its declaration with a 400 naming it: test/http/plugins/params.test.ts); at most 100 ids', async () => {
    expect(describeParameters(declaredParameters(app).get('/api/v1/satellites/geoposition')!)).toEqual(['ids: id list required', 'time: instant'])
    const tooMany = await batch(`ids=${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}`)
    expect(tooMany.body).toEqual({ statusCode: 400, message: 'ids must list at most 100 catalog numbers (got 101)' })
    expect((await batch('ids=')).body).toEqual({ statusCode: 400, message: 'ids must be a comma-separated list of 1 to 100 NORAD catalog numbers (integers between 1 and 999999999) (got "")' })
  })

  test('documented: ids as a comma-separated string, time', async () => {
    const spec = (await request(app, '/openapi/json')).body
    const parameters = spec.paths['/api/v1/satellites/geoposition'].get.parameters
    expect(parameters.map((p: any) => [p.name, p.required, p.schema.type])).toEqual([
      ['ids', true, 'string'],
      ['time', false, 'string'],
    ])
  })
})
