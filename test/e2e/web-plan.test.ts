/**
 * The page's planning features (issue 20), end to end: the compiled executable
 * on a loopback port, Debian's Chromium through playwright-core, at a desktop
 * width (1280 px) and a phone's (360 px, touch). Each is compared with the
 * API's own answers for the same observer and instant:
 * - Tonight: the visible passes of the whole catalogue, brightest first or by
 *   time, with direction and magnitude, and a calendar link that answers text/calendar;
 * - the satellite search over the whole catalogue (hubble → HST, a designator, a number);
 * - following a satellite on the map, with its footprint, its label inside the
 *   map and clear of the Sun and observer marks;
 * - the time control moving sky, map, passes and tonight together;
 * - the dark theme (prefers-color-scheme) and the red night-vision mode;
 * - on a phone: /#map opens at the top with the map in the first screen, no view scrolls sideways.
 * Screenshots go to test-results/ (the README's come from there: docs/web-*.png).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import { CHROMIUM, CHROMIUM_ARGS, call, LOOPBACK, ROOT, requireChromium, type Service, startService } from './harness.ts'

setDefaultTimeout(90_000)

const RESULTS = join(ROOT, 'test-results')
const OBSERVER = { latitude: 48.85, longitude: 2.35 }
/** A night near the snapshot's date (Paris, 23:30 local time). */
const NIGHT = '2026-05-31T21:30:00.000Z'
const DESKTOP = { viewport: { width: 1280, height: 900 } }
const PHONE = { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true }
const COMPASS = ['N', 'NNE', 'NE', 'ENE', 'E', 'ESE', 'SE', 'SSE', 'S', 'SSW', 'SW', 'WSW', 'W', 'WNW', 'NW', 'NNW']
const compass = (az: number) => COMPASS[Math.round((((az % 360) + 360) % 360) / 22.5) % 16]!
const magnitudeText = (m: number) => `${m < 0 ? '\u2212' : '+'}${Math.abs(m).toFixed(1)}`.replace(/^[+\u2212]0\.0$/, '0.0')
const pagePath = (time: string, extra = '') => `/?lat=${OBSERVER.latitude}&lon=${OBSERVER.longitude}&time=${encodeURIComponent(time)}${extra}`

let service: Service
let base: string
let browser: Browser

beforeAll(async () => {
  requireChromium()
  service = await startService()
  base = service.url
  const { chromium } = await import('playwright-core')
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
  mkdirSync(RESULTS, { recursive: true })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  if (service) expect(await service.stop()).toBe(0)
}, 30_000)

interface Opened {
  context: BrowserContext
  page: Page
  requests: URL[]
  problems: string[]
}

/** A fresh context with one page; every request and every error is recorded. */
async function open(options: BrowserContextOptions = DESKTOP): Promise<Opened> {
  const context = await browser.newContext({ serviceWorkers: 'block', ...options })
  const page = await context.newPage()
  const requests: URL[] = []
  const problems: string[] = []
  page.on('request', (r) => requests.push(new URL(r.url())))
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`)
  })
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`)
  })
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  return { context, page, requests, problems }
}

/** Nothing went to another host, nothing failed. */
function expectClean({ requests, problems }: Opened) {
  expect(requests.filter((u) => /^https?:$/.test(u.protocol) && u.hostname !== LOOPBACK).map(String)).toEqual([])
  expect(problems).toEqual([])
}

const ready = (page: Page, view: string) => page.waitForSelector(`#view-${view}[data-ready="true"]`, { state: 'attached', timeout: 60_000 })

/** The rows of the Tonight table: satellite number, then the cells' text. */
const tonightRows = (page: Page) =>
  page.$$eval('#tonight-table tbody tr', (rows) => rows.map((r) => ({ id: Number(r.getAttribute('data-norad')), cells: [...r.querySelectorAll('td')].map((td) => td.textContent ?? '') })))

/** The sky view's instant (the /nearby answer it drew). */
const skyInstant = (page: Page) => page.getAttribute('#view-sky', 'data-instant')

describe.each([
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const)('the page at %s width', (width, options) => {
  test('Tonight: the visible passes of the whole catalogue as /api/v1/passes gives them, brightest first or by time, and a calendar link', async () => {
    const opened = await open(options)
    const { page, context } = opened
    try {
      await page.goto(`${base}${pagePath(NIGHT, '#tonight')}`)
      await ready(page, 'tonight')
      const from = (await page.getAttribute('#view-tonight', 'data-from'))!
      // At 23:30 in Paris the sky is dark: tonight starts at the chosen instant.
      expect(from).toBe(NIGHT)
      const api = (await call(base, `/api/v1/passes?latitude=${OBSERVER.latitude}&longitude=${OBSERVER.longitude}&time=${encodeURIComponent(from)}&hours=12&visible-only=true`)).json
      expect(api.data.length).toBeGreaterThan(20)
      const rows = await tonightRows(page)
      expect(rows.map((r) => r.id).sort((a, b) => a - b)).toEqual(api.data.map((p: any) => p.noradId).sort((a: number, b: number) => a - b))
      // Brightest first: magnitudes never decrease down the table; each row says where it culminates and how bright it is.
      const byId = new Map<number, any[]>()
      for (const p of api.data) (byId.get(p.noradId) ?? byId.set(p.noradId, []).get(p.noradId)!).push(p)
      let previous = -Infinity
      for (const row of rows) {
        const magnitude = Number(row.cells[4]!.replace('\u2212', '-'))
        expect(magnitude).toBeGreaterThanOrEqual(previous)
        previous = magnitude
        const pass = byId.get(row.id)!.find((p) => row.cells[2]!.startsWith(`${p.culmination.elevation.toFixed(0)}° ${compass(p.culmination.azimuth)}`))
        expect(pass).toBeDefined()
        expect(row.cells[4]).toBe(magnitudeText(pass.magnitude))
        expect(row.cells[3]).toBe(`${pass.rise ? compass(pass.rise.azimuth) : '(up)'} → ${pass.set ? compass(pass.set.azimuth) : '(up)'}`)
      }
      await page.screenshot({ path: join(RESULTS, width === 'desktop' ? 'web-tonight.png' : 'web-tonight-360.png') })
      // By time: the visible stretches' starts never go back.
      await page.selectOption('#tonight-order', 'time')
      const timed = await tonightRows(page)
      const starts = timed.map((r) => Date.parse(byId.get(r.id)!.find((p) => r.cells[2]!.startsWith(`${p.culmination.elevation.toFixed(0)}°`))!.visibleWindow.from))
      for (let i = 1; i < starts.length; i++) expect(starts[i]).toBeGreaterThanOrEqual(starts[i - 1]!)
      // The calendar link: the same search as text/calendar, one event per pass.
      const href = (await page.getAttribute('#tonight-calendar', 'href'))!
      expect(await page.isVisible('#tonight-calendar')).toBe(true)
      const calendar = await fetch(new URL(href, `${base}/`))
      expect(calendar.status).toBe(200)
      expect(calendar.headers.get('content-type')).toBe('text/calendar; charset=utf-8')
      expect((await calendar.text()).match(/BEGIN:VEVENT/g)).toHaveLength(api.data.length)
      // A satellite's name follows it on the map.
      await page.click(`#tonight-table tbody tr:first-child button`)
      await ready(page, 'map')
      await page.waitForFunction((want) => document.querySelector('#map-marks .sat-mark')?.getAttribute('data-norad') === want, String(timed[0]!.id))
      expect(await page.getAttribute('#map-plot', 'data-follow')).toBe('true')
      expectClean(opened)
    } finally {
      await context.close()
    }
  })

  test('search: hubble finds HST, a designator and a number find theirs, nonsense says so', async () => {
    const opened = await open(options)
    const { page, context } = opened
    try {
      await page.goto(`${base}${pagePath(NIGHT, '&sat=25544#map')}`)
      await ready(page, 'map')
      const field = '#view-map input[name="satellite"]'
      await page.fill(field, '')
      await page.type(field, 'hubble')
      await page.waitForFunction(() => [...document.querySelectorAll('#satellite-choices option')].some((o) => (o as HTMLOptionElement).value === 'HST (20580)'))
      await page.press(field, 'Enter')
      await page.waitForFunction(() => document.querySelector('#map-marks .sat-mark')?.getAttribute('data-norad') === '20580')
      expect(await page.textContent('#map-summary')).toContain('HST (20580)')
      for (const [text, id] of [['1998-067A', 25544], ['43013', 43013]] as const) {
        await page.fill(field, text)
        await page.press(field, 'Enter')
        await page.waitForFunction((want) => document.querySelector('#map-marks .sat-mark')?.getAttribute('data-norad') === want, String(id))
      }
      await page.fill(field, 'no such satellite at all')
      await page.press(field, 'Enter')
      // Said under the search's own form; the status line keeps the observer and the instant.
      await page.waitForFunction(() => [...document.querySelectorAll('.form-problem')].some((p) => !(p as HTMLElement).hidden && /No satellite in the catalogue matches/.test(p.textContent ?? '')))
      expect(await page.textContent('#status')).toMatch(/^Observer /)
      expectClean(opened)
    } finally {
      await context.close()
    }
  })

  test('the map follows the satellite, with its footprint, its label inside the map and clear of the other marks', async () => {
    const opened = await open(options)
    const { page, context } = opened
    try {
      await page.goto(`${base}${pagePath(NIGHT, '&sat=25544#map')}`)
      await ready(page, 'map')
      const where = (await call(base, `/api/v1/satellites/25544/geoposition?time=${encodeURIComponent(NIGHT)}`)).json
      const x = (where.longitude + 180) * 4
      const viewBox = (await page.getAttribute('#map-plot', 'viewBox'))!.split(' ').map(Number)
      expect(Math.abs(viewBox[0]! - (x - 720))).toBeLessThan(0.1)
      expect(viewBox.slice(1)).toEqual([0, 1440, 720])
      // The footprint: every vertex at the Earth-central angle acos(R / (R + h)) from the point below the satellite.
      const d = (await page.getAttribute('#map-footprint path', 'd'))!
      const vertices = [...d.matchAll(/[ML]([-\d.]+) ([-\d.]+)/g)].map((m) => ({ lon: Number(m[1]) / 4 - 180, lat: 90 - Number(m[2]) / 4 }))
      expect(vertices.length).toBeGreaterThan(60)
      const reach = (Math.acos(6371 / (6371 + where.altitude)) * 180) / Math.PI
      const rad = Math.PI / 180
      for (const v of vertices.slice(0, 80)) {
        const cos = Math.sin(v.lat * rad) * Math.sin(where.latitude * rad) + Math.cos(v.lat * rad) * Math.cos(where.latitude * rad) * Math.cos((v.lon - where.longitude) * rad)
        expect(Math.abs(Math.acos(Math.min(1, cos)) / rad - reach)).toBeLessThan(0.2)
      }
      // The label: inside the map, overlapping neither the Sun's nor the observer's mark.
      const boxes = await page.evaluate(() => {
        const box = (el: Element | null) => {
          const r = el!.getBoundingClientRect()
          return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }
        }
        return {
          map: box(document.getElementById('map-plot')),
          label: box(document.querySelector('#map-marks .sat-mark text')),
          sun: box(document.querySelector('#map-marks .sun-mark')),
          observer: box(document.querySelector('#map-marks .observer-mark')),
        }
      })
      const overlap = (a: typeof boxes.map, b: typeof boxes.map) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom
      expect(boxes.label.left).toBeGreaterThanOrEqual(boxes.map.left)
      expect(boxes.label.right).toBeLessThanOrEqual(boxes.map.right)
      expect(boxes.label.top).toBeGreaterThanOrEqual(boxes.map.top)
      expect(boxes.label.bottom).toBeLessThanOrEqual(boxes.map.bottom)
      expect(overlap(boxes.label, boxes.sun)).toBe(false)
      expect(overlap(boxes.label, boxes.observer)).toBe(false)
      await page.screenshot({ path: join(RESULTS, width === 'desktop' ? 'web-follow.png' : 'web-follow-360.png'), fullPage: width === 'phone' })
      // Not following: the whole world from -180°.
      await page.uncheck('#follow')
      await page.waitForFunction(() => document.getElementById('map-plot')?.getAttribute('viewBox') === '0 0 1440 720')
      expectClean(opened)
    } finally {
      await context.close()
    }
  })

  test('the time control moves sky, map, passes and tonight together; Now follows the clock again', async () => {
    const opened = await open(options)
    const { page, context, requests } = opened
    try {
      const start = '2026-05-31T20:00:00.000Z'
      await page.goto(`${base}${pagePath(start, '#sky')}`)
      await ready(page, 'sky')
      expect(await skyInstant(page)).toBe(start)
      if (width === 'phone') await page.click('#settings > summary')
      await page.click('#time-form button[data-step-minutes="60"]')
      const later = '2026-05-31T21:00:00.000Z'
      await page.waitForFunction((want) => document.getElementById('view-sky')?.dataset.instant === want, later)
      expect(new URL(page.url()).searchParams.get('time')).toBe(later)
      await page.click('#time-form button[data-step-minutes="-10"]')
      const then = '2026-05-31T20:50:00.000Z'
      await page.waitForFunction((want) => document.getElementById('view-sky')?.dataset.instant === want, then)
      for (const view of ['map', 'passes', 'tonight'] as const) {
        await page.click(`#tab-${view}`)
        await ready(page, view)
      }
      const asked = (path: RegExp) => requests.filter((u) => path.test(u.pathname)).map((u) => u.searchParams.get('time'))
      expect(asked(/^\/api\/v1\/satellites\/\d+\/geoposition$/).at(-1)).toBe(then)
      expect(asked(/^\/api\/v1\/satellites\/\d+\/passes$/).at(-1)).toBe(then)
      expect(asked(/^\/api\/v1\/passes$/).at(-1)).toBe(then)
      // Typed: an instant in the browser's zone (UTC here).
      await page.fill('#time-input', '2026-05-31T22:15')
      await page.dispatchEvent('#time-input', 'change')
      await page.waitForFunction(() => new URL(location.href).searchParams.get('time') === '2026-05-31T22:15:00.000Z')
      await page.click('#time-now')
      await page.waitForFunction(() => !new URL(location.href).searchParams.has('time'))
      expect(await page.getAttribute('#time-now', 'aria-pressed')).toBe('true')
      expect(await page.textContent('#status')).toContain('live')
    } finally {
      await context.close()
    }
  })

  test('no view scrolls sideways; /#map opens at the top with the tabs and the map in the first screen', async () => {
    const opened = await open(options)
    const { page, context } = opened
    try {
      await page.goto(`${base}${pagePath(NIGHT, '&sat=25544#map')}`)
      await ready(page, 'map')
      await page.waitForTimeout(300)
      expect(await page.evaluate(() => window.scrollY)).toBe(0)
      const tabs = await page.evaluate(() => document.querySelector('.tabs')!.getBoundingClientRect().top)
      const map = await page.evaluate(() => document.getElementById('map-plot')!.getBoundingClientRect().top)
      const height = options.viewport.height
      expect(tabs).toBeLessThan(height / 2)
      expect(map).toBeLessThan(height - 100)
      for (const view of ['sky', 'tonight', 'map', 'passes'] as const) {
        await page.click(`#tab-${view}`)
        await ready(page, view)
        const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
        expect({ view, fits: widths.scroll <= widths.client, ...widths }).toMatchObject({ view, fits: true })
      }
      expectClean(opened)
    } finally {
      await context.close()
    }
  })
})

describe('a night a month after the data', () => {
  test('Tonight says how many satellites have no position for part of the night, and a pass cut where its data ends says so', async () => {
    const opened = await open(DESKTOP)
    const { page, context } = opened
    try {
      const night = '2026-06-28T21:30:00.000Z'
      await page.goto(`${base}${pagePath(night, '#tonight')}`)
      await ready(page, 'tonight')
      const from = (await page.getAttribute('#view-tonight', 'data-from'))!
      expect(from).toBe(night)
      const api = (await call(base, `/api/v1/passes?latitude=${OBSERVER.latitude}&longitude=${OBSERVER.longitude}&time=${encodeURIComponent(from)}&hours=12&visible-only=true`)).json
      const partly = new Set(api.metadata.noPosition.map((s: any) => s.noradId)).size
      expect(partly).toBeGreaterThan(1000)
      expect(await page.textContent('#tonight-summary')).toContain(`${partly.toLocaleString('en')} satellites have no position for part of this time`)
      // Each pass without a set: "(data ends)" when the satellite's positions end after its culmination, else "(up)".
      const rows = await tonightRows(page)
      const ends = api.data.filter((p: any) => p.set === null && api.metadata.noPosition.some((s: any) => s.noradId === p.noradId && Date.parse(s.from) > Date.parse(p.culmination.datetime)))
      expect(ends.length).toBeGreaterThan(0)
      for (const pass of ends) {
        const row = rows.find((r) => r.id === pass.noradId && r.cells[2]!.startsWith(`${pass.culmination.elevation.toFixed(0)}°`))!
        expect(row.cells[3]).toEndWith('→ (data ends)')
      }
      // A satellite's passes whose positions begin inside the day (30 days before its epoch): said in the summary and the rise.
      await page.goto(`${base}${pagePath('2026-04-29T20:00:00.000Z', '&sat=62226#passes')}`)
      await ready(page, 'passes')
      expect(await page.textContent('#passes-summary')).toContain('No position from ')
      const rise = await page.$$eval('#passes-table tbody tr td:nth-child(2)', (cells) => cells.map((c) => c.textContent ?? ''))
      expect(rise.some((text) => text.startsWith('data from '))).toBe(true)
      expectClean(opened)
    } finally {
      await context.close()
    }
  })
})

describe('themes', () => {
  const luminance = (rgb: string) => {
    const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).map(Number)
    return (0.2126 * r! + 0.7152 * g! + 0.0722 * b!) / 255
  }
  const colours = (page: Page) =>
    page.evaluate(() => {
      const style = getComputedStyle(document.documentElement)
      const main = getComputedStyle(document.querySelector('main')!)
      return { background: style.backgroundColor, text: main.color }
    })

  test('the system dark theme (prefers-color-scheme: dark) and the light one', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const opened = await open({ ...DESKTOP, colorScheme })
      try {
        await opened.page.goto(`${base}${pagePath(NIGHT, '#sky')}`)
        await ready(opened.page, 'sky')
        const { background, text } = await colours(opened.page)
        if (colorScheme === 'dark') {
          expect(luminance(background)).toBeLessThan(0.15)
          expect(luminance(text)).toBeGreaterThan(0.6)
          await opened.page.screenshot({ path: join(RESULTS, 'web-dark.png') })
        } else {
          expect(luminance(background)).toBeGreaterThan(0.85)
          expect(luminance(text)).toBeLessThan(0.2)
        }
        expectClean(opened)
      } finally {
        await opened.context.close()
      }
    }
  })

  test('night vision: red on black, remembered on the next visit, and off again', async () => {
    const opened = await open(DESKTOP)
    const { page, context } = opened
    try {
      await page.goto(`${base}${pagePath(NIGHT, '#sky')}`)
      await ready(page, 'sky')
      await page.click('#night-vision')
      expect(await page.getAttribute('html', 'data-theme')).toBe('red')
      expect(await page.getAttribute('#night-vision', 'aria-pressed')).toBe('true')
      const red = async () => {
        const { background, text } = await colours(page)
        const [r, g, b] = (text.match(/\d+/g) ?? []).map(Number)
        expect(luminance(background)).toBeLessThan(0.02)
        expect(r!).toBeGreaterThan(180)
        expect(Math.max(g!, b!)).toBeLessThan(r! / 2)
      }
      await red()
      await page.screenshot({ path: join(RESULTS, 'web-night-vision.png') })
      await page.reload()
      await ready(page, 'sky')
      expect(await page.getAttribute('html', 'data-theme')).toBe('red')
      await red()
      await page.click('#night-vision')
      expect(await page.getAttribute('html', 'data-theme')).toBeNull()
      expectClean(opened)
    } finally {
      await context.close()
    }
  })
})
