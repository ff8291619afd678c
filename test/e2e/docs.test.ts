/**
 * The docs the executable serves itself: the OpenAPI document at /openapi/json
 * and the Scalar page at /swagger and /openapi, rendered by a real headless
 * Chromium (Debian's /usr/bin/chromium driven by playwright-core) that must
 * never reach a host other than 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliDecompressSync } from 'node:zlib'
import { CHROMIUM, CHROMIUM_ARGS, call, LOOPBACK, mediaType, ROOT, requireChromium, type Service, startService } from './harness.ts'
import { Validator } from '@seriousme/openapi-schema-validator'

// Generous: these start processes and a browser; nothing here measures speed.
setDefaultTimeout(30_000)

const SCREENSHOT = join(ROOT, 'test-results/docs.png')

let service: Service
let base: string
let spec: any

beforeAll(async () => {
  service = await startService()
  base = service.url
  spec = (await call(base, '/openapi/json')).json
}, 30_000)

afterAll(async () => {
  if (service) expect(await service.stop()).toBe(0)
}, 30_000)

/** Follows a local `$ref` (`#/components/...`). */
function deref(node: any): any {
  let n = node
  for (let i = 0; n && typeof n.$ref === 'string' && i < 10; i++) {
    if (!n.$ref.startsWith('#/')) throw new Error(`external $ref ${n.$ref}`)
    n = n.$ref
      .slice(2)
      .split('/')
      .reduce((o: any, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], spec)
  }
  return n
}

/** The numeric bounds a parameter schema states, at its top or in its numeric anyOf/oneOf branches. */
function bounds(schema: any): { minimum: number | undefined; maximum: number | undefined } {
  const s = deref(schema)
  const numeric = [s, ...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]
    .map(deref)
    .filter((x: any) => x.minimum !== undefined || x.maximum !== undefined)
  const minimum = numeric.map((x: any) => x.minimum).find((v: any) => v !== undefined)
  const maximum = numeric.map((x: any) => x.maximum).find((v: any) => v !== undefined)
  // Every branch that states a bound must state the same one.
  for (const x of numeric) {
    if (x.minimum !== undefined) expect(x.minimum).toBe(minimum)
    if (x.maximum !== undefined) expect(x.maximum).toBe(maximum)
  }
  return { minimum, maximum }
}

function operation(path: string) {
  const op = spec.paths?.[path]?.get
  if (!op) throw new Error(`the OpenAPI document has no GET ${path}`)
  return op
}

function parameter(path: string, name: string, where: 'query' | 'path') {
  const op = operation(path)
  const all = [...(spec.paths[path].parameters ?? []), ...(op.parameters ?? [])].map(deref)
  const p = all.find((x: any) => x.name === name && x.in === where)
  if (!p) throw new Error(`GET ${path} documents no ${where} parameter ${name} (has ${all.map((x: any) => `${x.in}:${x.name}`).join(', ')})`)
  return p
}

describe('docs pages', () => {
  for (const path of ['/docs', '/swagger', '/openapi']) {
    test(`GET ${path} → the docs page, with no absolute URL (nothing from a CDN)`, async () => {
      const r = await call(base, path)
      expect(r.status).toBe(200)
      expect(mediaType(r.headers)).toBe('text/html; charset=utf-8')
      expect(r.text).toContain('openapi/json')
      expect(r.text).toMatch(/<script[^>]+src="[^"]*openapi\/scalar\.js"/)
      expect(r.text).not.toMatch(/(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i)
    })
  }

  test('the UI bundle is served by the executable itself, compressed, with an ETag', async () => {
    const r = await fetch(`${base}/openapi/scalar.js`, { headers: { 'Accept-Encoding': 'identity' } })
    expect(r.status).toBe(200)
    expect(mediaType(r.headers)).toContain('javascript')
    const identity = new Uint8Array(await r.arrayBuffer())
    expect(identity.byteLength).toBeGreaterThan(100_000)
    const etag = r.headers.get('etag')!
    expect(etag).toMatch(/^"[0-9a-z]+"$/)
    // Brotli (decompressed here by hand, so what arrived is the compressed body): the same bytes, under a third of the size.
    const br = await fetch(`${base}/openapi/scalar.js`, { headers: { 'Accept-Encoding': 'br' }, decompress: false })
    expect(br.headers.get('content-encoding')).toBe('br')
    const compressed = new Uint8Array(await br.arrayBuffer())
    expect(compressed.byteLength).toBeLessThan(identity.byteLength / 3)
    expect(Bun.hash(brotliDecompressSync(compressed))).toBe(Bun.hash(identity))
    const again = await fetch(`${base}/openapi/scalar.js`, { headers: { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.get('etag')! } })
    expect(again.status).toBe(304)
    // The identity ETag names the identity body: a client asking for brotli with it gets the brotli body.
    const other = await fetch(`${base}/openapi/scalar.js`, { headers: { 'Accept-Encoding': 'br', 'If-None-Match': etag }, decompress: false })
    expect(other.status).toBe(200)
    expect(other.headers.get('etag')).toBe(br.headers.get('etag'))
  })
})

describe('GET /openapi/json', () => {
  const PART1 = {
    // Part 2 adds the list search (none of it required).
    '/api/v1/satellites': { query: ['group', 'search', 'ids', 'page', 'page-size'], path: [] },
    '/api/v1/satellites/iss': { query: ['time'], path: [] },
    '/api/v1/satellites/{noradId}/geoposition': { query: ['time'], path: ['noradId'] },
    '/api/v1/satellites/nearby': {
      query: ['latitude', 'longitude', 'altitude', 'mode', 'azimuth-range-from', 'azimuth-range-to', 'elevation-threshold', 'visible-only', 'magnitude-limit', 'time', 'frequency'],
      path: [],
    },
    '/api/v1/service/healthcheck': { query: [], path: [] },
  } as const

  test('is an OpenAPI 3.x document of this service', async () => {
    const r = await call(base, '/openapi/json')
    expect(r.status).toBe(200)
    expect(mediaType(r.headers)).toStartWith('application/json')
    expect(spec.openapi).toMatch(/^3\.\d+\.\d+$/)
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(spec.info.version).toBe(version)
    expect(spec.info.title).toBeString()
  })

  test('is valid OpenAPI 3.1 by the specification\'s own JSON schema (as code generators read it)', async () => {
    const result = await new Validator().validate(structuredClone(spec))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
  })

  test('lists every /api/v1 path of docs/contract.md part 1 with GET and its parameters', () => {
    for (const [path, expected] of Object.entries(PART1)) {
      const op = operation(path)
      expect(op.summary ?? op.description).toBeString()
      const params = [...(spec.paths[path].parameters ?? []), ...(op.parameters ?? [])].map(deref)
      const names = (where: string) => params.filter((p: any) => p.in === where).map((p: any) => p.name).sort()
      expect({ path, query: names('query') }).toEqual({ path, query: [...expected.query].sort() })
      expect({ path, path_: names('path') }).toEqual({ path, path_: [...expected.path].sort() })
      for (const p of params) expect(p.schema).toBeObject()
    }
  })

  test('required parameters are marked required', () => {
    expect(parameter('/api/v1/satellites/nearby', 'latitude', 'query').required).toBe(true)
    expect(parameter('/api/v1/satellites/nearby', 'longitude', 'query').required).toBe(true)
    expect(parameter('/api/v1/satellites/{noradId}/geoposition', 'noradId', 'path').required).toBe(true)
    for (const name of ['altitude', 'mode', 'azimuth-range-from', 'azimuth-range-to', 'elevation-threshold', 'visible-only', 'magnitude-limit', 'time']) {
      expect({ name, required: parameter('/api/v1/satellites/nearby', name, 'query').required ?? false }).toEqual({ name, required: false })
    }
  })

  test('states the bounds (minimum/maximum) of every bounded parameter', () => {
    const nearby = '/api/v1/satellites/nearby'
    const expected: [string, string, 'query' | 'path', number, number][] = [
      [nearby, 'latitude', 'query', -90, 90],
      [nearby, 'longitude', 'query', -180, 180],
      [nearby, 'altitude', 'query', -1000, 100_000],
      [nearby, 'elevation-threshold', 'query', 10, 90],
      [nearby, 'azimuth-range-from', 'query', 0, 360],
      [nearby, 'azimuth-range-to', 'query', 0, 360],
      [nearby, 'magnitude-limit', 'query', -5, 8],
      ['/api/v1/satellites/{noradId}/passes', 'magnitude-limit', 'query', -5, 8],
      ['/api/v1/satellites/{noradId}/geoposition', 'noradId', 'path', 1, 999_999_999],
    ]
    for (const [path, name, where, minimum, maximum] of expected) {
      expect({ name, ...bounds(parameter(path, name, where).schema) }).toEqual({ name, minimum, maximum })
    }
  })

  test('mode is basic|extended and visible-only a boolean', () => {
    const mode = deref(parameter('/api/v1/satellites/nearby', 'mode', 'query').schema)
    const values = mode.enum ?? [...(mode.anyOf ?? []), ...(mode.oneOf ?? [])].map((b: any) => deref(b).const)
    expect([...values].sort()).toEqual(['basic', 'extended'])
    expect(deref(parameter('/api/v1/satellites/nearby', 'visible-only', 'query').schema).type).toBe('boolean')
  })

  test('error responses (400/404/422) are documented where they apply, with the error body', () => {
    const expected: Record<string, string[]> = {
      '/api/v1/satellites/iss': ['400', '404', '422'],
      '/api/v1/satellites/{noradId}/geoposition': ['400', '404', '422'],
      '/api/v1/satellites/nearby': ['400'],
    }
    for (const [path, statuses] of Object.entries(expected)) {
      const responses = operation(path).responses
      expect(Object.keys(responses)).toContain('200')
      for (const status of statuses) {
        const response = deref(responses[status])
        expect({ path, status, documented: response !== undefined }).toEqual({ path, status, documented: true })
        const schema = deref(response.content?.['application/json']?.schema)
        expect({ path, status, fields: Object.keys(schema?.properties ?? {}).sort() }).toEqual({
          path,
          status,
          fields: ['message', 'statusCode'],
        })
      }
    }
  })

  test('has a servers entry relative to itself, and a recorded 200 example on every GET operation', () => {
    expect(spec.servers?.[0]?.url).toBe('/')
    for (const [path, item] of Object.entries(spec.paths as Record<string, any>)) {
      if (!item.get) continue
      const content = deref(item.get.responses['200']).content ?? {}
      const examples = Object.values(content).flatMap((media: any) => Object.values(media.examples ?? {}))
      expect({ path, examples: examples.length > 0 }).toEqual({ path, examples: true })
    }
  })

  test('its examples at fixed instants are what this executable answers', async () => {
    let compared = 0
    for (const [path, item] of Object.entries(spec.paths as Record<string, any>)) {
      for (const [status, response] of Object.entries(item.get?.responses ?? {})) {
        const media = (response as any).content?.['application/json']
        for (const example of Object.values(media?.examples ?? {}) as { summary: string; value: unknown }[]) {
          const request = /GET (\S+)$/.exec(example.summary)?.[1]
          // Answers of "now" (no time, from or a fixed error) differ with the executable's clock.
          if (!request || !/[?&](time|from)=/.test(request)) continue
          const r = await call(base, request)
          expect({ path, request, status: r.status, body: r.json }).toEqual({ path, request, status: Number(status), body: example.value })
          compared++
        }
      }
    }
    expect(compared).toBeGreaterThanOrEqual(15)
  })

  test('does not document the docs routes themselves', () => {
    for (const path of Object.keys(spec.paths)) expect(path).not.toMatch(/^\/(docs|swagger|openapi)/)
  })
})

describe('the docs page in a real browser (Chromium, headless)', () => {
  test(`renders the API from 127.0.0.1 only; screenshot in test-results/docs.png`, async () => {
    requireChromium()
    const { chromium } = await import('playwright-core')
    const profile = mkdtempSync(join(tmpdir(), 'sattrack-e2e-chromium-'))
    const requests: { url: string; type: string }[] = []
    const failures: string[] = []
    const pageErrors: string[] = []
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 800 },
      serviceWorkers: 'block',
    })
    try {
      const page = context.pages()[0] ?? (await context.newPage())
      // The DevTools network log sees every request of the page, favicon included.
      const cdp = await context.newCDPSession(page)
      await cdp.send('Network.enable')
      const urls = new Map<string, string>()
      const pending = new Set<string>()
      let lastActivity = performance.now()
      cdp.on('Network.requestWillBeSent', (e: any) => {
        urls.set(e.requestId, e.request.url)
        pending.add(e.requestId)
        lastActivity = performance.now()
        requests.push({ url: e.request.url, type: e.type ?? '' })
      })
      cdp.on('Network.loadingFinished', (e: any) => {
        pending.delete(e.requestId)
        lastActivity = performance.now()
      })
      cdp.on('Network.responseReceived', (e: any) => {
        if (e.response.status >= 400) failures.push(`${e.response.status} ${e.response.url}`)
      })
      cdp.on('Network.loadingFailed', (e: any) => {
        pending.delete(e.requestId)
        failures.push(`${e.errorText} ${urls.get(e.requestId) ?? e.requestId}`)
      })
      /** Waits until no request is in flight and none started for a second. */
      const settled = async () => {
        const deadline = performance.now() + 15_000
        while (pending.size > 0 || performance.now() - lastActivity < 1_000) {
          if (performance.now() > deadline) {
            throw new Error(`the page kept the network busy; pending: ${[...pending].map((id) => urls.get(id)).join(', ')}`)
          }
          await page.waitForTimeout(100)
        }
      }
      context.on('request', (r) => requests.push({ url: r.url(), type: r.resourceType() }))
      context.on('requestfailed', (r) => failures.push(`${r.failure()?.errorText} ${r.url()}`))
      page.on('pageerror', (e) => pageErrors.push(e.message))

      const response = await page.goto(`${base}/swagger`, { waitUntil: 'load' })
      expect(response?.status()).toBe(200)
      await page.getByText('Satellites above an observer').first().waitFor({ state: 'visible', timeout: 30_000 })
      // Scroll through the whole reference so lazily rendered sections load too.
      for (let i = 0; i < 40; i++) {
        const atEnd = await page.evaluate(() => {
          window.scrollBy(0, window.innerHeight)
          return window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2
        })
        await page.waitForTimeout(100)
        if (atEnd) break
      }
      await page.getByText('/api/v1/satellites/nearby').first().waitFor({ state: 'attached', timeout: 10_000 })
      // (Playwright's 'networkidle' never fires with this Chromium: count requests ourselves.)
      await settled()
      await page.evaluate(() => window.scrollTo(0, 0))
      await page.waitForTimeout(300)
      mkdirSync(join(ROOT, 'test-results'), { recursive: true })
      // Animations stopped (a frame that never settles held a screenshot past 30 s once, under the whole suite's load).
      await page.screenshot({ path: SCREENSHOT, animations: 'disabled', timeout: 45_000 })

      const text = await page.locator('body').innerText()
      for (const summary of ['List all satellites', "A satellite's geoposition", 'Satellites above an observer', 'Health check']) {
        expect(text).toContain(summary)
      }
      // The request examples name this service (the document's servers entry) and work as they stand.
      const curls = [...text.matchAll(/^curl '?(http[^' ]+)'?$/gm)].map((m) => m[1]!)
      expect(curls.length).toBeGreaterThan(0)
      for (const url of curls) {
        expect(url.startsWith(`${base}/`)).toBe(true)
        const answer = await fetch(url)
        await answer.body?.cancel()
        // A request for "now" (no time or from) may find the embedded elements too old: 422, as documented.
        const pinned = /[?&](time|from)=/.test(url)
        expect({ url, ok: answer.status === 200 || (!pinned && answer.status === 422) }).toEqual({ url, ok: true })
      }
      const network = requests.filter((r) => !/^(data|blob|about):/.test(r.url))
      expect(network.map((r) => r.url)).toContain(`${base}/openapi/json`)
      const elsewhere = network.filter((r) => new URL(r.url).hostname !== LOOPBACK)
      expect(elsewhere).toEqual([])
      expect(failures).toEqual([])
      expect(pageErrors).toEqual([])
      console.log(`docs page: ${new Set(network.map((r) => r.url)).size} distinct requests, all to ${LOOPBACK}; ${curls.length} curl snippets answered; screenshot ${SCREENSHOT}`)
    } finally {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    }
  }, 120_000)
})
