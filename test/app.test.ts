/** Conventions that hold everywhere (docs/contract.md section 0): errors, 404, 405, HEAD, CORS, healthcheck. */
import { beforeAll, describe, expect, test } from 'bun:test'
import { createApp } from '../src/http/app.ts'
import { buildCatalog, type Catalog } from '../src/domain/catalog/catalog.ts'
import { CatalogStore } from '../src/domain/catalog/store.ts'
import { appFor, embeddedCatalog, request } from './helpers/catalog.ts'

let catalog: Catalog
let app: ReturnType<typeof appFor>
beforeAll(async () => {
  catalog = await embeddedCatalog()
  app = appFor(catalog)
})

const KNOWN_PATHS = [
  '/api/v1/satellites',
  '/api/v1/satellites/iss',
  '/api/v1/satellites/nearby',
  '/api/v1/satellites/25544',
  '/api/v1/satellites/25544/geoposition',
  '/api/v1/service/healthcheck',
]

describe('errors', () => {
  test('unknown path: 404 with the error body', async () => {
    for (const path of ['/nope', '/api/v1', '/api/v1/satellites/25544/nope', '/api/v2/satellites']) {
      const { status, headers, body } = await request(app, path)
      expect(status).toBe(404)
      expect(headers.get('content-type')).toStartWith('application/json')
      expect(body).toEqual({ statusCode: 404, message: expect.stringContaining(path) })
    }
    // A path the router does not match but the path patterns read as a known one (`//` as `/`): 404 for GET and HEAD, not a 405 allowing them.
    for (const method of ['GET', 'HEAD']) expect((await request(app, '//', { method })).status).toBe(404)
    // A long path is shown as every refused value is: its first 64 characters and an ellipsis.
    const long = `/api/v1/${'x'.repeat(300)}`
    expect((await request(app, long)).body.message).toBe(`no such path: ${long.slice(0, 64)}…`)
  })

  test.each(['POST', 'PUT', 'PATCH', 'DELETE'])('%s on a known path: 405 with Allow', async (method) => {
    for (const path of KNOWN_PATHS) {
      const { status, headers, body } = await request(app, path, { method, body: method === 'DELETE' ? undefined : '{}' })
      expect(status).toBe(405)
      expect(headers.get('allow')).toBe('GET, HEAD, OPTIONS')
      expect(body.statusCode).toBe(405)
      expect(body.message).toContain(method)
    }
  })

  test('POST on an unknown path stays 404', async () => {
    expect((await request(app, '/nope', { method: 'POST' })).status).toBe(404)
  })

  test('an unexpected failure is a 500 with the error body and no stack or path', async () => {
    const broken = createApp({ store: new CatalogStore(catalog), clock: () => Number.NaN })
    const { status, body, text } = await request(broken, '/api/v1/satellites/25544/geoposition')
    expect(status).toBe(500)
    expect(body).toEqual({ statusCode: 500, message: 'internal server error' })
    expect(text).not.toContain('/work')
    expect(text).not.toContain('at ')
  })
})

describe('docs', () => {
  test('/docs, /swagger and /openapi serve the page; with a trailing slash they redirect to it', async () => {
    for (const path of ['/docs', '/swagger', '/openapi']) {
      const page = await request(app, path)
      expect(page.status).toBe(200)
      expect(page.headers.get('content-type')).toStartWith('text/html')
      const slash = await request(app, `${path}/`)
      expect(slash.status).toBe(308)
      expect(new URL(slash.headers.get('location')!, `http://localhost${path}/`).pathname).toBe(path)
    }
  })

  test('/docs/json and /swagger/json send a client on to the document, /openapi/json, with a trailing slash too', async () => {
    const spec = await request(app, '/openapi/json')
    expect(spec.body.openapi).toStartWith('3.')
    for (const path of ['/docs/json', '/swagger/json']) {
      const moved = await request(app, path)
      expect(moved.status).toBe(308)
      // Relative, so that it holds behind a proxy that serves the service under a prefix.
      expect(moved.headers.get('location')).toBe('../openapi/json')
      expect(new URL(moved.headers.get('location')!, `http://localhost${path}`).pathname).toBe('/openapi/json')
      const slash = await request(app, `${path}/`)
      expect(slash.status).toBe(308)
      expect(new URL(slash.headers.get('location')!, `http://localhost/prefix${path}/`).pathname).toBe('/prefix/openapi/json')
    }
    // The document with a trailing slash is the same document (with the recorded examples and the servers entry).
    const slashed = await request(app, '/openapi/json/')
    expect(slashed.status).toBe(200)
    const { description, ...info } = slashed.body.info
    const { description: specDescription, ...specInfo } = spec.body.info
    expect({ ...slashed.body, info }).toEqual({ ...spec.body, info: specInfo })
    expect(description.split('\n\nNow: ')[0]).toBe(specDescription.split('\n\nNow: ')[0])
  })
})

describe('HEAD, CORS and OPTIONS', () => {
  test('HEAD works wherever GET does, with the same status and headers and no body', async () => {
    for (const path of [...KNOWN_PATHS.filter((p) => !p.endsWith('nearby')), '/api/v1/satellites/nearby?latitude=0&longitude=0']) {
      const get = await request(app, path)
      const head = await request(app, path, { method: 'HEAD' })
      expect(head.status).toBe(get.status)
      expect(head.text).toBe('')
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'))
    }
  })

  test('Access-Control-Allow-Origin on answers and errors; configurable', async () => {
    expect((await request(app, '/api/v1/service/healthcheck')).headers.get('access-control-allow-origin')).toBe('*')
    expect((await request(app, '/nope')).headers.get('access-control-allow-origin')).toBe('*')
    expect((await request(app, '/api/v1/satellites/nearby')).headers.get('access-control-allow-origin')).toBe('*')
    const strict = createApp({ store: new CatalogStore(catalog), corsOrigin: 'https://example.org' })
    const res = await request(strict, '/api/v1/service/healthcheck')
    expect(res.headers.get('access-control-allow-origin')).toBe('https://example.org')
    expect(res.headers.get('vary')).toBe('Origin')
  })

  test('a CORS preflight on a known path is answered 204', async () => {
    const { status, headers } = await request(app, '/api/v1/satellites', {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:8080', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
    })
    expect(status).toBe(204)
    expect(headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS')
    expect(headers.get('access-control-allow-headers')).toBe('if-none-match')
    expect(headers.get('content-type')).toBeNull() // no body, no content type
    const unknown = await request(app, '/nope', { method: 'OPTIONS' })
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('content-type')).toBe('application/json; charset=utf-8')
  })
})

describe('GET /api/v1/service/healthcheck', () => {
  test('200 {"message": "OK"} with a loaded catalogue', async () => {
    const { status, body } = await request(app, '/api/v1/service/healthcheck')
    expect(status).toBe(200)
    expect(body).toEqual({ message: 'OK' })
  })

  test('503 with the error body when the catalogue is empty', async () => {
    const empty = buildCatalog([], { source: 'snapshot', obtainedAtMs: 0 }, 0)
    const { status, body } = await request(appFor(empty), '/api/v1/service/healthcheck')
    expect(status).toBe(503)
    expect(body.statusCode).toBe(503)
  })
})
