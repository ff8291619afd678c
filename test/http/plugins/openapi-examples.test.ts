/**
 * The examples of the served OpenAPI document (src/http/plugins/openapi-examples.json,
 * recorded by scripts/openapi-examples.ts) are real: each is what the app
 * answers now to the request it names, at the instant it was recorded; and the
 * served document carries them, with a `servers` entry.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import recorded from '../../../src/http/plugins/openapi-examples.json'
import { type ExamplesFile, recordExample, withExamples } from '../../../src/http/plugins/openapi-examples.ts'
import { withoutNullable } from '../../../src/http/plugins/docs.ts'
import { examplesApp, EXAMPLES_INSTANT } from '../../../scripts/openapi-examples-app.ts'

const file = recorded as ExamplesFile
const REGENERATE = 'bun scripts/openapi-examples.ts records them again'

let app: Awaited<ReturnType<typeof examplesApp>>
let spec: any

beforeAll(async () => {
  app = await examplesApp()
  spec = await (await app.handle(new Request('http://localhost/openapi/json'))).json()
})

describe('the recorded examples', () => {
  test('were recorded at the instant the app is asked at', () => {
    expect(file.instant).toBe(EXAMPLES_INSTANT)
  })

  test(`are what the app answers now, every one (else: ${REGENERATE})`, async () => {
    const differing: string[] = []
    for (const example of file.examples) {
      const now = await recordExample((request) => app.handle(request), example)
      if (!Bun.deepEquals(now, example, true)) differing.push(`${example.operation} ${example.name}: GET ${example.request}`)
    }
    expect(differing).toEqual([])
  }, 60_000)

  test('show every documented GET operation answering 200, and only statuses it documents', () => {
    const operations = Object.entries(spec.paths as Record<string, any>).filter(([, item]) => item.get)
    const without200 = operations.filter(([path]) => !file.examples.some((e) => e.operation === path && e.status === 200)).map(([path]) => path)
    expect({ without200, hint: REGENERATE }).toEqual({ without200: [], hint: REGENERATE })
    for (const example of file.examples) {
      const responses = spec.paths[example.operation]?.get?.responses ?? {}
      expect({ example: example.name, operation: example.operation, documented: String(example.status) in responses }).toEqual({
        example: example.name,
        operation: example.operation,
        documented: true,
      })
    }
  })
})

describe('the served OpenAPI document', () => {
  test("speaks OpenAPI 3.1's JSON Schema: no `nullable` (3.0's word, which strict validators refuse), null admitted in `type` or `anyOf` instead", () => {
    const nullable: string[] = []
    const walk = (value: unknown, path: string) => {
      if (value === null || typeof value !== 'object') return
      if ('nullable' in value) nullable.push(path)
      for (const [key, inner] of Object.entries(value)) walk(inner, `${path}/${key}`)
    }
    walk(spec, '')
    expect(nullable).toEqual([])
    const item = spec.paths['/api/v1/satellites'].get.responses[200].content['application/json'].schema.properties.data.items.properties
    expect(item.tle.type).toEqual(['object', 'null'])
    expect(item.epoch.type).toEqual(['string', 'null'])
    const geo = spec.paths['/api/v1/satellites/{noradId}/positions'].get.responses[200].content['application/geo+json'].schema
    expect(geo.properties.metadata.properties.omittedReason.anyOf).toContainEqual({ type: 'null' })
    // The conversion itself: a string made nullable, an anyOf without null, and one that has it.
    expect(withoutNullable<object>({ nullable: true, type: 'string', items: [{ nullable: true, anyOf: [{ type: 'number' }] }] })).toEqual({
      type: ['string', 'null'],
      items: [{ anyOf: [{ type: 'number' }, { type: 'null' }] }],
    })
    expect(withoutNullable<object>({ nullable: true, anyOf: [{ type: 'null' }, { type: 'string' }] })).toEqual({ anyOf: [{ type: 'null' }, { type: 'string' }] })
  })

  test('declares every media type a 200 can come in: calendars, GeoJSON, text and JSONP beside JSON', async () => {
    const types = (path: string) => Object.keys(spec.paths[path].get.responses[200].content).sort()
    expect(types('/api/v1/satellites/{noradId}/passes')).toEqual(['application/json', 'text/calendar'])
    expect(types('/api/v1/passes')).toEqual(['application/json', 'text/calendar'])
    expect(types('/api/v1/satellites/{noradId}/positions')).toEqual(['application/geo+json', 'application/json'])
    expect(types('/v1/satellites/{id}/tles')).toEqual(['application/json', 'text/plain'])
    for (const path of ['/iss-now.json', '/iss-pass.json', '/astros.json']) expect(types(path)).toEqual(['application/javascript', 'application/json'])
    // As served: each of those media types (without parameters) is one declared for its route.
    for (const [operation, request] of [
      ['/api/v1/satellites/{noradId}/passes', '/api/v1/satellites/25544/passes?latitude=48.85&longitude=2.35&format=ics'],
      ['/api/v1/passes', '/api/v1/passes?latitude=48.85&longitude=2.35&group=stations&format=ics'],
      ['/v1/satellites/{id}/tles', '/v1/satellites/25544/tles?format=text'],
      ['/iss-now.json', '/iss-now.json?callback=cb'],
    ] as const) {
      const answer = await app.handle(new Request(`http://localhost${request}`))
      expect({ request, status: answer.status }).toEqual({ request, status: 200 })
      expect(types(operation)).toContain(answer.headers.get('content-type')!.split(';')[0]!)
    }
  })

  test('has a servers entry relative to where it is served, so its snippets name this service', () => {
    expect(spec.servers).toEqual([{ url: '/', description: expect.stringContaining(EXAMPLES_INSTANT) }])
  })

  test('documents the 304 of every answer sent with an ETag that an If-None-Match matches (the list, one satellite, the feed)', async () => {
    for (const [operation, path] of [
      ['/api/v1/satellites', '/api/v1/satellites'],
      ['/api/v1/satellites/{noradId}', '/api/v1/satellites/25544'],
      ['/NORAD/elements/gp.php', '/NORAD/elements/gp.php?GROUP=stations&FORMAT=tle'],
    ] as const) {
      const etag = (await app.handle(new Request(`http://localhost${path}`))).headers.get('etag')!
      const again = await app.handle(new Request(`http://localhost${path}`, { headers: { 'if-none-match': etag } }))
      expect({ operation, status: again.status }).toEqual({ operation, status: 304 })
      expect(Object.keys(spec.paths[operation].get.responses), operation).toContain('304')
      expect(spec.paths[operation].get.responses['200'].content, operation).toBeDefined()
    }
  })

  test('carries each example under its operation, status and content type', () => {
    for (const example of file.examples) {
      const media = spec.paths[example.operation].get.responses[String(example.status)].content[example.contentType]
      expect({ example: example.name, shown: media?.examples?.[example.name]?.value }).toEqual({ example: example.name, shown: example.value })
      expect(media.examples[example.name].summary).toContain(example.request)
      // example and examples exclude each other.
      expect(media.example).toBeUndefined()
    }
  })

  test("gives each parameter the value of its operation's first 200 example, typed as its schema says", () => {
    const geoposition = spec.paths['/api/v1/satellites/{noradId}/geoposition'].get.parameters
    expect(geoposition.map((p: any) => [p.name, p.example])).toEqual([
      ['noradId', 25544],
      ['time', EXAMPLES_INSTANT],
    ])
    const nearby = spec.paths['/api/v1/satellites/nearby'].get.parameters
    expect(nearby.find((p: any) => p.name === 'latitude').example).toBe(-33.87)
    expect(nearby.find((p: any) => p.name === 'mode').example).toBeUndefined()
    // The feed takes one selector: those its example does without carry no example a snippet would fill in.
    const feed = spec.paths['/NORAD/elements/gp.php'].get.parameters
    expect(feed.map((p: any) => [p.name, p.example ?? p.schema?.example ?? null])).toEqual([
      ['GROUP', null],
      ['CATNR', '25544'],
      ['NAME', null],
      ['INTDES', null],
      ['FORMAT', 'tle'],
    ])
  })

  test('is built once: the same document on every request', async () => {
    const again = await (await app.handle(new Request('http://localhost/openapi/json'))).json()
    expect(again).toEqual(spec)
  })
})

describe('withExamples', () => {
  test('leaves the document it is given as it was', () => {
    const given = {
      paths: {
        '/a/{id}': {
          get: {
            parameters: [{ name: 'id', in: 'path', schema: { type: 'integer' } }],
            responses: { 200: { content: { 'application/json': { schema: {}, example: { written: true } } } } },
          },
        },
      },
    }
    const before = structuredClone(given)
    const shown: any = withExamples(given, {
      instant: 'x',
      examples: [{ operation: '/a/{id}', name: 'one', summary: 'One', request: '/a/7', status: 200, contentType: 'application/json', value: { id: 7 } }],
    })
    expect(given).toEqual(before)
    expect(shown.paths['/a/{id}'].get.parameters[0].example).toBe(7)
    expect(shown.paths['/a/{id}'].get.responses[200].content['application/json']).toEqual({ schema: {}, examples: { one: { summary: 'One: GET /a/7', value: { id: 7 } } } })
  })
})
