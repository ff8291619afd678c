/**
 * `format=ics` on the pass routes, read by a common calendar library: Debian's
 * python3-icalendar (test/reference/ics_read.py; `make deps-test` installs it).
 * The events must be the passes of the JSON answer (start and end to the second),
 * their summaries must name the satellite, the highest elevation with its
 * direction and the magnitude, and their UIDs must be unique and stay the same
 * when the same pass is asked for again from another start (a subscription).
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { appFor, embeddedCatalog, request } from '../helpers/catalog.ts'

const ROOT = new URL('../..', import.meta.url).pathname
const PYTHON = '/usr/bin/python3'
const READER = `${ROOT}test/reference/ics_read.py`
const SYDNEY = 'latitude=-33.8688&longitude=151.2093&altitude=58'
const PARIS = 'latitude=48.85&longitude=2.35'
const COMPASS = ['N', 'NNE', 'NE', 'ENE', 'E', 'ESE', 'SE', 'SSE', 'S', 'SSW', 'SW', 'WSW', 'W', 'WNW', 'NW', 'NNW']

interface ReadEvent {
  uid: string
  start: string
  end: string
  stamp: string
  summary: string
  description: string
  geo: [number, number] | null
}
interface ReadCalendar {
  calendar: { version: string; prodid: string; name: string; description: string | null; caldesc: string | null }
  events: ReadEvent[]
}

/** The calendar as python3-icalendar reads it. */
export async function readCalendar(bytes: Uint8Array | string): Promise<ReadCalendar> {
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: run \`make deps-test\``)
  const proc = Bun.spawn([PYTHON, READER], { stdin: typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes, stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) throw new Error(`python3-icalendar could not read the calendar (exit ${code}; \`make deps-test\` installs python3-icalendar):\n${stderr}`)
  return JSON.parse(stdout)
}

const second = (iso: string) => `${iso.slice(0, 19)}Z`
const compass = (az: number) => COMPASS[Math.round((((az % 360) + 360) % 360) / 22.5) % 16]

let app: ReturnType<typeof appFor>
let catalogSize: number
beforeAll(async () => {
  const catalog = await embeddedCatalog()
  catalogSize = catalog.size
  app = appFor(catalog)
})
const clock = (iso: string) => iso.slice(11, 19)

describe('GET /api/v1/satellites/:noradId/passes?format=ics', () => {
  test('text/calendar that python3-icalendar reads: one event per pass, from rise to set, summary with name, height, direction and magnitude', async () => {
    const path = `/api/v1/satellites/25544/passes?${SYDNEY}&time=2026-05-31T00:00:00Z&days=3`
    const json = (await request(app, path)).body
    const response = await app.handle(new Request(`http://localhost${path}&format=ics`))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/calendar; charset=utf-8')
    const text = await response.text()
    // RFC 5545: CRLF line ends, no line longer than 75 octets.
    expect(text.split('\r\n').every((line) => new TextEncoder().encode(line).length <= 75)).toBe(true)
    expect(text.replace(/\r\n/g, '')).not.toContain('\n')
    const read = await readCalendar(text)
    expect(read.calendar.version).toBe('2.0')
    expect(read.calendar.prodid).toContain('sattrack')
    expect(read.calendar.name).toContain('ISS (ZARYA)')
    expect(json.data.length).toBeGreaterThan(8)
    expect(read.events.length).toBe(json.data.length)
    expect(new Set(read.events.map((e) => e.uid)).size).toBe(read.events.length)
    let visible = 0
    for (const [k, pass] of json.data.entries()) {
      const event = read.events[k]!
      expect(event.start).toBe(second(pass.rise?.datetime ?? json.metadata.from))
      expect(event.end).toBe(second(pass.set?.datetime ?? json.metadata.to))
      expect(event.summary).toStartWith(`ISS (ZARYA): ${Math.round(pass.culmination.elevation)}° ${compass(pass.culmination.azimuth)}, `)
      // The magnitude of the pass's brightest moment sunlit in a dark sky, as the JSON's `brightest`; none without one.
      const magnitude = pass.brightest?.magnitude ?? null
      if (magnitude === null) expect(event.summary).toContain('not in a dark sky while sunlit')
      else expect(event.summary).toContain(`mag ${magnitude < 0 ? '-' : '+'}${Math.abs(magnitude).toFixed(1)}`)
      expect(event.summary.endsWith(', visible')).toBe(pass.visible)
      if (pass.visible) visible++
      expect(event.description).toContain('NORAD 25544')
      expect(event.geo).toEqual([-33.8688, 151.2093])
    }
    expect(visible).toBeGreaterThan(0)
  })

  test('UIDs are stable: the same pass asked for from another start keeps its UID (a subscription updates, it does not duplicate)', async () => {
    const base = `/api/v1/satellites/25544/passes?${SYDNEY}&days=2&format=ics`
    const first = await readCalendar(await (await app.handle(new Request(`http://localhost${base}&time=2026-05-31T00:00:00Z`))).text())
    const later = await readCalendar(await (await app.handle(new Request(`http://localhost${base}&time=2026-05-31T07:00:00Z`))).text())
    const uidOf = new Map(first.events.map((e) => [e.start, e.uid]))
    const common = later.events.filter((e) => uidOf.has(e.start))
    expect(common.length).toBeGreaterThan(5)
    for (const e of common) expect(e.uid).toBe(uidOf.get(e.start)!)
    // Passes at other times have other UIDs.
    const all = new Set([...first.events, ...later.events].map((e) => e.uid))
    expect(all.size).toBe(new Set([...first.events, ...later.events].map((e) => e.start)).size)
  })

  test('visible-only and a pass cut by the start: still one event each, readable', async () => {
    const json = (await request(app, `/api/v1/satellites/25544/passes?${SYDNEY}&time=2026-05-31T12:35:00Z&days=2&visible-only=true`)).body
    const read = await readCalendar(
      await (await app.handle(new Request(`http://localhost/api/v1/satellites/25544/passes?${SYDNEY}&time=2026-05-31T12:35:00Z&days=2&visible-only=true&format=ics`))).text(),
    )
    expect(read.events.length).toBe(json.data.length)
    for (const e of read.events) expect(e.summary).toEndWith(', visible')
    const cut = await readCalendar(
      await (await app.handle(new Request(`http://localhost/api/v1/satellites/25544/passes?${SYDNEY}&time=2026-05-31T12:35:00Z&days=1&format=ics`))).text(),
    )
    expect(cut.events[0]!.start).toBe('2026-05-31T12:35:00Z')
  })

  test('a pass the age limit cuts: its event says it begins where the positions do, and the calendar gives the stretch without positions', async () => {
    const path = `/api/v1/satellites/62226/passes?${PARIS}&time=2026-04-29T20:00:00Z&visible-only=true`
    const json = (await request(app, path)).body
    const [span] = json.metadata.noPosition
    expect(span.from).toBe(json.metadata.from)
    const read = await readCalendar(await (await app.handle(new Request(`http://localhost${path}&format=ics`))).text())
    expect(read.calendar.description).toContain(`has no position from ${span.from} to ${span.to} (${span.reason})`)
    const cut = json.data.findIndex((p: any) => p.rise === null)
    expect(cut).toBeGreaterThanOrEqual(0)
    // The first millisecond with a position.
    const begins = new Date(Date.parse(span.to) + 1).toISOString()
    expect(read.events[cut]!.start).toBe(second(begins))
    expect(read.events[cut]!.description).toContain(`Rise: above the threshold already where its positions begin, ${clock(begins)} UTC`)
    // A pass the searched time cuts says that instead.
    const edge = await readCalendar(await (await app.handle(new Request(`http://localhost/api/v1/satellites/25544/passes?${SYDNEY}&time=2026-05-31T12:35:00Z&days=1&format=ics`))).text())
    expect(edge.events[0]!.description).toContain('Rise: above the threshold already at the start of the searched time')
    expect(edge.calendar.description).toBeNull()
  })

  test('a night the age limit cuts for thousands of satellites: the calendar says how many lack positions for part of it, and a pass cut there ends where they do', async () => {
    const query = `${PARIS}&time=2026-06-28T20:27:00Z&visible-only=true`
    const json = (await request(app, `/api/v1/passes?${query}`)).body
    const read = await readCalendar(await (await app.handle(new Request(`http://localhost/api/v1/passes?${query}&format=ics`))).text())
    const partly = new Set(json.metadata.noPosition.map((s: any) => s.noradId)).size
    expect(partly).toBeGreaterThan(1000)
    expect(json.metadata.notice).toBeUndefined()
    expect(read.calendar.description).toStartWith(`${partly} of the ${catalogSize} satellites have no position for part of the searched time`)
    expect(read.calendar.caldesc).toBe(read.calendar.description)
    const cut = json.data.findIndex((p: any) => p.set === null)
    expect(cut).toBeGreaterThanOrEqual(0)
    const span = json.metadata.noPosition.find((s: any) => s.noradId === json.data[cut].noradId)
    expect(Date.parse(span.from)).toBeLessThan(Date.parse(json.metadata.to))
    // The last millisecond with a position.
    const ends = new Date(Date.parse(span.from) - 1).toISOString()
    expect(read.events[cut]!.end).toBe(second(ends))
    expect(read.events[cut]!.description).toContain(`Set: still above the threshold where its positions end, ${clock(ends)} UTC`)
  })

  test('stale data: a calendar without events says why in its description (the JSON answer\'s notice), not silently empty', async () => {
    const query = `${SYDNEY}&time=2026-11-25T18:00:00Z&visible-only=true`
    const json = (await request(app, `/api/v1/passes?${query}`)).body
    expect(json.metadata.notice).toContain('satellites are left out')
    const read = await readCalendar(await (await app.handle(new Request(`http://localhost/api/v1/passes?${query}&format=ics`))).text())
    expect(read.events).toEqual([])
    expect(read.calendar.description).toBe(json.metadata.notice)
    expect(read.calendar.caldesc).toBe(json.metadata.notice)
    // Near the data, no notice: no description.
    const fresh = await readCalendar(await (await app.handle(new Request(`http://localhost/api/v1/passes?${SYDNEY}&time=2026-05-31T08:00:00Z&visible-only=true&format=ics`))).text())
    expect(fresh.events.length).toBeGreaterThan(0)
    expect(fresh.calendar.description).toBeNull()
  })

  test('errors stay JSON', async () => {
    const { status, body, headers } = await request(app, `/api/v1/satellites/999999/passes?${SYDNEY}&format=ics`)
    expect(status).toBe(404)
    expect(headers.get('content-type')).toStartWith('application/json')
    expect(body.message).toContain('999999')
  })
})
