/**
 * Background refresh against a loopback stand-in for CelesTrak: formats,
 * conditional requests, all-or-nothing rounds, faults, backoff, persistence.
 */
import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { buildCatalog, type Catalog } from '../../src/domain/catalog/catalog.ts'
import { snapshotFromCache } from '../../src/io/cache.ts'
import { backoffDelayMs, groupUrl, type Logger, retryAfterMs, Refresher, type RefreshSettings, type Timers } from '../../src/io/refresh.ts'
import type { GroupSet } from '../../src/domain/catalog/groups.ts'
import { catalogFromSnapshot } from '../../src/domain/catalog/snapshot.ts'
import { planStart } from '../../src/domain/catalog/startup.ts'
import { CatalogStore } from '../../src/domain/catalog/store.ts'
import { VERSION } from '../../src/io/version.ts'
import { appFor, request } from '../helpers/catalog.ts'
import { elementsOf, ommJson, ommRecord, syntheticGroup } from '../fixtures/synthetic.ts'
import { type Fault, startMockUpstream } from '../fixtures/upstream.ts'

const T0 = Date.UTC(2026, 5, 1, 12)
const HOUR = 3_600_000
const SIX_DIGIT = ommRecord({ NORAD_CAT_ID: 270001, OBJECT_NAME: 'SYNTH OMM-ONLY', OBJECT_ID: '2026-123AB', EPOCH: '2026-06-01T06:00:00.123456', INCLINATION: 97.5 })

/** What the service holds at the start: 20 stations, 10 weather, epochs in late May. */
const OLD = { stations: syntheticGroup(90000, 20, { epochDay: 148.5 }), weather: syntheticGroup(91000, 10, { epochDay: 148.5 }) }
/** What upstream serves: the same satellites with newer epochs, and an OMM-only 6-digit object. */
const NEW = { stations: [...syntheticGroup(90000, 20, { epochDay: 152.5 }), SIX_DIGIT], weather: syntheticGroup(91000, 10, { epochDay: 152.5 }) }

function initialCatalog(): Catalog {
  const groups = Object.entries(OLD).map(([group, records]) => ({ group, elements: records.map(elementsOf) }))
  return buildCatalog(groups, { source: 'snapshot', obtainedAtMs: T0 - 10 * 24 * HOUR }, T0)
}

function quietLog() {
  const entries: { level: string; message: string; fields?: Record<string, unknown> }[] = []
  const logger: Logger = {
    info: (message, fields) => entries.push({ level: 'info', message, fields }),
    warn: (message, fields) => entries.push({ level: 'warn', message, fields }),
    error: (message, fields) => entries.push({ level: 'error', message, fields }),
  }
  return { logger, entries }
}

/** Timers that only fire when the test says so. */
function manualTimers() {
  const pending: { callback: () => void; delayMs: number; cancelled: boolean }[] = []
  const timers: Timers = {
    set(callback, delayMs) {
      const timer = { callback, delayMs, cancelled: false }
      pending.push(timer)
      return timer
    },
    clear(handle) {
      ;(handle as { cancelled: boolean }).cancelled = true
    },
  }
  const live = () => pending.filter((t) => !t.cancelled)
  return {
    timers,
    live,
    /** Runs the one live timer. */
    fire() {
      const [timer, ...others] = live()
      expect(others).toEqual([])
      timer!.cancelled = true
      timer!.callback()
    },
  }
}

const upstream = startMockUpstream(NEW)
afterAll(() => upstream.stop())
beforeEach(() => {
  upstream.setFault(null)
  for (const group of Object.keys(NEW)) upstream.setFault(null, group)
  upstream.requests.length = 0
})

interface SetupOptions {
  settings?: Partial<RefreshSettings>
  persist?: (c: GroupSet) => Promise<unknown>
  /** The catalogue in the store at the start (default: the old data, as from a snapshot). */
  catalog?: Catalog
  initialPayloads?: GroupSet['groups']
}

function setup(options: SetupOptions = {}) {
  let now = T0
  const store = new CatalogStore(options.catalog ?? initialCatalog())
  const initial = store.current
  const saved: GroupSet[] = []
  const { logger, entries } = quietLog()
  const manual = manualTimers()
  const refresher = new Refresher({
    store,
    settings: { url: upstream.url, intervalMs: 6 * HOUR, groups: ['stations', 'weather'], format: 'json', timeoutMs: 5_000, ...options.settings },
    clock: () => now,
    timers: manual.timers,
    log: logger,
    persist: options.persist ?? (async (contents) => saved.push(contents)),
    initialPayloads: options.initialPayloads,
  })
  return {
    store,
    initial,
    refresher,
    saved,
    entries,
    manual,
    advance: (ms: number) => {
      now += ms
    },
    now: () => now,
  }
}

describe('a successful round', () => {
  test('fetches every group as OMM JSON and swaps in the new catalogue in one step', async () => {
    const { store, initial, refresher, saved } = setup()
    const outcome = await refresher.refreshNow()
    expect(outcome.kind).toBe('changed')
    const catalog = store.current
    expect(catalog).not.toBe(initial)
    expect(catalog.origin).toEqual({ source: 'refresh', obtainedAtMs: T0, groupsObtainedAtMs: { stations: T0, weather: T0 }, groupSources: { stations: 'refresh', weather: 'refresh' } })
    expect(catalog.groupCounts).toEqual({ stations: 21, weather: 10 })
    expect(catalog.get(90005)!.elements.epochMs).toBeGreaterThan(initial.get(90005)!.elements.epochMs)
    // The 6-digit object is an ordinary satellite without a TLE form.
    expect(catalog.get(270001)?.elements.tle).toBeNull()
    expect(catalog.get(270001)?.groups).toEqual(['stations'])

    expect(upstream.requests.map((r) => [r.group, r.format])).toEqual([
      ['stations', 'json'],
      ['weather', 'json'],
    ])
    for (const r of upstream.requests) {
      expect(r.headers.get('user-agent')).toBe(`sattrack/${VERSION}`)
      expect(r.headers.get('if-none-match')).toBeNull()
      expect(r.headers.get('if-modified-since')).toBeNull()
    }
    const status = refresher.status()
    expect(status).toMatchObject({ enabled: true, url: upstream.url, intervalSeconds: 21_600, lastError: null, consecutiveFailures: 0 })
    expect(status.lastAttemptAt).toBe(new Date(T0).toISOString())
    expect(status.lastSuccessAt).toBe(new Date(T0).toISOString())

    // The payloads were handed to the persistence as received, with their validators.
    expect(saved).toHaveLength(1)
    expect(saved[0]!.groups.map((g) => [g.group, g.format, g.etag !== null, g.lastModified !== null])).toEqual([
      ['stations', 'json', true, true],
      ['weather', 'json', true, true],
    ])
    expect(JSON.parse(saved[0]!.groups[0]!.text!)).toHaveLength(21)
  })

  for (const format of ['csv', 'tle'] as const) {
    test(`works the same with FORMAT=${format}`, async () => {
      const { store, refresher } = setup({ settings: { format } })
      expect((await refresher.refreshNow()).kind).toBe('changed')
      expect(upstream.requests.every((r) => r.format === format)).toBe(true)
      // TLE cannot carry the 6-digit object; OMM CSV can.
      expect(store.current.groupCounts).toEqual({ stations: format === 'tle' ? 20 : 21, weather: 10 })
      expect(store.current.get(90003)!.elements.tle).toEqual(elementsOf(NEW.stations[3]!).tle)
    })
  }

  test('the 6-digit OMM-only object through the HTTP API', async () => {
    const { store, refresher } = setup()
    await refresher.refreshNow()
    const app = appFor(store.current, Date.UTC(2026, 5, 1, 7))
    const one = await request(app, '/api/v1/satellites/270001')
    expect(one.status).toBe(200)
    expect(one.body.data).toMatchObject({ noradId: 270001, name: 'SYNTH OMM-ONLY', tle: null, epoch: '2026-06-01T06:00:00.123Z' })
    expect(one.body.data.orbitalParams.inclination).toBe(97.5)
    const position = await request(app, '/api/v1/satellites/270001/geoposition')
    expect(position.status).toBe(200)
    expect(position.body.altitude).toBeGreaterThan(300)
    expect(position.body.altitude).toBeLessThan(1500)
    const list = await request(app, '/api/v1/satellites')
    expect(list.body.data.at(-1)).toMatchObject({ noradId: 270001, tle: null })
  })
})

describe('conditional requests', () => {
  test('after a success every request is conditional; all 304 is a success with no change', async () => {
    const { store, refresher, saved, advance } = setup()
    await refresher.refreshNow()
    const afterFirst = store.current
    upstream.requests.length = 0
    advance(6 * HOUR)
    expect(await refresher.refreshNow()).toEqual({ kind: 'unchanged' })
    for (const r of upstream.requests) {
      expect(r.headers.get('if-none-match')).toMatch(/^"/)
      expect(r.headers.get('if-modified-since')).toMatch(/GMT$/)
    }
    // The same satellites and version (so the same ETags), its groups obtained now: confirmed data does not age (helper-33).
    expect(store.current.satellites).toBe(afterFirst.satellites)
    expect(store.current.version).toBe(afterFirst.version)
    expect(store.current.origin.groupsObtainedAtMs).toEqual({ stations: T0 + 6 * HOUR, weather: T0 + 6 * HOUR })
    expect(store.current.origin.obtainedAtMs).toBe(T0 + 6 * HOUR)
    expect(refresher.status().lastSuccessAt).toBe(new Date(T0 + 6 * HOUR).toISOString())
    // The cache records the confirmation: its data counts as obtained now.
    expect(saved.at(-1)!.obtainedAtMs).toBe(T0 + 6 * HOUR)
    expect(saved.at(-1)!.groups[0]!.text).toBe(saved[0]!.groups[0]!.text)
  })

  test('a group that changed upstream is taken while the others answer 304', async () => {
    const { store, refresher } = setup()
    await refresher.refreshNow()
    upstream.setGroup('weather', syntheticGroup(91000, 12, { epochDay: 153 }))
    try {
      expect((await refresher.refreshNow()).kind).toBe('changed')
      expect(store.current.groupCounts).toEqual({ stations: 21, weather: 12 })
      expect(store.current.get(270001)).toBeDefined() // kept from the 304 group
    } finally {
      upstream.setGroup('weather', NEW.weather)
    }
  })

  test('payloads read from the cache make the very first round conditional', async () => {
    const first = setup()
    await first.refresher.refreshNow()
    const cache = first.saved[0]!
    const fromCache = catalogFromSnapshot(snapshotFromCache(cache, 'catalog-cache.json'), 'cache', T0).catalog
    const second = setup({ catalog: fromCache, initialPayloads: cache.groups })
    upstream.requests.length = 0
    expect(await second.refresher.refreshNow()).toEqual({ kind: 'unchanged' })
    expect(upstream.requests.every((r) => r.headers.get('if-none-match') !== null)).toBe(true)
    expect(second.store.current.satellites).toBe(fromCache.satellites)
    expect(second.store.current.origin).toMatchObject({ source: 'cache', obtainedAtMs: T0 })
    expect(fromCache.get(270001)?.elements.tle).toBeNull()
  })
})

interface FaultCase {
  name: string
  fault: Fault
  format?: 'json' | 'csv' | 'tle'
  error: RegExp
}

const FAULTS: FaultCase[] = [
  { name: '500', fault: { kind: 'status', status: 500 }, error: /^stations: HTTP 500 \(9 bytes\) from http:\/\/127\.0\.0\.1:\d+\/NORAD\/elements\/gp\.php\?GROUP=stations&FORMAT=json; weather: HTTP 500 / },
  { name: '403', fault: { kind: 'status', status: 403 }, error: /^stations: HTTP 403 \(9 bytes\) from / },
  { name: '404', fault: { kind: 'status', status: 404 }, error: /^stations: HTTP 404 \(9 bytes\) from / },
  { name: 'a hang past the timeout', fault: { kind: 'hang' }, error: /^stations: no complete answer within 300ms \(http:\/\/127\.0\.0\.1:/ },
  { name: 'a body that stops coming', fault: { kind: 'hang-body' }, error: /^stations: no complete answer within/ },
  { name: 'a truncated JSON body', fault: { kind: 'truncated' }, error: /^stations: expected OMM JSON, got OMM JSON that cannot be read \(\d+ bytes\); weather: / },
  { name: 'a truncated CSV body', fault: { kind: 'truncated' }, format: 'csv', error: /^stations: the body ends inside an element set/ },
  { name: 'a truncated TLE body', fault: { kind: 'truncated' }, format: 'tle', error: /^stations: the body ends inside an element set/ },
  { name: 'an empty array', fault: { kind: 'body', body: '[]', contentType: 'application/json' }, error: /^stations: OMM JSON with no element sets; weather: OMM JSON with no element sets$/ },
  { name: 'an HTML page', fault: { kind: 'body', body: '<!DOCTYPE html>\n<html><body>Service Unavailable</body></html>', contentType: 'text/html' }, error: /^stations: expected OMM JSON, got an HTML page \(61 bytes\); weather: / },
  { name: 'binary data', fault: { kind: 'body', body: '\u001f\u008b\u0008\u0000 not text' }, error: /^stations: expected OMM JSON, got binary data \(14 bytes\); weather: / },
  { name: 'garbage text', fault: { kind: 'body', body: 'x7#\u0001 garbage, not elements' }, error: /^stations: expected OMM JSON, got text \(26 bytes\); weather: / },
  { name: '"No GP data found" for every group', fault: { kind: 'body', body: 'No GP data found' }, format: 'tle', error: /^the upstream has none of the groups \(stations, weather\)$/ },
  { name: 'JSON that is not OMM', fault: { kind: 'body', body: '[{"hello": "world"}, {"NORAD_CAT_ID": 5}]' }, error: /^stations: no valid element sets, 2 invalid \(first: record 1: NORAD_CAT_ID/ },
  { name: 'a body over the size cap, announced', fault: { kind: 'huge', bytes: 200_000, announce: true }, error: /^stations: the body is larger than the 100000-byte limit/ },
  { name: 'a body over the size cap, not announced', fault: { kind: 'huge', bytes: 5_000_000, announce: false }, error: /^stations: the body is larger than the 100000-byte limit/ },
]

describe('a failed round changes nothing', () => {
  for (const c of FAULTS) {
    test(c.name, async () => {
      // A short timeout for the faults that hang (they must end in it); the others must fail for their own reason, even on a loaded machine.
      const timeoutMs = c.fault.kind === 'hang' || c.fault.kind === 'hang-body' ? 300 : 5_000
      const { store, initial, refresher, saved, entries } = setup({ settings: { timeoutMs, maxBodyBytes: 100_000, format: c.format ?? 'json' } })
      upstream.setFault(c.fault)
      const app = appFor(store.current)
      const round = refresher.refreshNow()
      // The API answers while the round is under way.
      const health = await request(app, '/api/v1/service/healthcheck')
      expect(health.body).toEqual({ message: 'OK' })
      const outcome = await round
      expect(outcome.kind).toBe('failed')
      expect(store.current).toBe(initial)
      const status = refresher.status()
      expect(status.lastError).toMatch(c.error)
      expect(status.lastSuccessAt).toBeNull()
      expect(status.consecutiveFailures).toBe(1)
      // One failing group does not stop the others: every group was asked for (and every one failed);
      // but after a 403 (the upstream asking to be left alone) the rest of the round is not asked for.
      const held = c.fault.kind === 'status' && c.fault.status === 403
      expect(upstream.requests.map((r) => r.group)).toEqual(held ? ['stations'] : ['stations', 'weather'])
      if (held) expect(status.groupErrors.weather).toBe('not asked: stations answered HTTP 403')
      expect(saved).toEqual([])
      expect(entries.some((e) => e.level === 'warn' && e.message.startsWith('refresh failed'))).toBe(true)
      // The list is the old one.
      const list = await request(app, '/api/v1/satellites')
      expect(list.body.metadata.total).toBe(30)
    })
  }

  test('a failing group keeps its element sets while the others are taken; status names it; the retry comes within a minute', async () => {
    const { store, initial, refresher, manual, saved } = setup()
    refresher.start()
    manual.fire()
    upstream.setFault({ kind: 'status', status: 500 }, 'weather')
    const outcome = await refresher.refreshNow()
    expect(outcome.kind).toBe('changed')
    expect(outcome.kind === 'changed' && outcome.failedGroups).toEqual({ weather: expect.stringMatching(/^HTTP 500 \(9 bytes\) from http:\/\/127\.0\.0\.1:\d+\/NORAD\/elements\/gp\.php\?GROUP=weather&FORMAT=json$/) })
    expect(upstream.requests.map((r) => r.group)).toEqual(['stations', 'weather'])
    // stations refreshed (the OMM-only object came in); weather's sets are the ones held.
    expect(store.current.get(270001)).toBeDefined()
    expect(store.current.get(91000)!.elements).toBe(initial.get(91000)!.elements)
    expect(store.current.origin.groupsObtainedAtMs).toEqual({ stations: T0, weather: T0 - 10 * 24 * HOUR })
    const status = refresher.status()
    // The round failed (weather), yet stations was taken: lastSuccessAt says when the upstream last gave data.
    expect(status).toMatchObject({ consecutiveFailures: 1, lastSuccessAt: new Date(T0).toISOString(), groupErrors: { weather: expect.stringMatching(/^HTTP 500/) }, missingGroups: [] })
    expect(status.lastError).toMatch(/^1 of 2 groups failed and keep their element sets: weather: HTTP 500/)
    expect(manual.live().map((t) => t.delayMs)).toEqual([60_000])
    // The cache holds what was taken; weather was never fetched, so it is not in it.
    expect(saved.at(-1)!.groups.map((g) => g.group)).toEqual(['stations'])
    upstream.setFault(null, 'weather')
    expect((await refresher.refreshNow()).kind).toBe('changed')
    expect(refresher.status()).toMatchObject({ consecutiveFailures: 0, lastError: null, groupErrors: {} })
    refresher.stop()
  })

  test('a group shrinking below half its size is refused; half is accepted', async () => {
    const { store, initial, refresher } = setup()
    upstream.setGroup('stations', syntheticGroup(90000, 9, { epochDay: 152.5 }))
    try {
      const outcome = await refresher.refreshNow()
      expect(outcome).toMatchObject({ kind: 'changed', failedGroups: { stations: '9 satellites, fewer than half of the 20 it had' } })
      // stations kept as it was; weather taken.
      expect(store.current.groupCounts.stations).toBe(20)
      expect(store.current.get(90000)!.elements).toBe(initial.get(90000)!.elements)
      expect(store.current.get(91000)!.elements).not.toBe(initial.get(91000)!.elements)
      upstream.setGroup('stations', syntheticGroup(90000, 10, { epochDay: 152.5 }))
      expect((await refresher.refreshNow()).kind).toBe('changed')
      expect(store.current.groupCounts.stations).toBe(10)
    } finally {
      upstream.setGroup('stations', NEW.stations)
    }
  })

  test('a connection closed before the announced length', async () => {
    const raw = Bun.listen({
      hostname: '127.0.0.1',
      port: 0,
      socket: {
        data(socket) {
          socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 5000\r\n\r\n[{"OBJECT_NAME":"CUT",')
          setTimeout(() => socket.end(), 5)
        },
      },
    })
    try {
      const { store, initial, refresher } = setup({ settings: { url: `http://127.0.0.1:${raw.port}/NORAD/elements/gp.php` } })
      expect((await refresher.refreshNow()).kind).toBe('failed')
      expect(refresher.status().lastError).toMatch(/^stations: request failed: /)
      expect(store.current).toBe(initial)
    } finally {
      raw.stop(true)
    }
  })

  test('nothing listening', async () => {
    const raw = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    const port = raw.port
    raw.stop(true)
    const { refresher } = setup({ settings: { url: `http://127.0.0.1:${port}/gp.php` } })
    expect((await refresher.refreshNow()).kind).toBe('failed')
    expect(refresher.status().lastError).toMatch(/^stations: request failed: /)
  })

  test('a 304 to a request that was not conditional', async () => {
    const { refresher } = setup()
    upstream.setFault({ kind: 'status', status: 304 })
    expect((await refresher.refreshNow()).kind).toBe('failed')
    expect(refresher.status().lastError).toMatch(/^stations: HTTP 304 to a request that was not conditional/)
  })

  test('a failed cache write is recorded, the new catalogue stays in use', async () => {
    const { store, initial, refresher, entries } = setup({ persist: async () => Promise.reject(new Error('EACCES: permission denied')) })
    expect((await refresher.refreshNow()).kind).toBe('changed')
    expect(store.current).not.toBe(initial)
    expect(refresher.status()).toMatchObject({ lastError: null, cacheError: 'EACCES: permission denied' })
    expect(entries.some((e) => e.level === 'error')).toBe(true)
  })

  test('stop() during a hanging request ends the round quietly', async () => {
    const { store, initial, refresher } = setup({ settings: { timeoutMs: 60_000 } })
    upstream.setFault({ kind: 'hang' })
    const round = refresher.refreshNow()
    await Bun.sleep(50)
    expect(refresher.status().inProgress).toBe(true)
    refresher.stop()
    expect(await round).toEqual({ kind: 'stopped' })
    expect(store.current).toBe(initial)
    expect(refresher.status()).toMatchObject({ lastError: null, inProgress: false, nextAttemptAt: null })
  })
})

describe('groups that a round does not fetch are kept', () => {
  const DAY = 24 * HOUR
  /** The base as a snapshot: stations and weather as before, starlink, and a 'visual' group sharing 90000 with stations. */
  const base = (): GroupSet => ({
    source: 'snapshot',
    obtainedAtMs: T0 - 2 * DAY,
    description: 'base',
    groups: [
      ...Object.entries(OLD).map(([group, records]) => ({ group, text: ommJson(records) })),
      { group: 'starlink', text: ommJson(syntheticGroup(93000, 5, { epochDay: 148.5 })) },
      { group: 'visual', text: ommJson(syntheticGroup(90000, 1, { epochDay: 148.5 })) },
    ].map((g) => ({ ...g, source: 'snapshot' as const, obtainedAtMs: T0 - 2 * DAY })),
  })

  test('a round of some groups keeps the element sets and the group lists of the others', async () => {
    const { store, initial, refresher, saved } = setup({ catalog: catalogFromSnapshot(base(), 'snapshot', T0).catalog, settings: { groups: ['stations'] } })
    expect(initial.size).toBe(35)
    expect((await refresher.refreshNow()).kind).toBe('changed')
    const catalog = store.current
    expect(catalog.groupCounts).toEqual({ starlink: 5, stations: 21, visual: 1, weather: 10 })
    expect(catalog.size).toBe(36) // nothing lost; the 6-digit object added
    expect(catalog.get(91003)!.elements).toBe(initial.get(91003)!.elements) // weather: not fetched, unchanged
    expect(catalog.get(93004)!.groups).toEqual(['starlink'])
    expect(catalog.get(90000)!.groups).toEqual(['stations', 'visual'])
    expect(catalog.get(90000)!.elements.epochMs).toBeGreaterThan(initial.get(90000)!.elements.epochMs)
    expect(catalog.origin.groupsObtainedAtMs).toEqual({ starlink: T0 - 2 * DAY, stations: T0, visual: T0 - 2 * DAY, weather: T0 - 2 * DAY })
    // Only what came from upstream goes to the cache; the rest is in the base.
    expect(saved.at(-1)!.groups.map((g) => g.group)).toEqual(['stations'])
  })

  test('payloads from earlier rounds stay in the cache; a restart from base + cache gives the same catalogue', async () => {
    const first = setup({ catalog: catalogFromSnapshot(base(), 'snapshot', T0).catalog, settings: { groups: ['stations'] } })
    await first.refresher.refreshNow()
    const stationsPayload = first.saved.at(-1)!.groups[0]!
    // Then weather only, on the catalogue and payloads the first left (as a restart with other --refresh-groups).
    const { store, refresher, saved, advance } = setup({ catalog: first.store.current, settings: { groups: ['weather'] }, initialPayloads: first.saved.at(-1)!.groups })
    advance(HOUR)
    expect((await refresher.refreshNow()).kind).toBe('changed')
    expect(store.current.get(90005)!.elements.epochMs).toBe(elementsOf(NEW.stations[5]!).epochMs) // stations kept from round 1
    const cache = saved.at(-1)!
    expect(cache.obtainedAtMs).toBe(T0 + HOUR)
    expect(cache.groups.map((g) => [g.group, g.obtainedAtMs])).toEqual([
      ['weather', expect.any(Number)],
      ['stations', stationsPayload.obtainedAtMs], // carried over with its own fetch time
    ])
    expect(cache.groups[1]!.text).toBe(stationsPayload.text)

    const restarted = planStart({ base: { source: 'snapshot', snapshot: base() }, cache: snapshotFromCache(cache, 'catalog-cache.json'), nowMs: T0 + 2 * HOUR })
    if (!restarted.ok) throw new Error(restarted.error)
    expect(restarted.plan.groupSources).toEqual({ stations: 'cache', weather: 'cache', starlink: 'base', visual: 'base' })
    expect(restarted.plan.catalog.size).toBe(store.current.size)
    expect(restarted.plan.catalog.version).toBe(store.current.version)
  })

  test('a round where every fetched group answers 304 changes no satellite, dates only those groups, and keeps the carried payloads', async () => {
    const first = setup({ catalog: catalogFromSnapshot(base(), 'snapshot', T0).catalog, settings: { groups: ['stations', 'weather'] } })
    await first.refresher.refreshNow()
    const second = setup({ catalog: first.store.current, settings: { groups: ['weather'] }, initialPayloads: first.saved.at(-1)!.groups })
    second.advance(HOUR)
    expect(await second.refresher.refreshNow()).toEqual({ kind: 'unchanged' })
    expect(second.store.current.satellites).toBe(first.store.current.satellites)
    // weather confirmed an hour later; the groups not fetched keep their times, the oldest of which is the catalogue's.
    const before = first.store.current.origin.groupsObtainedAtMs!
    expect(second.store.current.origin.groupsObtainedAtMs).toEqual({ ...before, weather: T0 + HOUR })
    expect(second.store.current.origin.obtainedAtMs).toBe(Math.min(...Object.values(before)))
    expect(second.saved.at(-1)!.groups.map((g) => g.group)).toEqual(['weather', 'stations'])
  })

  test('start() is due when the oldest data of the groups it refreshes is an interval old; a group it lacks is due at once', () => {
    const contents: GroupSet = {
      obtainedAtMs: T0 - HOUR,
      source: 'refresh',
      description: upstream.url,
      groups: [{ group: 'stations', source: 'refresh', format: 'json', text: ommJson(NEW.stations), obtainedAtMs: T0 - HOUR, etag: null, lastModified: null }],
    }
    const started = planStart({ base: { source: 'snapshot', snapshot: base() }, cache: snapshotFromCache(contents, 'c'), nowMs: T0 })
    if (!started.ok) throw new Error(started.error)
    const dueFor = (groups: string[]) => {
      const { refresher } = setup({ catalog: started.plan.catalog, settings: { groups } })
      refresher.start()
      const due = refresher.status().nextAttemptAt
      refresher.stop()
      return due
    }
    expect(dueFor(['stations'])).toBe(new Date(T0 - HOUR + 6 * HOUR).toISOString())
    expect(dueFor(['stations', 'weather'])).toBe(new Date(T0).toISOString()) // weather is the base's, 10 days old
    expect(dueFor(['stations', 'gps-ops'])).toBe(new Date(T0).toISOString())
  })

  test('start() is due at once when a group\'s element sets are stale, whatever its date says (old data in a file written today)', () => {
    // stations obtained an hour ago (its file was written then), but its sets are from 100 days before.
    const stale = buildCatalog(
      [
        { group: 'stations', elements: syntheticGroup(90000, 5, { epochDay: 150.5 - 100 }).map(elementsOf) },
        { group: 'weather', elements: syntheticGroup(91000, 5, { epochDay: 150.5 }).map(elementsOf) },
      ],
      { source: 'snapshot', obtainedAtMs: T0 - HOUR, groupsObtainedAtMs: { stations: T0 - HOUR, weather: T0 - HOUR } },
      T0,
    )
    const dueFor = (groups: string[]) => {
      const { refresher } = setup({ catalog: stale, settings: { groups } })
      refresher.start()
      const due = refresher.status().nextAttemptAt
      refresher.stop()
      return due
    }
    expect(dueFor(['weather'])).toBe(new Date(T0 - HOUR + 6 * HOUR).toISOString())
    expect(dueFor(['stations', 'weather'])).toBe(new Date(T0).toISOString())
  })
})

describe('schedule and backoff', () => {
  test('while a round is under way there is no next attempt; afterwards it is never before the last one', async () => {
    const { refresher, manual, advance } = setup()
    refresher.start()
    manual.fire()
    expect(refresher.status()).toMatchObject({ inProgress: true, lastAttemptAt: new Date(T0).toISOString(), nextAttemptAt: null })
    advance(1000)
    await refresher.refreshNow()
    let status = refresher.status()
    expect(status).toMatchObject({ inProgress: false, nextAttemptAt: new Date(T0 + 1000 + 6 * HOUR).toISOString() })
    expect(manual.live()).toHaveLength(1)

    // A round asked for by hand while one is scheduled: the schedule is replaced by the one after it.
    upstream.setFault({ kind: 'status', status: 500 })
    const round = refresher.refreshNow()
    expect(refresher.status().nextAttemptAt).toBeNull()
    expect(manual.live()).toEqual([])
    await round
    status = refresher.status()
    expect(Date.parse(status.nextAttemptAt!)).toBeGreaterThan(Date.parse(status.lastAttemptAt!))
    expect(manual.live()).toHaveLength(1)
    refresher.stop()
  })

  test('backoffDelayMs: a minute after the first failure, doubling, never more than the interval; Retry-After honoured', () => {
    const MINUTE = 60_000
    expect(backoffDelayMs(6 * HOUR, 0)).toBe(6 * HOUR)
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 40].map((n) => backoffDelayMs(6 * HOUR, n) / MINUTE)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 360])
    expect(backoffDelayMs(90_000, 3)).toBe(90_000) // capped at the interval
    // Retry-After: never sooner than asked, up to a day, even past the interval.
    expect(backoffDelayMs(6 * HOUR, 1, 10 * MINUTE)).toBe(10 * MINUTE)
    expect(backoffDelayMs(2 * HOUR, 1, 5 * HOUR)).toBe(5 * HOUR)
    expect(backoffDelayMs(2 * HOUR, 1, 30 * 24 * HOUR)).toBe(24 * HOUR)
    expect(retryAfterMs('120', T0)).toBe(120_000)
    expect(retryAfterMs(new Date(T0 + 300_000).toUTCString(), T0)).toBe(300_000)
    expect(retryAfterMs('soon', T0)).toBe(0)
    expect(retryAfterMs(null, T0)).toBe(0)
  })

  test('start() refreshes at once when the loaded data is older than the interval', async () => {
    const { refresher, manual } = setup() // data obtained 10 days before T0
    refresher.start()
    expect(manual.live().map((t) => t.delayMs)).toEqual([0])
    expect(refresher.status().nextAttemptAt).toBe(new Date(T0).toISOString())
    manual.fire()
    expect((await refresher.refreshNow()).kind).not.toBe('failed')
    refresher.stop()
  })

  test('start() waits for the interval to pass when the data is fresh', () => {
    const { refresher, manual } = setup({ settings: { intervalMs: 30 * 24 * HOUR } })
    refresher.start()
    const due = T0 - 10 * 24 * HOUR + 30 * 24 * HOUR
    expect(refresher.status().nextAttemptAt).toBe(new Date(due).toISOString())
    expect(manual.live().map((t) => t.delayMs)).toEqual([due - T0])
    refresher.stop()
  })

  test('failures back off exponentially from a minute (capped at the interval); a success returns to the interval', async () => {
    const { refresher, manual, advance, now } = setup({ settings: { intervalMs: 2 * HOUR } })
    refresher.start()
    upstream.setFault({ kind: 'status', status: 503 })
    const delays: number[] = []
    for (let i = 0; i < 6; i++) {
      manual.fire()
      await refresher.refreshNow()
      const [timer] = manual.live()
      delays.push(timer!.delayMs)
      expect(refresher.status().nextAttemptAt).toBe(new Date(now() + timer!.delayMs).toISOString())
      advance(timer!.delayMs)
    }
    expect(delays.map((d) => d / 60_000)).toEqual([1, 2, 4, 8, 16, 32])
    expect(refresher.status().consecutiveFailures).toBe(6)
    upstream.setFault(null)
    manual.fire()
    expect((await refresher.refreshNow()).kind).toBe('changed')
    expect(manual.live().map((t) => t.delayMs)).toEqual([2 * HOUR])
    expect(refresher.status()).toMatchObject({ consecutiveFailures: 0, lastError: null })
    refresher.stop()
    expect(manual.live()).toEqual([])
  })

  test('a timer that fires early (clock jumps, long waits) waits again instead of fetching', () => {
    const { refresher, manual } = setup({ settings: { intervalMs: 30 * 24 * HOUR } })
    refresher.start()
    manual.fire() // fired 20 days early by our clock
    expect(upstream.requests).toEqual([])
    expect(manual.live()).toHaveLength(1)
    refresher.stop()
  })
})

describe('freshness warnings', () => {
  test('after each round, a warning when the median element age exceeds 14 days', async () => {
    const { refresher, entries, advance } = setup()
    advance(30 * 24 * HOUR) // the upstream data is a month old by now
    await refresher.refreshNow()
    expect(entries.filter((e) => e.message === 'element sets are stale').map((e) => e.fields?.limitDays)).toEqual([14])
    upstream.setFault({ kind: 'status', status: 500 })
    await refresher.refreshNow()
    expect(entries.filter((e) => e.message === 'element sets are stale')).toHaveLength(2)
  })

  test('no warning when the elements are recent', async () => {
    const { refresher, entries } = setup()
    await refresher.refreshNow()
    expect(entries.filter((e) => e.message === 'element sets are stale')).toEqual([])
  })
})

test('groupUrl adds GROUP and FORMAT and keeps other parameters', () => {
  expect(groupUrl('https://example.invalid/NORAD/elements/gp.php', 'gps-ops', 'json')).toBe('https://example.invalid/NORAD/elements/gp.php?GROUP=gps-ops&FORMAT=json')
  expect(groupUrl('http://127.0.0.1:1/gp.php?key=1&FORMAT=tle', 'a', 'csv')).toBe('http://127.0.0.1:1/gp.php?key=1&FORMAT=csv&GROUP=a')
})
