/**
 * The compiled executable (dist/sattrack) against docs/contract.md section 0 and part 1,
 * over real HTTP on a loopback port: command line, startup, every part-1
 * endpoint, errors, HEAD, CORS, --snapshot, PORT/HOST.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  call,
  childEnv,
  errorBodies,
  freePort,
  ISO_MS,
  LOOPBACK,
  mediaType,
  requireExecutable,
  ROOT,
  runToExit,
  type Service,
  STARTUP_LIMIT_MS,
  startService,
} from './harness.ts'
import { NEARBY_BASIC_KEYS, SATELLITE_KEYS } from '../helpers/contract.ts'
import { HEAP_OPTIONS } from '../../src/io/memory.ts'

// Generous: these start processes and a browser; nothing here measures speed.
setDefaultTimeout(30_000)

const JSON_UTF8 = 'application/json; charset=utf-8'
const ORBITAL_KEYS = ['apogeeHeight', 'eccentricity', 'inclination', 'meanMotion', 'orbitalPeriod', 'perigeeHeight', 'semiMajorAxis']
const GEOPOSITION_KEYS = ['altitude', 'datetime', 'elementAgeDays', 'epoch', 'latitude', 'longitude', 'name', 'noradId']
const ORBIT_CLASSES = ['GEO', 'HEO', 'LEO', 'MEO']
/** London: dark at 22:00 UTC and light at 12:00 UTC every day of the year. */
const LONDON = { latitude: 51.5, longitude: -0.13 }

const sorted = (o: object) => Object.keys(o).sort()
/** A running process's environment, from /proc (Linux). */
const environmentOf = (pid: number): Record<string, string> =>
  Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  )
/** For hooks and tests that start processes (bun's default is 5 s, and bunfig's [test] timeout is not read). */
const SLOW = 30_000

/** Asserts the error body of docs/contract.md section 0 and gives its message. */
function expectErrorBody(reply: { status: number; json: any; headers: Headers; text: string }, status: number): string {
  expect(reply.status).toBe(status)
  expect(mediaType(reply.headers)).toBe(JSON_UTF8)
  expect(reply.json).toBeObject()
  expect(sorted(reply.json)).toEqual(['message', 'statusCode'])
  expect(reply.json.statusCode).toBe(status)
  expect(reply.json.message).toBeString()
  expect(reply.json.message.length).toBeGreaterThan(0)
  return reply.json.message
}

function expectSatellite(s: any): void {
  expect(sorted(s)).toEqual(SATELLITE_KEYS)
  expect(Number.isInteger(s.noradId) && s.noradId >= 1).toBe(true)
  expect(s.name).toBeString()
  expect(s.groups.length).toBeGreaterThan(0)
  expect(s.groups).toEqual([...new Set(s.groups as string[])].sort())
  expect((s.labels as string[]).filter((l) => ORBIT_CLASSES.includes(l))).toHaveLength(1)
  if (s.tle !== null) {
    expect(sorted(s.tle)).toEqual(['line1', 'line2'])
    expect(s.tle.line1).toHaveLength(69)
    expect(s.tle.line2).toHaveLength(69)
  }
  if (s.epoch !== null) expect(s.epoch).toMatch(ISO_MS)
  if (s.orbitalParams !== null) {
    expect(sorted(s.orbitalParams)).toEqual(ORBITAL_KEYS)
    for (const k of ORBITAL_KEYS) expect(Number.isFinite(s.orbitalParams[k])).toBe(true)
  }
}

/** Catalog numbers (columns 3-7 of line 1) of every element set the build embeds. */
function snapshotCatalogNumbers(): Set<string> {
  const bundle = JSON.parse(readFileSync(join(ROOT, 'data/snapshot.json'), 'utf8')) as { groups: Record<string, string> }
  const ids = new Set<string>()
  for (const text of Object.values(bundle.groups)) {
    for (const line of text.split(/\r?\n/)) if (line.startsWith('1 ')) ids.add(line.slice(2, 7).trim())
  }
  return ids
}

/** `2026-05-30T22:00:00Z` on the UTC day of `ms`. */
function atUtcHour(ms: number, hour: number): string {
  const d = new Date(ms)
  return `${d.toISOString().slice(0, 10)}T${String(hour).padStart(2, '0')}:00:00Z`
}

describe('command line', () => {
  test('dist/sattrack exists (built by `make test` / `make build`)', () => {
    expect(requireExecutable()).toEndWith('dist/sattrack')
  })

  test('--help: usage on stdout, every option with its SATTRACK_* variable; exit 0', async () => {
    const r = await runToExit(['--help'])
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toContain('Usage: sattrack')
    for (const flag of ['--port', '--host', '--snapshot', '--help', '--version', 'PORT', 'HOST']) expect(r.stdout).toContain(flag)
    for (const flag of ['--port', '--host', '--log-level', '--log-format', '--access-log', '--metrics', '--rate-limit', '--trust-proxy', '--shutdown-timeout', '--data-dir', '--refresh-url']) {
      expect(r.stdout).toContain(flag)
      expect(r.stdout).toContain(`SATTRACK_${flag.slice(2).toUpperCase().replace(/-/g, '_')}`)
    }
    expect(r.stderr).toBe('')
  }, SLOW)

  test('--version: the version of package.json, build commit, runtime, the embedded snapshot stamp and its age; exit 0', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    const stamp: string = JSON.parse(readFileSync(join(ROOT, 'data/snapshot.json'), 'utf8')).stamp
    const r = await runToExit(['--version'])
    expect(r.exitCode).toBe(0)
    expect(r.stderr).toBe('')
    const lines = r.stdout.trim().split('\n')
    expect(lines[0]).toBe(`sattrack ${version}`)
    expect(lines[1]).toMatch(/^commit: \S+$/)
    expect(lines[2]).toMatch(/^runtime: Bun \d+\.\d+\.\d+ \(linux-x64\)$/)
    // The stamp and its age today: the same days as the status endpoint's freshness.
    const days = Math.floor((Date.now() - Date.parse(stamp)) / 86_400_000)
    expect(lines[3]).toBe(
      `embedded snapshot: ${stamp} (${days} day${days === 1 ? '' : 's'} old; positions are given within 30 days of an element set's epoch unless --max-element-age says otherwise)`,
    )
    // Over 14 days old (the status endpoint's `stale`): what to do.
    expect(lines.slice(4)).toEqual(days > 14 ? ['the embedded data is stale: load newer data with --refresh-url, --snapshot FILE or make snapshot (see GET /api/v1/service/status)'] : [])
  }, SLOW)

  // Each one would listen on loopback if the argument were accepted: the 10 s
  // kill then makes the exit code wrong and the test fail. (The messages themselves: test/config.test.ts.)
  const listen = ['--host', LOOPBACK, '--port', '0']
  const bad: [string, string[], Record<string, string>, RegExp][] = [
    ['an unknown flag', [...listen, '--bogus'], {}, /--bogus/],
    ['a port that is not a number', ['--host', LOOPBACK, '--port', 'abc'], {}, /^sattrack: --port: .*"abc"/],
    ['a port above 65535', ['--host', LOOPBACK, '--port', '70000'], {}, /port/i],
    ['a flag without its value', ['--host', LOOPBACK, '--port'], {}, /port/i],
    ['a --snapshot path that does not exist', [...listen, '--snapshot', '/nonexistent/sattrack-e2e/snap'], {}, /nonexistent/],
    ['an element-age limit that is not a duration', [...listen, '--max-element-age', 'a-month'], {}, /--max-element-age: .*"a-month"/],
    ['PORT set to junk in the environment', [], { PORT: 'abc', HOST: LOOPBACK }, /PORT/],
    ['a log level', [...listen, '--log-level', 'loud'], {}, /^sattrack: --log-level: /],
    ['a log format', [...listen, '--log-format', 'xml'], {}, /^sattrack: --log-format: /],
    ['a rate limit', [...listen, '--rate-limit', 'lots'], {}, /^sattrack: --rate-limit: /],
    ['a shutdown timeout', [...listen, '--shutdown-timeout', 'forever'], {}, /^sattrack: --shutdown-timeout: /],
    ['a boolean', [...listen, '--access-log=perhaps'], {}, /^sattrack: --access-log: /],
    ['a log format by variable', listen, { SATTRACK_LOG_FORMAT: 'yaml' }, /^sattrack: SATTRACK_LOG_FORMAT: /],
    ['a rate limit by variable', listen, { SATTRACK_RATE_LIMIT: '0/min' }, /^sattrack: SATTRACK_RATE_LIMIT: /],
    ['a boolean by variable', listen, { SATTRACK_METRICS: 'on' }, /^sattrack: SATTRACK_METRICS: /],
    ['a shutdown timeout by variable', listen, { SATTRACK_SHUTDOWN_TIMEOUT: '-1s' }, /^sattrack: SATTRACK_SHUTDOWN_TIMEOUT: /],
  ]
  for (const [what, args, env, mentions] of bad) {
    test(`${what} (${[...args.slice(args[3] === '0' ? 4 : 2), ...Object.entries(env).map(([k, v]) => `${k}=${v}`)].join(' ')}): exit 2, one line on stderr, nothing on stdout`, async () => {
      const r = await runToExit(args, childEnv(env))
      expect({ exitCode: r.exitCode, signal: r.signal }).toEqual({ exitCode: 2, signal: null })
      const lines = r.stderr.split('\n').filter((l) => l.trim() !== '')
      expect(lines).toHaveLength(1)
      expect(r.stderr.trimEnd().includes('\n')).toBe(false)
      expect(lines[0]).toMatch(mentions)
      expect(r.stdout).toBe('')
    }, SLOW)
  }

  test('a --host that is no address of this machine (192.0.2.1: documentation only; a literal, no name lookup): exit 2, saying so in plain words', async () => {
    // It is found when listening, after the catalogue is loaded (and logged).
    const r = await runToExit(['--host', '192.0.2.1', '--port', '0'], childEnv({}))
    expect({ exitCode: r.exitCode, signal: r.signal }).toEqual({ exitCode: 2, signal: null })
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('sattrack: --host 192.0.2.1: not an address of this machine')
  }, SLOW)

  test('a --host name that does not resolve (nosuchhost.invalid: reserved, never resolves; the resolver is not asked): exit 2 at once, one plain line, no errno', async () => {
    for (const workers of ['1', '2']) {
      const r = await runToExit(['--host', 'nosuchhost.invalid', '--port', '0', '--workers', workers], childEnv({}))
      expect({ workers, exitCode: r.exitCode, signal: r.signal }).toEqual({ workers, exitCode: 2, signal: null })
      // Before the catalogue is loaded or any worker started: nothing else is written.
      expect(r.stderr).toBe('sattrack: --host nosuchhost.invalid: the name does not resolve to an address (names under .invalid never do)\n')
      expect(r.stdout).toBe('')
    }
  }, SLOW)
})

describe('HTTP, embedded catalogue', () => {
  let service: Service
  let base: string
  let list: any
  let iss: any
  /** An hour after the ISS element set's epoch, so every position is valid. */
  let atIssEpoch: string
  let night: string
  let noon: string

  beforeAll(async () => {
    service = await startService()
    base = service.url
    console.log(`sattrack answered its healthcheck ${service.startupMs.toFixed(0)} ms after spawn (${base})`)
    const reply = await call(base, '/api/v1/satellites')
    list = reply.json
    iss = list?.data?.find((s: any) => s.noradId === 25544)
    if (!iss) throw new Error('the embedded catalogue has no 25544: the ISS tests cannot run')
    const epochMs = Date.parse(iss.epoch)
    atIssEpoch = new Date(Math.floor(epochMs / 1000) * 1000 + 3_600_000).toISOString().replace('.000Z', 'Z')
    night = atUtcHour(epochMs, 22)
    noon = atUtcHour(epochMs, 12)
  }, SLOW)

  afterAll(async () => {
    if (!service) return
    const code = await service.stop()
    expect(code).toBe(0)
  }, SLOW)

  test(`starts and answers the healthcheck within ${STARTUP_LIMIT_MS} ms`, () => {
    // Measured and printed, not a speed test: the bound only says "it starts".
    expect(service.startupMs).toBeLessThan(STARTUP_LIMIT_MS)
  })

  test('serves with the heap options in its environment, from the process that was started (re-executed in place)', () => {
    expect(environmentOf(service.proc.pid)).toMatchObject(HEAP_OPTIONS)
  })

  test('GET /api/v1/service/healthcheck → 200 {"message":"OK"}', async () => {
    const r = await call(base, '/api/v1/service/healthcheck')
    expect(r.status).toBe(200)
    expect(mediaType(r.headers)).toBe(JSON_UTF8)
    expect(r.json).toEqual({ message: 'OK' })
  })

  describe('GET /api/v1/satellites', () => {
    test('the whole catalogue: total = data length = catalog numbers in the embedded snapshot', async () => {
      const r = await call(base, '/api/v1/satellites')
      expect(r.status).toBe(200)
      expect(mediaType(r.headers)).toBe(JSON_UTF8)
      expect(sorted(r.json)).toEqual(['data', 'metadata'])
      expect(r.json.metadata).toEqual({ total: r.json.data.length })
      const expected = snapshotCatalogNumbers().size
      const skipped = service.stdout().includes('skipped invalid element sets')
      if (skipped) expect(r.json.metadata.total).toBeLessThanOrEqual(expected)
      else expect(r.json.metadata.total).toBe(expected)
      expect(r.json.metadata.total).toBeGreaterThan(1000)
      console.log(`list total: ${r.json.metadata.total} (snapshot catalog numbers: ${expected})`)
    })

    test('ordered by noradId ascending, each a Satellite without geoposition', () => {
      const ids = list.data.map((s: any) => s.noradId)
      for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1])
      for (const s of list.data) expectSatellite(s)
      expect(iss.name).toContain('ISS')
      expect(iss.groups).toContain('stations')
      expect(iss.labels).toContain('LEO')
    })

    test('strong ETag; If-None-Match with it → 304 with no body; another tag → 200', async () => {
      const first = await call(base, '/api/v1/satellites')
      const etag = first.headers.get('etag')
      expect(etag).toMatch(/^"[^"]+"$/)
      const again = await call(base, '/api/v1/satellites', { headers: { 'if-none-match': etag! } })
      expect(again.status).toBe(304)
      expect(again.text).toBe('')
      expect(again.headers.get('etag')).toBe(etag)
      expect(again.headers.get('access-control-allow-origin')).toBe('*')
      const listed = await call(base, '/api/v1/satellites', { headers: { 'if-none-match': `"other", ${etag}` } })
      expect(listed.status).toBe(304)
      const other = await call(base, '/api/v1/satellites', { headers: { 'if-none-match': '"not-the-tag"' } })
      expect(other.status).toBe(200)
      expect(other.json.metadata.total).toBe(first.json.metadata.total)
    })
  })

  describe('GET /api/v1/satellites/iss', () => {
    test('without time: 25544 now, with geoposition and metadata {total: 1, datetime ≈ now}', async () => {
      const before = Date.now()
      const r = await call(base, '/api/v1/satellites/iss')
      const after = Date.now()
      if (r.status === 422) {
        // Legitimate only when the embedded elements are too old for "now" (docs/contract.md: 422).
        expect(expectErrorBody(r, 422)).toStartWith('satellite 25544 has no valid position at')
        console.warn(`iss without time: 422 (${r.json.message})`)
        return
      }
      expect(r.status).toBe(200)
      expect(mediaType(r.headers)).toBe(JSON_UTF8)
      expect(sorted(r.json)).toEqual(['data', 'metadata'])
      const { geoposition, ...satellite } = r.json.data
      expect(satellite).toEqual(iss)
      expect(geoposition.latitude).toBeWithin(-90, 90.0000001)
      expect(geoposition.longitude).toBeWithin(-180, 180.0000001)
      expect(r.json.metadata.total).toBe(1)
      expect(r.json.metadata.datetime).toMatch(ISO_MS)
      const at = Date.parse(r.json.metadata.datetime)
      expect(at).toBeGreaterThanOrEqual(before - 1000)
      expect(at).toBeLessThanOrEqual(after + 1000)
    })

    test('with time: the instant echoed; position plausible for the ISS', async () => {
      const r = await call(base, `/api/v1/satellites/iss?time=${atIssEpoch}`)
      expect(r.status).toBe(200)
      expect(r.json.metadata).toEqual({ total: 1, datetime: new Date(atIssEpoch).toISOString(), elementAgeDays: expect.any(Number) })
      expect(Math.abs(r.json.metadata.elementAgeDays)).toBeLessThan(1)
      const { geoposition, ...satellite } = r.json.data
      expect(satellite).toEqual(iss)
      expect(Math.abs(geoposition.latitude)).toBeLessThanOrEqual(iss.orbitalParams.inclination + 0.5)
      expect(geoposition.longitude).toBeWithin(-180, 180.0000001)
      if ('altitude' in geoposition) expect(geoposition.altitude).toBeWithin(300, 500)
    })

    test('time with an offset is the same instant as in UTC', async () => {
      const utc = new Date(atIssEpoch)
      const plus2 = new Date(utc.getTime() + 2 * 3_600_000).toISOString().replace(/\.000Z$/, '+02:00')
      const a = await call(base, `/api/v1/satellites/iss?time=${encodeURIComponent(plus2)}`)
      const b = await call(base, `/api/v1/satellites/iss?time=${atIssEpoch}`)
      expect(a.status).toBe(200)
      expect(a.json.metadata.datetime).toBe(utc.toISOString())
      expect(a.json.data.geoposition).toEqual(b.json.data.geoposition)
    })
  })

  describe('GET /api/v1/satellites/:noradId/geoposition', () => {
    test('with time: {noradId, name, latitude, longitude, epoch, datetime, altitude}, same point as /iss', async () => {
      const r = await call(base, `/api/v1/satellites/25544/geoposition?time=${atIssEpoch}`)
      expect(r.status).toBe(200)
      expect(mediaType(r.headers)).toBe(JSON_UTF8)
      expect(sorted(r.json)).toEqual(GEOPOSITION_KEYS)
      expect(r.json.noradId).toBe(25544)
      expect(r.json.name).toBe(iss.name)
      expect(r.json.epoch).toBe(iss.epoch)
      expect(r.json.datetime).toBe(new Date(atIssEpoch).toISOString())
      const fromIss = (await call(base, `/api/v1/satellites/iss?time=${atIssEpoch}`)).json.data.geoposition
      expect(r.json.latitude).toBeCloseTo(fromIss.latitude, 9)
      expect(r.json.longitude).toBeCloseTo(fromIss.longitude, 9)
      expect(r.json.altitude).toBeWithin(300, 500)
    })

    test('without time: now', async () => {
      const r = await call(base, '/api/v1/satellites/25544/geoposition')
      expect([200, 422]).toContain(r.status)
      if (r.status === 200) expect(Math.abs(Date.parse(r.json.datetime) - Date.now())).toBeLessThan(60_000)
    })

    test('a satellite that is not in the catalogue → 404', async () => {
      const ids = new Set(list.data.map((s: any) => s.noradId))
      let unknown = 999_999_999
      while (ids.has(unknown)) unknown--
      const message = expectErrorBody(await call(base, `/api/v1/satellites/${unknown}/geoposition`), 404)
      expect(message).toContain(String(unknown))
    })

    test('elements propagated 70 years past their epoch → 422 that says why', async () => {
      const message = expectErrorBody(await call(base, '/api/v1/satellites/25544/geoposition?time=2099-12-31T00:00:00Z'), 422)
      expect(message).toStartWith('satellite 25544 has no valid position at 2099-12-31T00:00:00.000Z')
    })
  })

  describe('GET /api/v1/satellites/nearby', () => {
    const query = (params: Record<string, string | number | boolean>) =>
      `/api/v1/satellites/nearby?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`

    function expectNearby(body: any, mode: 'basic' | 'extended', threshold = 10, magnitudeLimit = 4.5) {
      expect(sorted(body)).toEqual(['metadata', 'observer', 'satellites'])
      expect(body.metadata).toEqual({
        total: body.satellites.length,
        mode,
        magnitudeLimit,
        leftOut: { elementAge: expect.any(Number), decayed: expect.any(Number) },
        maxElementAgeDays: 30,
      })
      const elevations = body.satellites.map((e: any) => e.elevation)
      for (let i = 1; i < elevations.length; i++) expect(elevations[i]).toBeLessThanOrEqual(elevations[i - 1])
      for (const e of body.satellites) {
        expect(sorted(e)).toEqual(mode === 'basic' ? NEARBY_BASIC_KEYS : [...NEARBY_BASIC_KEYS, 'geoposition', 'orbitalParams'].sort())
        expect(e.elevation).toBeGreaterThanOrEqual(threshold)
        expect(e.elevation).toBeLessThanOrEqual(90)
        expect(e.azimuth).toBeGreaterThanOrEqual(0)
        expect(e.azimuth).toBeLessThan(360)
        expect(e.range).toBeGreaterThan(0)
        expect(e.altitude).toBeGreaterThan(0)
        expect(e.velocityKmHs).toBeGreaterThan(0)
        expect(e.epoch).toMatch(ISO_MS)
        expect((e.labels as string[]).filter((l) => ORBIT_CLASSES.includes(l))).toHaveLength(1)
        expect(e.observerDaytime).toBe(body.satellites[0].observerDaytime)
        if (e.visible) expect(e.satelliteSunlit && !e.observerDaytime && e.magnitude <= magnitudeLimit).toBe(true)
        expect(e.magnitude === null).toBe(!e.satelliteSunlit)
        if (mode === 'extended') {
          expect(sorted(e.geoposition)).toEqual(['latitude', 'longitude'])
          expect(sorted(e.orbitalParams)).toEqual(ORBITAL_KEYS)
        }
      }
    }

    test('basic: observer echoed (altitude 0 when omitted), entries with the basic fields, highest first', async () => {
      const r = await call(base, query({ ...LONDON, time: night }))
      expect(r.status).toBe(200)
      expect(mediaType(r.headers)).toBe(JSON_UTF8)
      expectNearby(r.json, 'basic')
      expect(r.json.observer).toEqual({ ...LONDON, altitude: 0, datetime: new Date(night).toISOString() })
      expect(r.json.metadata.total).toBeGreaterThan(0)
    })

    test('extended: geoposition and orbitalParams added, same satellites as basic', async () => {
      const basic = await call(base, query({ ...LONDON, altitude: 100, time: night }))
      const r = await call(base, query({ ...LONDON, altitude: 100, mode: 'extended', time: night }))
      expect(r.status).toBe(200)
      expectNearby(r.json, 'extended')
      expect(r.json.observer.altitude).toBe(100)
      expect(r.json.satellites.map((e: any) => e.noradId)).toEqual(basic.json.satellites.map((e: any) => e.noradId))
      const byId = new Map(list.data.map((s: any) => [s.noradId, s]))
      for (const e of r.json.satellites.slice(0, 50)) expect(e.orbitalParams).toEqual((byId.get(e.noradId) as any).orbitalParams)
    })

    test('visible-only at night: exactly the visible entries of the full answer', async () => {
      // A fainter limit than the default (a dark site's), so that enough satellites qualify.
      const all = await call(base, query({ ...LONDON, time: night, 'magnitude-limit': 6 }))
      const r = await call(base, query({ ...LONDON, time: night, 'visible-only': true, 'magnitude-limit': 6 }))
      expect(r.status).toBe(200)
      expectNearby(r.json, 'basic', 10, 6)
      expect(r.json.metadata.total).toBeGreaterThan(0)
      for (const e of r.json.satellites) expect([e.visible, e.satelliteSunlit, e.observerDaytime]).toEqual([true, true, false])
      const visibleIds = all.json.satellites.filter((e: any) => e.visible).map((e: any) => e.noradId)
      expect(r.json.satellites.map((e: any) => e.noradId)).toEqual(visibleIds)
    })

    test('at noon: daytime at the observer, nothing visible', async () => {
      const r = await call(base, query({ ...LONDON, time: noon }))
      expect(r.status).toBe(200)
      expectNearby(r.json, 'basic')
      for (const e of r.json.satellites) expect([e.observerDaytime, e.visible]).toEqual([true, false])
      const only = await call(base, query({ ...LONDON, time: noon, 'visible-only': true }))
      expect(only.json.metadata.total).toBe(0)
    })

    test('azimuth range wrapping through north and elevation-threshold filter', async () => {
      const r = await call(base, query({ ...LONDON, time: night, 'azimuth-range-from': 300, 'azimuth-range-to': 60, 'elevation-threshold': 30 }))
      expect(r.status).toBe(200)
      expectNearby(r.json, 'basic', 30)
      for (const e of r.json.satellites) expect(e.azimuth >= 300 || e.azimuth <= 60).toBe(true)
    })
  })

  describe('errors', () => {
    test('an unknown path → 404 with the error body', async () => {
      for (const path of ['/nope', '/api/v1/nope', '/api/v1/satellites/25544/geoposition/extra', '/api/v2/satellites']) {
        expect(expectErrorBody(await call(base, path), 404)).toContain(path)
      }
    })

    const known = ['/api/v1/satellites', '/api/v1/satellites/iss', '/api/v1/satellites/25544/geoposition', '/api/v1/satellites/nearby', '/api/v1/service/healthcheck']
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      test(`${method} on a known path → 405 with Allow and the error body`, async () => {
        for (const path of known) {
          const r = await call(base, path, { method, body: method === 'DELETE' ? undefined : '{}', headers: { 'content-type': 'application/json' } })
          expectErrorBody(r, 405)
          const allow = (r.headers.get('allow') ?? '').split(/\s*,\s*/)
          expect(allow).toContain('GET')
          expect(allow).toContain('HEAD')
          expect(allow).not.toContain(method)
        }
      })
    }

    // [request, the parameter the message must name]: each kind of parameter once, through the compiled
    // (minified) build. The rules of each kind, and every route's parameters: test/http/plugins/params.test.ts.
    const badRequests: [string, string][] = [
      ['/api/v1/satellites/nearby?longitude=0', 'latitude'],
      ['/api/v1/satellites/nearby?latitude=10abc&longitude=0', 'latitude'],
      ['/api/v1/satellites/nearby?latitude=1&latitude=2&longitude=0', 'latitude'],
      ['/api/v1/satellites/nearby?latitude=0&longitude=0&mode=full', 'mode'],
      ['/api/v1/satellites/nearby?latitude=0&longitude=0&visible-only=yes', 'visible-only'],
      ['/api/v1/satellites/25544/passes?latitude=0&longitude=0&days=11', 'days'],
      ['/api/v1/satellites/iss?time=2026-02-30T00:00:00Z', 'time'],
      ['/api/v1/satellites/1.5/geoposition', 'noradId'],
      ['/api/v1/satellites/geoposition?ids=25544,,1', 'ids'],
      ['/api/v1/satellites?search=', 'search'],
    ]
    for (const [path, parameter] of badRequests) {
      test(`400: ${path}`, async () => {
        expect(expectErrorBody(await call(base, path), 400)).toContain(parameter)
      })
    }

    test('the latitude message states the rule as docs/contract.md shows it, and the value received', async () => {
      const r = await call(base, '/api/v1/satellites/nearby?latitude=91&longitude=0')
      expect(r.json.message).toBe('latitude must be a number between -90 and 90 (got "91")')
    })

    test('odd requests are client errors with the error body, never a 5xx', async () => {
      for (const path of [
        '/api/v1/satellites/%E0%A4%A/geoposition',
        '/api/v1/satellites/25544/geoposition?time=%00',
        '/api/v1/satellites/nearby?latitude=%ZZ&longitude=0',
        '/api/v1/satellites/nearby?latitude=1e400&longitude=0',
        `/api/v1/satellites/${'9'.repeat(400)}/geoposition`,
        '/api/v1/satellites/%2e%2e/geoposition',
      ]) {
        const r = await call(base, path)
        expect({ path, clientError: r.status >= 400 && r.status < 500 }).toEqual({ path, clientError: true })
        expectErrorBody(r, r.status)
      }
    })
  })

  describe('HEAD, CORS, OPTIONS', () => {
    test('HEAD = GET without a body (status, headers, Content-Length)', async () => {
      for (const path of [
        '/api/v1/service/healthcheck',
        '/api/v1/satellites',
        `/api/v1/satellites/iss?time=${atIssEpoch}`,
        `/api/v1/satellites/25544/geoposition?time=${atIssEpoch}`,
        `/api/v1/satellites/nearby?latitude=51.5&longitude=-0.13&time=${night}`,
        '/api/v1/satellites/nearby?latitude=91&longitude=0',
        '/nope',
      ]) {
        const get = await fetch(base + path)
        const getBody = new Uint8Array(await get.arrayBuffer())
        const head = await fetch(base + path, { method: 'HEAD' })
        const headBody = await head.text()
        expect({ path, status: head.status }).toEqual({ path, status: get.status })
        expect(headBody).toBe('')
        // Date is the clock; every other header must match.
        const headers = (r: Response) => Object.fromEntries([...r.headers].filter(([k]) => k !== 'date').sort())
        expect({ path, headers: headers(head) }).toEqual({ path, headers: headers(get) })
        // fetch decompresses a compressed GET body; the length on the wire is the header's.
        const wireLength = get.headers.get('content-encoding') ? get.headers.get('content-length') : String(getBody.byteLength)
        expect(head.headers.get('content-length')).toBe(wireLength)
      }
    })

    test('Access-Control-Allow-Origin: * on answers of every kind', async () => {
      const replies = await Promise.all([
        call(base, '/api/v1/service/healthcheck'),
        call(base, '/api/v1/satellites'),
        call(base, `/api/v1/satellites/25544/geoposition?time=${atIssEpoch}`),
        call(base, '/api/v1/satellites/nearby?latitude=91&longitude=0'),
        call(base, '/nope'),
        call(base, '/api/v1/satellites', { method: 'POST' }),
      ])
      for (const r of replies) expect(r.headers.get('access-control-allow-origin')).toBe('*')
    })

    test('OPTIONS preflight on a known path allows GET from any origin', async () => {
      const r = await call(base, '/api/v1/satellites/nearby', {
        method: 'OPTIONS',
        headers: { origin: 'http://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-trace-id' },
      })
      expect(r.status).toBeOneOf([200, 204])
      expect(r.headers.get('access-control-allow-origin')).toBe('*')
      expect((r.headers.get('access-control-allow-methods') ?? '').split(/\s*,\s*/)).toContain('GET')
      expect((r.headers.get('access-control-allow-headers') ?? '').toLowerCase()).toContain('x-trace-id')
    })
  })

  test('a path segment that is not valid percent-encoding: a 400 naming the parameter and saying so, in the family\'s body on a compatible route', async () => {
    // Bun's router hands such a segment over with U+FFFD in place of the bytes; the message must not quote that as the value sent.
    const cases: [string, string, string][] = [
      ['/api/v1/satellites/%ZZ', 'noradId must be an integer between 1 and 999999999', '%ZZ'],
      ['/api/v1/satellites/%FF/geoposition', 'noradId must be an integer between 1 and 999999999', '%FF'],
      ['/api/v1/satellites/25544%E2%82/passes?latitude=0&longitude=0', 'noradId must be an integer between 1 and 999999999', '25544%E2%82'],
      ['/v1/satellites/%ZZ', 'id must be a NORAD catalog number: an integer between 1 and 999999999', '%ZZ'],
      ['/v1/coordinates/%ZZ,1', 'coordinates must be latitude,longitude in degrees (-90..90, -180..180)', '%ZZ,1'],
    ]
    for (const [path, rule, sent] of cases) {
      const r = await call(base, path)
      expect({ path, status: r.status }).toEqual({ path, status: 400 })
      // The segment as sent, quoted (JSON escapes the quotes).
      expect({ path, text: r.text }).toEqual({ path, text: expect.stringContaining(`${rule} (got \\"${sent}\\", which is not valid percent-encoding)`) })
      expect(r.json).toEqual(path.startsWith('/v1/') ? { error: expect.any(String), status: 400 } : { message: expect.any(String), statusCode: 400 })
    }
    // A valid escape of a character that is not a digit is quoted as sent.
    expect((await call(base, '/api/v1/satellites/%E2%82%AC')).json.message).toContain('(got "%E2%82%AC")')
  })

  test('a /nearby decades ahead is worked out in slices: other requests are answered meanwhile', async () => {
    // The resonance integrator's run to 2099 for every resonant record takes seconds (the decay searches stop at the age limit).
    let done = false
    const far = call(base, '/api/v1/satellites/nearby?latitude=0&longitude=0&time=2099-06-30T00:00:00Z').then((r) => {
      done = true
      return r
    })
    let answeredMeanwhile = 0
    while (!done) {
      const r = await call(base, '/api/v1/service/healthcheck')
      if (!done && r.status === 200) answeredMeanwhile++
      await Bun.sleep(20)
    }
    const answer = await far
    expect(answer.status).toBe(200)
    // Decayed within 30 days of their epochs, or too old: every satellite is left out, and counted.
    const { elementAge, decayed } = answer.json.metadata.leftOut
    expect(elementAge + decayed).toBe((await call(base, '/api/v1/service/status')).json.catalog.satellites)
    expect(decayed).toBeGreaterThan(100)
    expect(answer.json.satellites).toEqual([])
    expect(answeredMeanwhile).toBeGreaterThan(10)
  }, SLOW)

  test('no error body carries a stack trace or an internal path', () => {
    expect(errorBodies.length).toBeGreaterThan(40)
    const leaks = errorBodies.filter(
      ({ text }) =>
        // a stack frame: `at fn (/path/file.ts:1:2)`, `at /path/file.js:1:2`, `at file:///…`
        /\bat (?:\S+ )?\(?(?:\/|file:|\$bunfs|[A-Za-z]:\\)[^)\s]*:\d+(?::\d+)?/.test(text) ||
        /\\n\s*at |\n\s+at /.test(text) ||
        /(^|[\s"'(:])\/(?:work|home|root|tmp|usr|src|\$bunfs)\//.test(text) ||
        /\.(?:ts|js|mjs)\b/.test(text) ||
        /node_modules|TypeError|ReferenceError|SyntaxError|RangeError|\bError:/.test(text),
    )
    expect(leaks).toEqual([])
  })
})

describe('--snapshot with a folder', () => {
  let folder: string
  let service: Service | undefined
  /** The element sets copied, as [name, line1, line2]. */
  let copied: [string, string, string][]

  beforeAll(async () => {
    // Copied from data/stations.tle at test time, so no element set is committed.
    const lines = readFileSync(join(ROOT, 'data/stations.tle'), 'utf8').split(/\r?\n/)
    copied = []
    for (let i = 0; i + 2 < lines.length && copied.length < 3; i++) {
      if (lines[i + 1]!.startsWith('1 ') && lines[i + 2]!.startsWith('2 ') && !lines[i]!.startsWith('1 ') && !lines[i]!.startsWith('2 ')) {
        copied.push([lines[i]!, lines[i + 1]!, lines[i + 2]!])
        i += 2
      }
    }
    if (copied.length !== 3) throw new Error('data/stations.tle does not hold three element sets: run `make data/snapshot.json`')
    folder = mkdtempSync(join(tmpdir(), 'sattrack-e2e-snapshot-'))
    writeFileSync(join(folder, 'e2egroup.tle'), `${copied.flat().join('\n')}\n`)
    service = await startService({ args: ['--snapshot', folder] })
  }, SLOW)

  afterAll(async () => {
    if (service) expect(await service.stop()).toBe(0)
    if (folder) rmSync(folder, { recursive: true, force: true })
  }, SLOW)

  test('the list holds exactly the element sets of the folder, in its one group', async () => {
    const r = await call(service!.url, '/api/v1/satellites')
    expect(r.status).toBe(200)
    const expectedIds = copied.map(([, l1]) => Number(l1.slice(2, 7))).sort((a, b) => a - b)
    expect(r.json.metadata.total).toBe(3)
    expect(r.json.data.map((s: any) => s.noradId)).toEqual(expectedIds)
    for (const s of r.json.data) {
      expectSatellite(s)
      expect(s.groups).toEqual(['e2egroup'])
      const [name, line1, line2] = copied.find(([, l1]) => Number(l1.slice(2, 7)) === s.noradId)!
      expect(s.name).toBe(name.trim())
      expect(s.tle).toEqual({ line1: line1.trimEnd(), line2: line2.trimEnd() })
    }
  })

  test('nearby searches only those satellites', async () => {
    const r = await call(service!.url, '/api/v1/satellites/nearby?latitude=0&longitude=0')
    expect(r.status).toBe(200)
    const ids = new Set(copied.map(([, l1]) => Number(l1.slice(2, 7))))
    for (const e of r.json.satellites) expect(ids.has(e.noradId)).toBe(true)
  })
})

/** Whether this machine has ::1 (Linux lists it in /proc/net/if_inet6 on `lo`). */
const hasIpv6Loopback = (() => {
  try {
    return /^0{31}1\s.*\blo$/m.test(readFileSync('/proc/net/if_inet6', 'utf8'))
  } catch {
    return false
  }
})()

describe('heap options', () => {
  test('one set by the operator keeps its value, and the others are added', async () => {
    const service = await startService({ env: { BUN_JSC_heapGrowthMaxIncrease: '2' } })
    try {
      expect(environmentOf(service.proc.pid)).toMatchObject({ ...HEAP_OPTIONS, BUN_JSC_heapGrowthMaxIncrease: '2' })
      expect((await call(service.url, '/api/v1/service/healthcheck')).status).toBe(200)
    } finally {
      expect(await service.stop()).toBe(0)
    }
  }, SLOW)
})

describe('PORT and HOST from the environment', () => {
  test('PORT and HOST alone: it listens there; SIGTERM exits 0', async () => {
    const service = await startService({ listen: 'env' })
    try {
      const r = await call(service.url, '/api/v1/service/healthcheck')
      expect(r.json).toEqual({ message: 'OK' })
      expect(new URL(service.url).port).toBe(String(service.port))
    } finally {
      expect(await service.stop()).toBe(0)
    }
  }, SLOW)

  test.skipIf(!hasIpv6Loopback)('HOST=::1: it listens on IPv6 loopback only', async () => {
    const service = await startService({ listen: 'env', host: '::1' })
    try {
      expect(service.url).toStartWith('http://[::1]:')
      expect((await call(service.url, '/api/v1/service/healthcheck')).status).toBe(200)
      const v4 = await fetch(`http://${LOOPBACK}:${service.port}/api/v1/service/healthcheck`).then(
        (r) => r.status,
        () => 'refused',
      )
      expect(v4).toBe('refused')
    } finally {
      expect(await service.stop()).toBe(0)
    }
  }, SLOW)

  test('flags win over PORT', async () => {
    const envPort = await freePort()
    const service = await startService({ env: { PORT: String(envPort), HOST: LOOPBACK } })
    try {
      expect(service.port).not.toBe(envPort)
      expect((await call(service.url, '/api/v1/service/healthcheck')).status).toBe(200)
      const other = await fetch(`http://${LOOPBACK}:${envPort}/api/v1/service/healthcheck`).then(
        (r) => r.status,
        () => 'refused',
      )
      expect(other).toBe('refused')
    } finally {
      expect(await service.stop()).toBe(0)
    }
  }, SLOW)
})
