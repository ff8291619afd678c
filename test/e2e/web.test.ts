/**
 * The web page at `/` (src/web, served by src/http/routes/web), end to end: the
 * compiled executable on a loopback port, Debian's Chromium driven by
 * playwright-core, every request of the page recorded through the DevTools
 * network log. The page is pinned to one observer and instant
 * (`/?lat=..&lon=..&time=..`) and compared with the API's own answers for the
 * same observer and instant. Screenshots of each view go to test-results/.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import { parseInstant } from '../../src/http/plugins/params.ts'
import { nightStart } from '../../src/web/geometry.ts'
import { instantRefusal, parseInstant as parseWebInstant } from '../../src/web/instant.ts'
import { CHROMIUM, CHROMIUM_ARGS, call, LOOPBACK, mediaType, ROOT, requireChromium, type Service, startService } from './harness.ts'

setDefaultTimeout(60_000)

const RESULTS = join(ROOT, 'test-results')
/** Issue 6: everything the page transfers, compressed as sent. */
const TRANSFER_LIMIT_BYTES = 300 * 1024

const OBSERVER = { latitude: 48.85, longitude: 2.35 }

interface SkyEntry {
  noradId: number
  name: string
  azimuth: number
  elevation: number
  visible: boolean
  elementAgeDays: number
}

let service: Service
let base: string
let browser: Browser
/** The pinned instant: near the snapshot's date, with some satellites visible to the naked eye and some not. */
let instant: string
/** /nearby for OBSERVER at `instant`. */
let sky: SkyEntry[]
let skyVisibleOnly: number[]
/** A group with some but not all of `sky` in it, and its members. */
let groupName: string
let groupMembers: Set<number>

const nearbyPath = (time: string, extra = '') =>
  `/api/v1/satellites/nearby?latitude=${OBSERVER.latitude}&longitude=${OBSERVER.longitude}&time=${encodeURIComponent(time)}${extra}`
const pagePath = (extra = '') => `/?lat=${OBSERVER.latitude}&lon=${OBSERVER.longitude}&time=${encodeURIComponent(instant)}${extra}`
const ids = (list: { noradId: number }[]) => list.map((s) => s.noradId).sort((a, b) => a - b)
/** The service's clock, from its Date header (to the second; the middle of that second). */
const serviceNow = async () => Date.parse((await call(base, '/api/v1/service/healthcheck')).headers.get('date')!) + 500

beforeAll(async () => {
  requireChromium()
  service = await startService()
  base = service.url

  // An instant in the snapshot's week, at an hour when the sky over the observer is dark enough for some passes to be visible.
  const status = (await call(base, '/api/v1/service/status')).json
  const start = Math.floor(Date.parse(status.catalog.obtainedAt) / 3_600_000) * 3_600_000
  for (let hour = 0; hour < 72 && !instant; hour++) {
    const time = new Date(start + hour * 3_600_000).toISOString()
    const answer = (await call(base, nearbyPath(time))).json
    const visible = answer.satellites.filter((s: SkyEntry) => s.visible).length
    if (answer.satellites.length >= 20 && visible > 0 && visible < answer.satellites.length) {
      instant = time
      sky = answer.satellites
    }
  }
  if (!instant) throw new Error('no hour in the snapshot week has both visible and invisible satellites over the observer')
  skyVisibleOnly = ids((await call(base, nearbyPath(instant, '&visible-only=true'))).json.satellites)

  // Group membership from the API's own list.
  const list: { noradId: number; groups: string[] }[] = (await call(base, '/api/v1/satellites')).json.data
  const members = new Map<string, Set<number>>()
  for (const s of list) for (const g of s.groups) (members.get(g) ?? members.set(g, new Set()).get(g)!).add(s.noradId)
  const inSky = (g: string) => sky.filter((s) => members.get(g)!.has(s.noradId)).length
  const candidates = [...members.keys()].filter((g) => inSky(g) > 0 && inSky(g) < sky.length).sort((a, b) => inSky(a) - inSky(b))
  if (candidates.length === 0) throw new Error('no group splits the sky: cannot test the group filter')
  groupName = candidates.includes('stations') ? 'stations' : candidates[0]!
  groupMembers = members.get(groupName)!

  const { chromium } = await import('playwright-core')
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
  mkdirSync(RESULTS, { recursive: true })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  if (service) expect(await service.stop()).toBe(0)
}, 30_000)

/** What one page did on the network and in its console. */
interface PageLog {
  requests: string[]
  failures: string[]
  consoleErrors: string[]
  pageErrors: string[]
  /** Bytes received, headers and (compressed) bodies, as the DevTools network log counts them. */
  bytes: () => number
  /** Waits until no request is in flight and none started for `quietMs`. */
  settled: (quietMs?: number) => Promise<void>
}

/** A fresh browser context (empty cache and storage) with one page whose every request is recorded. */
async function openPage(options: BrowserContextOptions = {}): Promise<{ context: BrowserContext; page: Page; log: PageLog }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block', ...options })
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send('Network.enable')
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: false })
  const urls = new Map<string, string>()
  const pending = new Set<string>()
  const received = new Map<string, number>()
  let lastActivity = performance.now()
  const log: PageLog = {
    requests: [],
    failures: [],
    consoleErrors: [],
    pageErrors: [],
    bytes: () => [...received.values()].reduce((a, b) => a + b, 0),
    settled: async (quietMs = 700) => {
      const deadline = performance.now() + 20_000
      while (pending.size > 0 || performance.now() - lastActivity < quietMs) {
        if (performance.now() > deadline) throw new Error(`the page kept the network busy: ${[...pending].map((id) => urls.get(id)).join(', ')}`)
        await page.waitForTimeout(50)
      }
    },
  }
  cdp.on('Network.requestWillBeSent', (e: any) => {
    urls.set(e.requestId, e.request.url)
    pending.add(e.requestId)
    lastActivity = performance.now()
    log.requests.push(e.request.url)
  })
  cdp.on('Network.responseReceived', (e: any) => {
    if (e.response.status >= 400) log.failures.push(`${e.response.status} ${e.response.url}`)
  })
  cdp.on('Network.loadingFinished', (e: any) => {
    pending.delete(e.requestId)
    received.set(e.requestId, e.encodedDataLength)
    lastActivity = performance.now()
  })
  cdp.on('Network.loadingFailed', (e: any) => {
    pending.delete(e.requestId)
    // A fetch the page itself aborted (a newer request replaced it) is not a failure.
    if (!e.canceled) log.failures.push(`${e.errorText} ${urls.get(e.requestId) ?? e.requestId}`)
  })
  context.on('requestfailed', (r) => {
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') log.failures.push(`${r.failure()?.errorText} ${r.url()}`)
  })
  page.on('console', (m) => {
    if (m.type() === 'error') log.consoleErrors.push(m.text())
  })
  page.on('pageerror', (e) => log.pageErrors.push(e.message))
  return { context, page, log }
}

/** Everything a page did went to the service and succeeded; CSP violations show up as console errors. */
function expectClean(log: PageLog) {
  const network = log.requests.filter((u) => !/^(data|blob|about):/.test(u))
  expect(network.filter((u) => new URL(u).hostname !== LOOPBACK)).toEqual([])
  expect(log.failures).toEqual([])
  expect(log.consoleErrors).toEqual([])
  expect(log.pageErrors).toEqual([])
}

const drawnIds = (page: Page) =>
  page.$$eval('#sky-marks [data-norad]', (els) => els.map((e) => Number(e.getAttribute('data-norad'))).sort((a, b) => a - b))
const tableIds = (page: Page) =>
  page.$$eval('#sky-table tbody tr[data-norad]', (els) => els.map((e) => Number(e.getAttribute('data-norad'))).sort((a, b) => a - b))

/** Waits (bounded) until the plot holds `expected`, then compares, so a failure shows the difference. */
async function expectDrawn(page: Page, expected: number[]) {
  await page
    .waitForFunction(
      (want) => {
        const got = [...document.querySelectorAll('#sky-marks [data-norad]')].map((e) => Number(e.getAttribute('data-norad')))
        return got.length === want.length && got.sort((a, b) => a - b).every((v, i) => v === want[i])
      },
      expected,
      { timeout: 10_000 },
    )
    .catch(() => {})
  expect(await drawnIds(page)).toEqual(expected)
  expect(await tableIds(page)).toEqual(expected)
}

const waitReady = (page: Page, view: 'sky' | 'tonight' | 'map' | 'passes') =>
  page.waitForSelector(`#view-${view}[data-ready="true"]`, { state: 'attached', timeout: 20_000 })

/** Presses Tab (or Shift+Tab) until the focused element matches `selector`; fails when it is not reachable that way. */
async function tabTo(page: Page, selector: string, { backwards = false, limit = 60 } = {}) {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab')
  }
  throw new Error(`${selector} was not reached with the Tab key in ${limit} presses`)
}

/** The focused element shows where the keyboard is (an outline). */
async function expectFocusShown(page: Page) {
  const outline = await page.evaluate(() => {
    const el = document.activeElement as HTMLElement
    const style = getComputedStyle(el)
    return { tag: el.tagName, style: style.outlineStyle, width: Number.parseFloat(style.outlineWidth) }
  })
  expect({ ...outline, shown: outline.style !== 'none' && outline.width > 0 }).toMatchObject({ shown: true })
}

describe('GET / and /app/*', () => {
  test('the page: HTML with a strict Content-Security-Policy, relative asset URLs only', async () => {
    const r = await call(base, '/')
    expect(r.status).toBe(200)
    expect(mediaType(r.headers)).toBe('text/html; charset=utf-8')
    const csp = r.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("default-src 'self'")
    expect(csp).not.toContain('unsafe-inline')
    expect(csp).not.toContain('unsafe-eval')
    expect(r.headers.get('cache-control')).toBe('no-cache')
    expect(r.headers.get('etag')).toBeString()
    expect(r.text).toMatch(/<script type="module" src="app\/app\.[0-9a-z]+\.js"><\/script>/)
    expect(r.text).toMatch(/<link rel="stylesheet" href="app\/app\.[0-9a-z]+\.css">/)
    // Nothing absolute: no other host, and it works under a proxy prefix.
    expect(r.text).not.toMatch(/(?:src|href)\s*=\s*["']?(?:[a-z]+:)?\/\//i)
    expect(r.text).not.toMatch(/(?:src|href)\s*=\s*["']\//i)
    expect(r.text).not.toMatch(/<script>|<style|style=/i)
    expect((await call(base, '/', { method: 'HEAD' })).status).toBe(200)
  })

  test('assets: gzip where accepted, content-hashed names cached for good, 304 on a matching ETag, 404 for others', async () => {
    const page = (await call(base, '/')).text
    const assets = [...page.matchAll(/(?:src|href)="(app\/[^"]+)"/g)].map((m) => m[1]!)
    expect(assets.length).toBeGreaterThanOrEqual(4) // icon, stylesheet, script, world outline
    for (const path of new Set(assets)) {
      const plain = await fetch(`${base}/${path}`, { headers: { 'accept-encoding': 'identity' } })
      const body = await plain.arrayBuffer()
      expect({ path, status: plain.status }).toEqual({ path, status: 200 })
      expect(plain.headers.get('content-encoding')).toBeNull()
      expect(plain.headers.get('x-content-type-options')).toBe('nosniff')
      if (/\.[0-9a-z]+\.(js|css|svg)$/.test(path)) expect(plain.headers.get('cache-control')).toContain('immutable')
      const gzipped = await fetch(`${base}/${path}`, { headers: { 'accept-encoding': 'gzip' }, decompress: false } as RequestInit)
      const packed = await gzipped.arrayBuffer()
      if (body.byteLength > 1024) {
        expect({ path, encoding: gzipped.headers.get('content-encoding') }).toEqual({ path, encoding: 'gzip' })
        expect(new Uint8Array(Bun.gunzipSync(new Uint8Array(packed)))).toEqual(new Uint8Array(body))
      }
      // Each encoding is revalidated with its own ETag.
      for (const [encoding, answer] of [['identity', plain], ['gzip', gzipped]] as const) {
        const again = await fetch(`${base}/${path}`, { headers: { 'accept-encoding': encoding, 'if-none-match': answer.headers.get('etag')! } })
        expect({ path, encoding, status: again.status }).toEqual({ path, encoding, status: 304 })
      }
    }
    const missing = await call(base, '/app/nothing-here.js')
    expect(missing.status).toBe(404)
    expect(missing.json).toEqual({ message: 'no such path: /app/nothing-here.js', statusCode: 404 })
  })

  test('app/groups.json lists the same group members as /api/v1/satellites', async () => {
    const r = await call(base, '/app/groups.json')
    expect(r.status).toBe(200)
    const decoded = new Map<string, number[]>()
    for (const [name, deltas] of Object.entries(r.json.groups as Record<string, number[]>)) {
      let id = 0
      decoded.set(name, deltas.map((d) => (id += d)))
    }
    expect(decoded.get(groupName)).toEqual([...groupMembers].sort((a, b) => a - b))
    const list: { noradId: number; groups: string[] }[] = (await call(base, '/api/v1/satellites')).json.data
    const total = list.reduce((n, s) => n + s.groups.length, 0)
    expect([...decoded.values()].reduce((n, v) => n + v.length, 0)).toBe(total)
  })
})

describe('the page in Chromium', () => {
  test('each view loads from 127.0.0.1 only, with no failed request, within 300 KB; screenshots', async () => {
    const { context, page, log } = await openPage()
    try {
      await page.goto(`${base}${pagePath()}`)
      await waitReady(page, 'sky')
      await expectDrawn(page, ids(sky))
      await log.settled()
      const skyBytes = log.bytes()
      // The highest satellite picked in the table, so the picture shows its details too.
      await page.click('#sky-table tbody tr:first-child button')
      await page.screenshot({ path: join(RESULTS, 'web-sky.png'), fullPage: true })

      await page.click('#tab-map')
      await waitReady(page, 'map')
      await log.settled()
      await page.screenshot({ path: join(RESULTS, 'web-map.png'), fullPage: true })

      await page.click('#tab-passes')
      await waitReady(page, 'passes')
      await log.settled()
      await page.screenshot({ path: join(RESULTS, 'web-passes.png'), fullPage: true })

      expectClean(log)
      const paths = log.requests.map((u) => new URL(u).pathname)
      for (const expected of ['/', '/app/groups.json', '/api/v1/satellites/nearby', '/api/v1/satellites/25544/geoposition', '/api/v1/satellites/25544/positions', '/api/v1/satellites/25544/passes']) {
        expect(paths).toContain(expected)
      }
      const total = log.bytes()
      console.log(
        `web page: ${log.requests.length} requests, all to ${LOOPBACK}; ${(skyBytes / 1024).toFixed(1)} KB for the sky view, ${(total / 1024).toFixed(1)} KB with the map and passes (limit ${TRANSFER_LIMIT_BYTES / 1024} KB)`,
      )
      expect(total).toBeLessThanOrEqual(TRANSFER_LIMIT_BYTES)
    } finally {
      await context.close()
    }
  })

  test('the plot shows exactly the satellites /nearby returns for the same observer and instant, where it says', async () => {
    const { context, page, log } = await openPage()
    try {
      await page.goto(`${base}${pagePath()}`)
      await waitReady(page, 'sky')
      await expectDrawn(page, ids(sky))
      expect(await page.getAttribute('#view-sky', 'data-instant')).toBe(new Date(instant).toISOString())
      // North up, east right, zenith in the centre, horizon at radius 100.
      const drawn = await page.$$eval('#sky-marks [data-norad]', (els) =>
        els.map((e) => {
          const [x, y] = /translate\(([-\d.]+)[ ,]+([-\d.]+)\)/.exec(e.getAttribute('transform') ?? '')!.slice(1).map(Number)
          return { noradId: Number(e.getAttribute('data-norad')), x: x!, y: y! }
        }),
      )
      for (const s of sky) {
        const r = (100 * (90 - s.elevation)) / 90
        const at = drawn.find((d) => d.noradId === s.noradId)!
        const rad = (s.azimuth * Math.PI) / 180
        expect({ id: s.noradId, dx: Math.abs(at.x - r * Math.sin(rad)) < 0.06, dy: Math.abs(at.y + r * Math.cos(rad)) < 0.06 }).toEqual({
          id: s.noradId,
          dx: true,
          dy: true,
        })
      }
      // Visible ones are a different shape, not only a different colour.
      const shapes = await page.$$eval('#sky-marks [data-norad]', (els) =>
        els.map((e) => ({ noradId: Number(e.getAttribute('data-norad')), shape: e.firstElementChild!.tagName })),
      )
      for (const s of sky) {
        const shape = shapes.find((x) => x.noradId === s.noradId)!.shape
        expect({ id: s.noradId, star: shape === 'path' }).toEqual({ id: s.noradId, star: s.visible })
      }

      // Hover shows the details; a tap (press) keeps them after the pointer leaves.
      const loneliest = [...sky].sort((a, b) => isolation(b) - isolation(a))[0]!
      const box = (await page.locator(`#sky-marks [data-norad="${loneliest.noradId}"]`).boundingBox())!
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
      const details = page.locator('#sky-details')
      await expect(details.innerText()).resolves.toContain(loneliest.name)
      expect(await details.innerText()).toContain(String(loneliest.noradId))
      for (const label of ['Azimuth', 'Elevation', 'Range', 'Sunlit', 'Magnitude']) expect(await details.innerText()).toContain(label)
      // How old its elements are at the instant shown, as the API says.
      expect(await details.innerText()).toMatch(new RegExp(`Elements\\s+${loneliest.elementAgeDays.toFixed(1)} days old`))
      await page.mouse.down()
      await page.mouse.up()
      await page.mouse.move(2, 2)
      await page.waitForTimeout(100)
      expect(await details.innerText()).toContain(loneliest.name)
      expectClean(log)
    } finally {
      await context.close()
    }
  })

  test('the group filter and the visible-only switch change what is drawn', async () => {
    const { context, page, log } = await openPage()
    try {
      await page.goto(`${base}${pagePath()}`)
      await waitReady(page, 'sky')
      await expectDrawn(page, ids(sky))
      await page.waitForSelector(`#group option[value="${groupName}"]`, { state: 'attached' })

      const inGroup = ids(sky.filter((s) => groupMembers.has(s.noradId)))
      await page.selectOption('#group', groupName)
      await expectDrawn(page, inGroup)

      await page.check('#visible-only')
      await expectDrawn(page, inGroup.filter((id) => skyVisibleOnly.includes(id)))

      await page.selectOption('#group', '')
      await expectDrawn(page, skyVisibleOnly)
      expect(skyVisibleOnly.length).toBeLessThan(sky.length)

      await page.uncheck('#visible-only')
      await expectDrawn(page, ids(sky))
      expectClean(log)
    } finally {
      await context.close()
    }
  })

  test('denied geolocation falls back to typed coordinates, which are remembered', async () => {
    // A new context has no geolocation permission: Chromium denies the request.
    const { context, page, log } = await openPage()
    try {
      await page.goto(`${base}/?time=${encodeURIComponent(instant)}`)
      await page.waitForFunction(() => /not available/.test(document.getElementById('status')?.textContent ?? ''))
      expect(await page.textContent('#status')).toContain('denied')
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('lat')
      expect(await drawnIds(page)).toEqual([])

      await page.keyboard.type(String(OBSERVER.latitude))
      await page.keyboard.press('Tab')
      await page.keyboard.type(String(OBSERVER.longitude))
      await page.keyboard.press('Enter')
      await expectDrawn(page, ids(sky))
      expect(await page.textContent('#status')).toContain('typed')

      // Back later: the typed observer is remembered, no question asked.
      await page.goto(`${base}/?time=${encodeURIComponent(instant)}`)
      await expectDrawn(page, ids(sky))
      expect(await page.textContent('#status')).toContain('remembered')
      expect(await page.inputValue('#lat')).toBe(String(OBSERVER.latitude))
      expectClean(log)
    } finally {
      await context.close()
    }
  })

  test('unusable coordinates, in the link or typed, are said with the value, as the API says them; the link\'s message stays', async () => {
    const { context, page } = await openPage()
    try {
      // No remembered observer (a new context): the link's message stays, and the location is not asked for.
      await page.goto(`${base}/?lat=95&lon=2&time=${encodeURIComponent(instant)}`)
      await page.waitForFunction(() => /not usable/.test(document.getElementById('status')?.textContent ?? ''))
      await page.waitForTimeout(500)
      expect(await page.textContent('#status')).toBe('The link\'s coordinates are not usable: latitude must be a number between -90 and 90 (got "95"). Type your latitude and longitude above, or use your location.')
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('lat')
      // The empty sky says why, as when the browser's location is refused.
      expect(await page.textContent('#sky-summary')).toStartWith("No observer yet: the link's coordinates are not usable (latitude must be")
      const api = (await call(base, '/api/v1/satellites/nearby?latitude=95&longitude=2')).json.message
      expect(await page.textContent('#status')).toContain(api)
      await page.fill('#lat', '48.85')
      await page.fill('#lon', '200')
      await page.keyboard.press('Enter')
      await page.waitForFunction(() => /longitude must be/.test(document.getElementById('status')?.textContent ?? ''))
      expect(await page.textContent('#status')).toContain('longitude must be a number between -180 and 180 (got "200")')
      // A long value is shortened where the API shortens it.
      const long = '1'.repeat(70)
      await page.fill('#lon', long)
      await page.keyboard.press('Enter')
      await page.waitForFunction(() => /…/.test(document.getElementById('status')?.textContent ?? ''))
      expect(await page.textContent('#status')).toContain((await call(base, `/api/v1/satellites/nearby?latitude=48.85&longitude=${long}`)).json.message)
    } finally {
      await context.close()
    }
  })

  test('a mistyped time in the link shows the API message instead of a dead page', async () => {
    const { context, page } = await openPage()
    try {
      await page.goto(`${base}/?lat=${OBSERVER.latitude}&lon=${OBSERVER.longitude}&time=garbage`)
      await page.waitForFunction(() => /time must be/.test(document.body.textContent ?? ''), undefined, { timeout: 10_000 })
      expect(await page.textContent('#status')).toContain('"garbage"')
    } finally {
      await context.close()
    }
  })

  test('a date typed into the Instant field, the year digit by digit, pins the page to it; the status names the year', async () => {
    const { context, page, log } = await openPage({ locale: 'en-US', timezoneId: 'UTC' })
    try {
      await page.goto(`${base}/?lat=${OBSERVER.latitude}&lon=${OBSERVER.longitude}&time=2026-05-31T21:30:00Z#sky`)
      await waitReady(page, 'sky')
      // en-US: month, day, year. Each digit of the year is reported as a whole value (0002, 0020, 0202, 2026).
      await page.click('#time-input', { position: { x: 12, y: 10 } })
      for (const part of ['06', '01', '2026']) await page.keyboard.type(part, { delay: 50 })
      await page.waitForFunction(() => new URLSearchParams(location.search).get('time') === '2026-06-01T21:30:00.000Z', undefined, { timeout: 10_000 })
      expect(await page.inputValue('#time-input')).toBe('2026-06-01T21:30')
      expect(await page.textContent('#status')).toMatch(/pinned to .*2026/)
      // No year the service refuses was asked for on the way.
      const asked = log.requests.map((u) => new URL(u).searchParams.get('time')).filter((t) => t !== null)
      expect(asked.filter((t) => !t!.startsWith('2026-'))).toEqual([])
    } finally {
      await context.close()
    }
  })

  test("a link's time without a zone is refused as the API refuses it, never shown as pinned; the page follows now", async () => {
    const { context, page, log } = await openPage()
    try {
      const zoneless = '2026-05-31T00:00:00'
      const refusal = await call(base, nearbyPath(zoneless))
      expect(refusal.status).toBe(400)
      await page.goto(`${base}/?lat=${OBSERVER.latitude}&lon=${OBSERVER.longitude}&time=${zoneless}#sky`)
      await page.waitForFunction(() => /time must be/.test(document.getElementById('status')?.textContent ?? ''), undefined, { timeout: 10_000 })
      const status = (await page.textContent('#status')) ?? ''
      expect(status).toContain(refusal.json.message)
      expect(status).not.toContain('pinned')
      expect(await page.getAttribute('#status', 'class')).toContain('error')
      expect(await page.getAttribute('#time-now', 'aria-pressed')).toBe('true')
      // The views follow the service's now; none is asked for the refused instant.
      await waitReady(page, 'sky')
      const shown = Date.parse((await page.getAttribute('#view-sky', 'data-instant'))!)
      expect(Math.abs(shown - (await serviceNow()))).toBeLessThan(60_000)
      expect(log.requests.filter((u) => new URL(u).pathname.startsWith('/api/') && new URL(u).searchParams.get('time') === zoneless)).toEqual([])
      // Choosing an instant ends the refusal: the status says it is pinned.
      await page.click('#time-form button[data-step-minutes="60"]')
      await page.waitForFunction(() => /pinned to/.test(document.getElementById('status')?.textContent ?? ''))
      expect(await page.textContent('#status')).not.toContain('time must be')
      // Back to now: live, and the status line names the time zone the times are shown in, as the footer does.
      await page.click('#time-now')
      await page.waitForFunction(() => /live, every/.test(document.getElementById('status')?.textContent ?? ''))
      const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)
      expect(await page.textContent('#status')).toContain(`live, every 5 s (times in ${zone})`)
      expect(await page.textContent('#tz')).toBe(zone)
    } finally {
      await context.close()
    }
  })

  test("the page reads a link's time with the API's rule and says a refusal in the API's words", async () => {
    const texts = [
      '2026-05-31T00:00:00',
      '2026-05-31T00:00:00Z',
      '2026-05-31t00:00z',
      '2026-05-31 00:00:00+02:00',
      '2026-05-31T00:00:00.123456789-0330',
      '2026-05-31T00:00:00 02:00',
      '2026-05-31T00:00:00+24:00',
      '2026-02-29T00:00:00Z',
      '2028-02-29T00:00:00Z',
      '2026-05-31T24:00:00Z',
      '2026-05-31T23:59:60Z',
      '1957-10-03T23:59:59Z',
      '1957-10-04T00:00:00Z',
      '2100-01-01T00:00:00Z',
      '2100-01-01T00:00:00.001Z',
      '2026-05-31',
      '20260531T000000Z',
      'garbage',
      '2026-05-31T00:00:00Zé\u0000',
      'x'.repeat(100),
    ]
    for (const text of texts) {
      const web = parseWebInstant(text)?.toISOString() ?? null
      expect({ text, web }).toEqual({ text, web: parseInstant(text)?.toISOString() ?? null })
      // A position (a 422 when the elements are too far from the instant): cheap at any instant the API accepts.
      const answer = await call(base, `/api/v1/satellites/25544/geoposition?time=${encodeURIComponent(text)}`)
      if (web === null) expect({ text, status: answer.status, message: answer.json.message }).toEqual({ text, status: 400, message: instantRefusal(text) })
      else expect({ text, status: answer.status }).not.toEqual({ text, status: 400 })
    }
  })

  test('the freshness line is read again every minute (the data ages while the page is open), keeping the advice as folded', async () => {
    const { context, page } = await openPage()
    try {
      let reads = 0
      let summary = 'first reading'
      // The service's own answer, with the summary replaced: what a later reading would say after the data aged.
      await page.route('**/api/v1/service/status', async (route) => {
        reads++
        const answer = await route.fetch()
        const body = await answer.json()
        body.catalog.freshness.summary = summary
        await route.fulfill({ response: answer, json: body })
      })
      await page.clock.install()
      await page.goto(`${base}/?lat=${OBSERVER.latitude}&lon=${OBSERVER.longitude}#sky`)
      await page.waitForFunction(() => document.getElementById('freshness')?.textContent?.startsWith('first reading'))
      await page.evaluate(() => {
        document.querySelector<HTMLDetailsElement>('#freshness details')!.open = false
      })
      const before = reads
      summary = 'a later reading'
      await page.clock.runFor(61_000)
      await page.waitForFunction(() => document.getElementById('freshness')?.textContent?.startsWith('a later reading'))
      expect(reads).toBeGreaterThan(before)
      expect(await page.evaluate(() => document.querySelector<HTMLDetailsElement>('#freshness details')!.open)).toBe(false)
      expect(await page.isVisible('#at-data-time')).toBe(true)
    } finally {
      await context.close()
    }
  })

  test('Tonight under the midnight sun says there is no night, without searching the daylight', async () => {
    const { context, page, log } = await openPage()
    try {
      await page.goto(`${base}/?lat=78.22&lon=15.65&time=2026-06-01T12:00:00Z#tonight`)
      await waitReady(page, 'tonight')
      expect(await page.textContent('#tonight-summary')).toStartWith('No night here within a day of ')
      expect(log.requests.filter((u) => new URL(u).pathname === '/api/v1/passes')).toEqual([])
    } finally {
      await context.close()
    }
  })

  test('Tonight with every satellite refused (the data months old at now): the notice first, and no "no pass" it cannot support', async () => {
    const { context, page } = await openPage()
    try {
      await page.goto(`${base}/?lat=${OBSERVER.latitude}&lon=${OBSERVER.longitude}#tonight`)
      await waitReady(page, 'tonight')
      const from = (await page.getAttribute('#view-tonight', 'data-from'))!
      const answer = (await call(base, `/api/v1/passes?latitude=${OBSERVER.latitude}&longitude=${OBSERVER.longitude}&time=${encodeURIComponent(from)}&hours=12&visible-only=true`)).json
      expect(answer.metadata.satellites).toBe(0)
      expect(await page.isVisible('#tonight-notice')).toBe(true)
      expect(await page.textContent('#tonight-notice')).toBe(answer.metadata.notice)
      const summary = (await page.textContent('#tonight-summary'))!
      expect(summary).toStartWith('Passes cannot be worked out from ')
      expect(summary).not.toContain('No pass')
    } finally {
      await context.close()
    }
  })

  test("Now is the service's clock: with the browser's months off, Tonight starts at the service's night and +1 h steps from the service's now", async () => {
    const { context, page, log } = await openPage()
    try {
      // The browser believes it is the snapshot's day; the service's clock is months later.
      const browserTime = Date.parse((await call(base, '/api/v1/service/status')).json.catalog.obtainedAt)
      const before = await serviceNow()
      expect(before - browserTime).toBeGreaterThan(30 * 86_400_000)
      await page.clock.install({ time: browserTime })
      await page.goto(`${base}/?lat=${OBSERVER.latitude}&lon=${OBSERVER.longitude}#tonight`)
      expect(Math.abs((await page.evaluate(() => Date.now())) - browserTime)).toBeLessThan(86_400_000)
      await waitReady(page, 'tonight')
      const after = await serviceNow()
      const from = Date.parse((await page.getAttribute('#view-tonight', 'data-from'))!)
      // Tonight as the service's clock has it (to the minute; now itself when it is already dark).
      expect(from).toBeGreaterThanOrEqual(nightStart(OBSERVER.latitude, OBSERVER.longitude, new Date(before - 2_000))!.getTime() - 120_000)
      expect(from).toBeLessThanOrEqual(nightStart(OBSERVER.latitude, OBSERVER.longitude, new Date(after + 2_000))!.getTime() + 120_000)

      // +1 h from Now: an hour after the service's now, not the browser's.
      await page.click('#tab-sky')
      await waitReady(page, 'sky')
      const clicked = await serviceNow()
      await page.click('#time-form button[data-step-minutes="60"]')
      await page.waitForFunction(() => new URL(location.href).searchParams.has('time'))
      const stepped = Date.parse(new URL(page.url()).searchParams.get('time')!)
      const done = await serviceNow()
      expect(stepped).toBeGreaterThanOrEqual(clicked + 3_600_000 - 2_000)
      expect(stepped).toBeLessThanOrEqual(done + 3_600_000 + 2_000)
      await page.waitForFunction((want) => document.getElementById('view-sky')?.dataset.instant === want, new Date(stepped).toISOString())
      expectClean(log)
    } finally {
      await context.close()
    }
  })

  test('granted geolocation sets the observer', async () => {
    const { context, page, log } = await openPage({ permissions: ['geolocation'], geolocation: OBSERVER })
    try {
      await page.goto(`${base}/?time=${encodeURIComponent(instant)}`)
      await expectDrawn(page, ids(sky))
      expect(await page.textContent('#status')).toContain('your location')
      expectClean(log)
    } finally {
      await context.close()
    }
  })

  test('the main controls work with the keyboard alone', async () => {
    const { context, page, log } = await openPage()
    try {
      await page.goto(`${base}${pagePath()}`)
      await waitReady(page, 'sky')
      await expectDrawn(page, ids(sky))

      // Group: a closed <select> takes typed letters.
      await tabTo(page, '#group')
      await expectFocusShown(page)
      await page.keyboard.type(groupName)
      await expectDrawn(page, ids(sky.filter((s) => groupMembers.has(s.noradId))))
      await page.waitForTimeout(1_200) // a select's type-ahead forgets after a second
      await page.keyboard.type('All')
      await expectDrawn(page, ids(sky))

      await tabTo(page, '#visible-only')
      await expectFocusShown(page)
      await page.keyboard.press('Space')
      await expectDrawn(page, skyVisibleOnly)
      await page.keyboard.press('Space')
      await expectDrawn(page, ids(sky))

      // Sort the table by name.
      await tabTo(page, 'th[data-key="name"] button')
      await expectFocusShown(page)
      await page.keyboard.press('Enter')
      expect(await page.getAttribute('th[data-key="name"]', 'aria-sort')).toBe('ascending')
      const firstName = [...sky].sort((a, b) => a.name.localeCompare(b.name) || a.noradId - b.noradId)[0]!
      expect(await page.textContent('#sky-table tbody tr:first-child button')).toBe(firstName.name)

      // Pick the first satellite, then show it on the map.
      await tabTo(page, '#sky-table tbody button')
      await page.keyboard.press('Enter')
      await page.waitForFunction((name) => document.querySelector('#sky-details h2')?.textContent?.includes(name), firstName.name)
      await tabTo(page, '#sky-details button[data-action="map"]', { backwards: true })
      await expectFocusShown(page)
      await page.keyboard.press('Enter')
      await page.waitForSelector('#view-map:not([hidden])')
      expect(await page.getAttribute('#tab-map', 'aria-selected')).toBe('true')
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-map')
      // The number, and once its name is known, the name with the number in brackets.
      expect(await page.inputValue('#view-map input[name="satellite"]')).toMatch(new RegExp(`^(${firstName.noradId}|.* \\(${firstName.noradId}\\))$`))

      // Tabs follow the arrow keys.
      await tabTo(page, '[role="tab"][aria-selected="true"]')
      await expectFocusShown(page)
      await page.keyboard.press('ArrowRight')
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-passes')
      expect(await page.isVisible('#view-passes')).toBe(true)
      await page.keyboard.press('Home')
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-sky')
      expect(await page.isVisible('#view-sky')).toBe(true)

      // The observer form.
      await tabTo(page, '#lat', { backwards: true })
      await page.keyboard.press('Control+A')
      await page.keyboard.type('-33.87')
      await page.keyboard.press('Tab')
      await page.keyboard.press('Control+A')
      await page.keyboard.type('151.21')
      await page.keyboard.press('Enter')
      const sydney = ids(
        (await call(base, `/api/v1/satellites/nearby?latitude=-33.87&longitude=151.21&time=${encodeURIComponent(instant)}`)).json.satellites,
      )
      await expectDrawn(page, sydney)
      expectClean(log)
    } finally {
      await context.close()
    }
  })

  test('live: without a pinned time the sky is asked for again every few seconds', async () => {
    const { context, page, log } = await openPage()
    try {
      await page.goto(`${base}/?lat=${OBSERVER.latitude}&lon=${OBSERVER.longitude}`)
      await waitReady(page, 'sky')
      const first = await page.getAttribute('#view-sky', 'data-instant')
      await page.waitForFunction((f) => document.getElementById('view-sky')?.dataset.instant !== f, first, { timeout: 12_000 })
      const asked = log.requests.map((u) => new URL(u)).filter((u) => u.pathname === '/api/v1/satellites/nearby')
      expect(asked.length).toBeGreaterThanOrEqual(2)
      for (const u of asked) expect(u.searchParams.has('time')).toBe(false)
      expect(await page.textContent('#status')).toContain('live')
      expectClean(log)
    } finally {
      await context.close()
    }
  })

  test("stale data: the page says how old it is, shows why the sky is empty, and offers the sky at the data's date", async () => {
    const { context, page, log } = await openPage()
    try {
      await page.goto(`${base}/?lat=${OBSERVER.latitude}&lon=${OBSERVER.longitude}`)
      await waitReady(page, 'sky')
      const status = (await call(base, '/api/v1/service/status')).json.catalog
      await page.waitForSelector('#at-data-time')
      const freshness = (await page.textContent('#freshness'))!
      // The status endpoint's own sentence, always visible in the header.
      expect(freshness).toStartWith(status.freshness.summary)
      expect(freshness).toContain(`Data of ${status.obtainedAt.slice(0, 10)}, `)
      expect(freshness).toContain('make snapshot')
      expect(await page.isVisible('#freshness')).toBe(true)
      // Not "no satellites above you": the notice names the age limit.
      expect(await page.isVisible('#sky-notice')).toBe(true)
      expect(await page.textContent('#sky-notice')).toMatch(/satellites are left out: \d+ have elements more than 30 days from .*, \d+ have decayed by then/)
      // The summary and the table say the satellites have no position, not that none is above or none matches a filter.
      const left = (await call(base, `/api/v1/satellites/nearby?latitude=${OBSERVER.latitude}&longitude=${OBSERVER.longitude}`)).json.metadata.leftOut
      expect(await page.textContent('#sky-summary')).toStartWith('No satellite above 10° to draw · ')
      expect(await page.textContent('#sky-summary')).toContain(
        ` · ${left.elementAge + left.decayed} satellites left out: no position at this instant (${left.elementAge} for their elements' age or a later launch, ${left.decayed} decayed)`,
      )
      expect(await page.textContent('#view-sky')).toContain('No satellite shown: none with a position at this instant is above 10°, and the others are left out (see the notice above).')
      expect(await page.textContent('#view-sky')).not.toContain('No satellite matches the filter.')
      await page.screenshot({ path: join(RESULTS, 'web-stale.png') })
      // The map says why the ISS has no position, not only that it has none.
      await page.click('#tab-map')
      await waitReady(page, 'map')
      expect(await page.textContent('#map-summary')).toMatch(/no position at .*: (the elements are \d+ days old|decayed at )/)
      await page.click('#tab-sky')
      // The link pins the page, as it is now (an observer typed since loading), to the data's own time, where the sky is full again.
      await page.fill('#lat', '-33.87')
      await page.fill('#lon', '151.21')
      await page.click('#observer-form button[type=submit]')
      await page.waitForURL(/lat=-33\.87/)
      await Promise.all([page.waitForURL(/time=/), page.click('#at-data-time')])
      expect(new URL(page.url()).searchParams.get('time')).toBe(status.freshness.dataTime)
      expect(new URL(page.url()).searchParams.get('lat')).toBe('-33.87')
      await waitReady(page, 'sky')
      expect(await page.isHidden('#sky-notice')).toBe(true)
      expect(await page.locator('#view-sky g.sat').count()).toBeGreaterThan(20)
      // The map's position and track at today's date are refused (422) by design: the only failures allowed.
      const refused = log.failures.filter((f) => /^422 .*\/api\/v1\/satellites\/25544\/(geoposition|positions)\?/.test(f))
      log.failures.splice(0, log.failures.length, ...log.failures.filter((f) => !refused.includes(f)))
      // Chromium logs each of those answers once in the console.
      const logged = /^Failed to load resource: the server responded with a status of 422/
      expect(log.consoleErrors.filter((e) => logged.test(e)).length).toBe(refused.length)
      log.consoleErrors.splice(0, log.consoleErrors.length, ...log.consoleErrors.filter((e) => !logged.test(e)))
      expectClean(log)
    } finally {
      await context.close()
    }
  })

  test('map: the satellite where /geoposition puts it, its ±90 min ground track, the night side', async () => {
    const { context, page, log } = await openPage()
    try {
      await page.goto(`${base}${pagePath('&sat=25544#map')}`)
      await waitReady(page, 'map')
      const where = (await call(base, `/api/v1/satellites/25544/geoposition?time=${encodeURIComponent(instant)}`)).json
      const transform = (await page.getAttribute('#map-marks .sat-mark[data-norad="25544"]', 'transform')) ?? ''
      const [x, y] = /translate\(([-\d.]+)[ ,]+([-\d.]+)\)/.exec(transform)!.slice(1).map(Number)
      expect(Math.abs(x! - (where.longitude + 180) * 4)).toBeLessThan(0.06)
      expect(Math.abs(y! - (90 - where.latitude) * 4)).toBeLessThan(0.06)
      expect(await page.textContent('#map-summary')).toContain('ISS')
      expect(await page.textContent('#map-summary')).not.toContain('unavailable')
      for (const line of ['#map-track .track-past', '#map-track .track-future', '#map-night .night']) {
        expect(((await page.getAttribute(line, 'd')) ?? '').length).toBeGreaterThan(20)
      }
      // The track asked for spans 90 minutes each side of the instant.
      const trackUrl = log.requests.map((u) => new URL(u)).find((u) => u.pathname === '/api/v1/satellites/25544/positions')!
      const from = Date.parse(trackUrl.searchParams.get('from')!)
      const to = Date.parse(trackUrl.searchParams.get('to')!)
      expect(Date.parse(instant) - from).toBe(90 * 60_000)
      expect(to - Date.parse(instant)).toBe(90 * 60_000)
      expectClean(log)
    } finally {
      await context.close()
    }
  })

  test('passes: the same passes as /passes, the visible ones marked, with directions', async () => {
    const { context, page, log } = await openPage()
    try {
      await page.goto(`${base}${pagePath('&sat=25544#passes')}`)
      await waitReady(page, 'passes')
      const days = Number(await page.inputValue('#days'))
      const answer = (
        await call(
          base,
          `/api/v1/satellites/25544/passes?latitude=${OBSERVER.latitude}&longitude=${OBSERVER.longitude}&time=${encodeURIComponent(instant)}&days=${days}`,
        )
      ).json
      const rows = page.locator('#passes-table tbody tr')
      expect(await rows.count()).toBe(answer.data.length)
      expect(await page.locator('#passes-table tbody tr.row-visible').count()).toBe(answer.data.filter((p: any) => p.visible).length)
      expect(answer.data.length).toBeGreaterThan(0)
      const points = ['N', 'NNE', 'NE', 'ENE', 'E', 'ESE', 'SE', 'SSE', 'S', 'SSW', 'SW', 'WSW', 'W', 'WNW', 'NW', 'NNW']
      const compass = (az: number) => points[Math.round(az / 22.5) % 16]
      for (const [i, pass] of answer.data.entries()) {
        const cells = await rows.nth(i).locator('td').allInnerTexts()
        if (pass.rise) expect(cells[1]).toContain(compass(pass.rise.azimuth))
        expect(cells[2]).toContain(compass(pass.culmination.azimuth))
        expect(cells[2]).toContain(`${pass.culmination.elevation.toFixed(0)}°`)
        if (pass.set) expect(cells[3]).toContain(compass(pass.set.azimuth))
        expect(cells[5]).toContain(pass.visible ? 'visible' : 'not visible')
        // The brightest estimated magnitude, as people write it (one decimal, a true minus sign).
        const mag = (m: number) => `${m < 0 ? '\u2212' : '+'}${Math.abs(m).toFixed(1)}`.replace(/^[+\u2212]0\.0$/, '0.0')
        if (pass.brightest) expect(cells[5]).toContain(`mag ${mag(pass.brightest.magnitude)}`)
      }
      expectClean(log)
    } finally {
      await context.close()
    }
  })

  test('at 360 px wide every view fits without horizontal scrolling; screenshots', async () => {
    const { context, page, log } = await openPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true })
    try {
      await page.goto(`${base}${pagePath()}`)
      await waitReady(page, 'sky')
      for (const view of ['sky', 'tonight', 'map', 'passes'] as const) {
        if (view !== 'sky') {
          await page.tap(`#tab-${view}`)
          await waitReady(page, view)
        }
        await log.settled()
        const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
        expect({ view, fits: widths.scroll <= widths.client, ...widths }).toMatchObject({ view, fits: true })
        await page.screenshot({ path: join(RESULTS, `web-${view}-360.png`), fullPage: true })
      }
      expectClean(log)
    } finally {
      await context.close()
    }
  })
})

/** Distance in the plot from a satellite to its nearest neighbour (so hovering it cannot pick another). */
function isolation(s: SkyEntry): number {
  const at = (e: SkyEntry) => {
    const r = (100 * (90 - e.elevation)) / 90
    return [r * Math.sin((e.azimuth * Math.PI) / 180), -r * Math.cos((e.azimuth * Math.PI) / 180)] as const
  }
  const [x, y] = at(s)
  let nearest = Number.POSITIVE_INFINITY
  for (const o of sky) {
    if (o.noradId === s.noradId) continue
    const [ox, oy] = at(o)
    nearest = Math.min(nearest, Math.hypot(ox - x, oy - y))
  }
  return nearest
}
