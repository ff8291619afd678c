/**
 * A refresh that cannot be turned against the service, against loopback
 * stand-ins for an upstream (127.0.0.1 only): a group the upstream does not
 * have next to good ones, 429 with Retry-After, redirects (same origin only, a
 * few), credentials and query values in --refresh-url, body text never echoed,
 * a body repeating one satellite, temporary cache files left by a kill.
 */
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildCatalog } from '../../src/domain/catalog/catalog.ts'
import { CatalogStore } from '../../src/domain/catalog/store.ts'
import { CACHE_FILE, leftoverReason, processStart, removeStaleTemporaries, serializeCache, writeCache } from '../../src/io/cache.ts'
import { type Logger, Refresher, type RefreshSettings, redactUrl, type Timers } from '../../src/io/refresh.ts'
import { elementsOf, ommJson, ommRecord, syntheticGroup } from '../fixtures/synthetic.ts'
import { startMockUpstream } from '../fixtures/upstream.ts'
import { createApp } from '../../src/http/app.ts'
import { embeddedCatalog } from '../helpers/catalog.ts'

const T0 = Date.UTC(2026, 5, 1, 12)
const HOUR = 3_600_000
const HELD = { stations: syntheticGroup(90000, 20, { epochDay: 148.5 }), weather: syntheticGroup(91000, 10, { epochDay: 148.5 }) }
const FRESH = { stations: syntheticGroup(90000, 20, { epochDay: 152.5 }), weather: syntheticGroup(91000, 10, { epochDay: 152.5 }) }

const upstream = startMockUpstream(FRESH)
/** A stand-in answering every request with what `handler` returns (another origin: another port). */
const servers: ReturnType<typeof Bun.serve>[] = []
function stand(handler: (request: Request) => Response | Promise<Response>) {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handler })
  servers.push(server)
  return `http://127.0.0.1:${server.port}`
}
afterAll(async () => {
  await upstream.stop()
  for (const server of servers) await server.stop(true)
})

function setup(settings: Partial<RefreshSettings> = {}) {
  const store = new CatalogStore(
    buildCatalog(
      Object.entries(HELD).map(([group, records]) => ({ group, elements: records.map(elementsOf) })),
      { source: 'snapshot', obtainedAtMs: T0 - 3 * 24 * HOUR },
      T0,
    ),
  )
  const lines: string[] = []
  const entries: { level: string; message: string; fields?: Record<string, unknown> }[] = []
  const logger: Logger = Object.fromEntries(
    (['info', 'warn', 'error'] as const).map((level) => [
      level,
      (message: string, fields?: Record<string, unknown>) => {
        entries.push({ level, message, fields })
        lines.push(JSON.stringify({ level, message, ...fields }))
      },
    ]),
  ) as unknown as Logger
  const delays: number[] = []
  const timers: Timers = { set: (_callback, delayMs) => delays.push(delayMs), clear: () => {} }
  const refresher = new Refresher({
    store,
    settings: { url: upstream.url, intervalMs: 6 * HOUR, groups: ['stations', 'weather'], format: 'json', timeoutMs: 5_000, ...settings },
    clock: () => T0,
    timers,
    log: logger,
  })
  refresher.start()
  return { store, initial: store.current, refresher, entries, lines, delays }
}

test('another sattrack as the upstream: a group its feed does not have (a 404 "No GP data found") is missing, no failure', async () => {
  // The feed of a sattrack over the embedded snapshot, on loopback: operations.md suggests chaining instances.
  const feed = createApp({ store: new CatalogStore(await embeddedCatalog()), clock: () => T0 })
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => feed.handle(request) })
  try {
    const unknown = await fetch(`http://127.0.0.1:${server.port}/NORAD/elements/gp.php?GROUP=no-such-group&FORMAT=json`)
    expect([unknown.status, await unknown.text()]).toEqual([404, 'No GP data found'])
    const { refresher, entries, delays } = setup({ url: `http://127.0.0.1:${server.port}/NORAD/elements/gp.php`, groups: ['stations', 'no-such-group'] })
    const outcome = await refresher.refreshNow()
    expect(outcome.kind).toBe('changed')
    expect(refresher.status()).toMatchObject({ missingGroups: ['no-such-group'], groupErrors: {}, lastError: null, consecutiveFailures: 0 })
    expect(entries.find((e) => e.message.startsWith('refresh: the upstream does not have'))?.fields).toMatchObject({ groups: ['no-such-group'] })
    expect(delays.at(-1)).toBe(6 * HOUR)
    refresher.stop()
  } finally {
    server.stop(true)
  }
})

test('a group the upstream does not have is reported (log, status) and the others refresh; it is no failure', async () => {
  const { store, initial, refresher, entries, delays } = setup({ groups: ['stations', 'no-such-group', 'weather'] })
  const outcome = await refresher.refreshNow()
  expect(outcome.kind).toBe('changed')
  expect(store.current.get(90000)!.elements.epochMs).toBeGreaterThan(initial.get(90000)!.elements.epochMs)
  expect(store.current.get(91000)!.elements.epochMs).toBeGreaterThan(initial.get(91000)!.elements.epochMs)
  expect(refresher.status()).toMatchObject({ missingGroups: ['no-such-group'], groupErrors: {}, lastError: null, consecutiveFailures: 0 })
  expect(entries.find((e) => e.message.startsWith('refresh: the upstream does not have'))?.fields).toMatchObject({ groups: ['no-such-group'] })
  expect(delays.at(-1)).toBe(6 * HOUR)
  refresher.stop()
})

test('500 then recovery: the first retry comes a minute later, then two, then the interval again', async () => {
  const { store, initial, refresher, delays } = setup()
  upstream.setFault({ kind: 'status', status: 500 })
  try {
    expect((await refresher.refreshNow()).kind).toBe('failed')
    expect((await refresher.refreshNow()).kind).toBe('failed')
    expect(store.current).toBe(initial)
    expect(delays.slice(-2)).toEqual([60_000, 120_000])
  } finally {
    upstream.setFault(null)
  }
  expect((await refresher.refreshNow()).kind).toBe('changed')
  expect(delays.at(-1)).toBe(6 * HOUR)
  refresher.stop()
})

test('429 with Retry-After: the next attempt is not sooner than asked; the status says so', async () => {
  let asked = 0
  const base = stand(() => {
    asked += 1
    return new Response('slow down, secret-token-123', { status: 429, headers: { 'retry-after': '1800' } })
  })
  const { store, initial, refresher, delays, lines } = setup({ url: `${base}/gp.php` })
  const outcome = await refresher.refreshNow()
  expect(outcome.kind).toBe('failed')
  expect(store.current).toBe(initial)
  expect(delays.at(-1)).toBe(30 * 60_000)
  expect(refresher.status().lastError).toMatch(/^stations: HTTP 429 \(27 bytes\), retry after 30m from http:\/\/127\.0\.0\.1:\d+\/gp\.php\?GROUP=stations&FORMAT=json; /)
  expect(refresher.status().nextAttemptAt).toBe(new Date(T0 + 30 * 60_000).toISOString())
  // Asked to slow down: the rest of the round is not asked for.
  expect(asked).toBe(1)
  expect(refresher.status().groupErrors.weather).toBe('not asked: stations answered HTTP 429')
  // The body is never echoed.
  expect(JSON.stringify(refresher.status()) + lines.join('\n')).not.toContain('secret-token')
  refresher.stop()
})

test('redirects: followed within the same origin (at most 3); never to another origin', async () => {
  const good = ommJson(FRESH.stations)
  const other = stand(() => new Response(good, { headers: { 'content-type': 'application/json' } }))
  let hops = 0
  const base = stand((request) => {
    const url = new URL(request.url)
    const group = url.searchParams.get('GROUP')!
    if (url.pathname === '/moved') return new Response(ommJson(FRESH[group as keyof typeof FRESH]), { headers: { 'content-type': 'application/json' } })
    if (url.pathname === '/loop') return Response.redirect(`${url.origin}/loop${url.search}`, 302)
    if (url.pathname === '/away') return Response.redirect(`${other}/gp.php${url.search}`, 301)
    hops += 1
    return Response.redirect(`/moved${url.search}`, 302)
  })
  const same = setup({ url: `${base}/gp.php` })
  expect((await same.refresher.refreshNow()).kind).toBe('changed')
  expect(hops).toBe(2)

  const away = setup({ url: `${base}/away` })
  expect((await away.refresher.refreshNow()).kind).toBe('failed')
  expect(away.refresher.status().groupErrors.stations).toMatch(/^HTTP 301 to another origin \(http:\/\/127\.0\.0\.1:\d+\), not followed/)
  expect(away.store.current).toBe(away.initial)

  const loop = setup({ url: `${base}/loop` })
  expect((await loop.refresher.refreshNow()).kind).toBe('failed')
  expect(loop.refresher.status().groupErrors.stations).toMatch(/^more than 3 redirects/)
  for (const s of [same, away, loop]) s.refresher.stop()
})

test('credentials and query values of --refresh-url never show in status, logs or errors', async () => {
  const base = stand(() => new Response('<html>denied for user admin</html>', { status: 403, headers: { 'content-type': 'text/html' } }))
  const url = `${base.replace('http://', 'http://admin:hunter2@')}/gp.php?API_KEY=s3cr3t&mode=full`
  const { refresher, lines } = setup({ url })
  await refresher.refreshNow()
  const shown = JSON.stringify(refresher.status()) + lines.join('\n')
  for (const secret of ['hunter2', 's3cr3t', 'admin:', 'full', 'denied']) expect(shown).not.toContain(secret)
  expect(refresher.status().url).toBe(`http://redacted@127.0.0.1:${new URL(base).port}/gp.php?API_KEY=redacted&mode=redacted`)
  expect(refresher.status().groupErrors.stations).toMatch(/^HTTP 403 \(34 bytes\) from http:\/\/redacted@127\.0\.0\.1:\d+\/gp\.php\?API_KEY=redacted&mode=redacted&GROUP=stations&FORMAT=json$/)
  expect(redactUrl('not a url')).toBe('(an invalid URL)')
  refresher.stop()
})

test('the cache written after a round with credentials in --refresh-url holds them redacted', async () => {
  const url = `${upstream.url.replace('http://', 'http://admin:hunter2@')}?API_KEY=s3cr3t`
  const saved: string[] = []
  const store = new CatalogStore(buildCatalog([{ group: 'stations', elements: HELD.stations.map(elementsOf) }], { source: 'snapshot', obtainedAtMs: T0 - 3 * 24 * HOUR }, T0))
  const refresher = new Refresher({
    store,
    settings: { url, intervalMs: 6 * HOUR, groups: ['stations'], format: 'json', timeoutMs: 5_000 },
    clock: () => T0,
    log: { info() {}, warn() {}, error() {} },
    persist: async (contents) => saved.push(serializeCache(contents)),
  })
  expect((await refresher.refreshNow()).kind).toBe('changed')
  expect(saved).toHaveLength(1)
  for (const secret of ['hunter2', 's3cr3t']) expect(saved[0]).not.toContain(secret)
  expect(JSON.parse(saved[0]!).url).toBe(redactUrl(url))
})

test('a body that is not elements is described by kind and size only', async () => {
  const base = stand(() => new Response('Internal detail: db password is xyzzy', { headers: { 'content-type': 'text/plain' } }))
  const { refresher, lines } = setup({ url: `${base}/gp.php` })
  await refresher.refreshNow()
  expect(refresher.status().groupErrors.stations).toBe('expected OMM JSON, got text (37 bytes)')
  expect(JSON.stringify(refresher.status()) + lines.join('\n')).not.toContain('xyzzy')
  refresher.stop()
})

test('a body that is not UTF-8 is described by the bytes received (not by its decoded text, where each invalid byte takes three)', async () => {
  const base = stand(() => new Response(new Uint8Array(1000).fill(0xff), { headers: { 'content-type': 'text/plain' } }))
  const { refresher } = setup({ url: `${base}/gp.php` })
  await refresher.refreshNow()
  expect(refresher.status().groupErrors.stations).toMatch(/^expected OMM JSON, got .* \(1000 bytes\)$/)
  refresher.stop()
})

test('a body repeating one satellite costs one element set (collapsed before validation); refused names and epochs keep the held sets', async () => {
  // 5000 copies of 90000 dated in the future: counted once, one refusal in 21 (not 5000 in 5020, which fails a group).
  const future = { ...FRESH.stations[0]!, EPOCH: '2026-06-09T00:00:00.000000' }
  const repeated = [...Array.from({ length: 5000 }, () => future), ...FRESH.stations.slice(1), ommRecord({ NORAD_CAT_ID: 90500, OBJECT_NAME: 'EVIL\r\n1 25544U' })]
  const base = stand((request) => {
    const group = new URL(request.url).searchParams.get('GROUP')!
    return new Response(ommJson(group === 'stations' ? repeated : FRESH.weather), { headers: { 'content-type': 'application/json' } })
  })
  const { store, initial, refresher, entries } = setup({ url: `${base}/gp.php` })
  expect((await refresher.refreshNow()).kind).toBe('changed')
  expect(refresher.status().groupErrors).toEqual({})
  expect(store.current.groupCounts.stations).toBe(20)
  expect(store.current.get(90000)!.elements).toBe(initial.get(90000)!.elements)
  expect(store.current.get(90001)!.elements.epochMs).toBeGreaterThan(initial.get(90001)!.elements.epochMs)
  expect(store.current.get(90500)).toBeUndefined()
  const refused = entries.filter((e) => e.message === 'refresh: element set refused').map((e) => e.fields)
  expect(refused).toEqual([
    expect.objectContaining({ group: 'stations', noradId: 90000, reason: expect.stringMatching(/^its epoch 2026-06-09/), satelliteKept: true }),
    expect.objectContaining({ group: 'stations', noradId: 90500, reason: 'its name holds control characters', satelliteKept: false }),
  ])
  refresher.stop()
})

test('temporary cache files left by a killed writer are removed at start; only a recent one of another running process is kept', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sattrack-temp-'))
  // Another process that runs: another instance sharing the data dir, say.
  const other = Bun.spawn(['sleep', '60'])
  try {
    await writeCache(dir, { source: 'refresh', description: 'http://127.0.0.1:9/gp.php', obtainedAtMs: T0, groups: [{ group: 'stations', source: 'refresh', obtainedAtMs: T0, format: 'json', text: ommJson(FRESH.stations) }] })
    const start = processStart(other.pid)
    const name = (writer: string) => `.${CACHE_FILE}.${writer}.abcd1234.tmp`
    const names = {
      // A pid that cannot be running (above the kernel's maximum).
      dead: name('4194999.123'),
      // This process's own pid: at start nothing of its own is being written (a container gives every run the same pid).
      own: name(`${process.pid}.${processStart(process.pid) ?? 'x'}`),
      // The other process's pid, but a start time it does not have: the pid was reused.
      reused: name(`${other.pid}.${Number(start ?? 0) + 1}`),
      // The other process, as it is: its write may be under way.
      writing: name(`${other.pid}.${start ?? 'x'}`),
      // Older names without a start time, of a running process.
      older: `.${CACHE_FILE}.${other.pid}.abcd1234.tmp`,
    }
    for (const n of Object.values(names)) writeFileSync(join(dir, n), '{"kind":"sattrack-cache"')
    expect((await removeStaleTemporaries(dir, Date.now())).sort()).toEqual([names.dead, names.own, ...(start === null ? [] : [names.reused])].sort())
    expect(readdirSync(dir).sort()).toEqual([names.writing, names.older, ...(start === null ? [names.reused] : []), CACHE_FILE].sort())
    // Ten minutes on, any writer's temporary file is left over (a write takes well under a second).
    expect((await removeStaleTemporaries(dir, Date.now() + 11 * 60_000)).length).toBeGreaterThanOrEqual(2)
    expect(readdirSync(dir)).toEqual([CACHE_FILE])
  } finally {
    other.kill()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the rule for leftovers, case by case', () => {
  const now = Date.now()
  const name = (writer: string) => `.${CACHE_FILE}.${writer}.abcd1234.tmp`
  const running = (pid: number) => pid === 500
  const startOf = (pid: number) => (pid === 500 ? '777' : null)
  const reason = (n: string, mtime = now) => leftoverReason(n, mtime, now, '42.9', running, startOf)
  expect(reason(name('500.777'))).toBeNull()
  expect(reason(name('500.777'), now - 11 * 60_000)).toBe('older than ten minutes')
  expect(reason(name('500.778'))).toBe('its PID now belongs to another process')
  expect(reason(name('500.x'))).toBeNull() // no start time to compare (no /proc where it was written)
  expect(reason(name('42.9'))).toBe("named with this process's PID")
  expect(reason(name('501.777'))).toBe('its writer no longer runs')
  expect(reason(`.${CACHE_FILE}.oops.tmp`)).toBe('not named by a writer')
})

test('the bodies of a round share one budget: a group that would pass it is refused, the others are taken', async () => {
  const stationsBytes = Buffer.byteLength(ommJson(FRESH.stations))
  const { store, initial, refresher } = setup({ maxRoundBytes: stationsBytes + 100 })
  const outcome = await refresher.refreshNow()
  expect(outcome.kind).toBe('changed')
  expect(store.current.get(90000)!.elements.epochMs).toBeGreaterThan(initial.get(90000)!.elements.epochMs)
  expect(store.current.get(91000)!.elements).toBe(initial.get(91000)!.elements)
  expect(refresher.status().groupErrors).toEqual({ weather: expect.stringMatching(/^the body is larger than the 100-byte limit/) })
  refresher.stop()
})

test('the satellites a round may leave are bounded: a group that would grow the catalogue past the limit is refused, and a body is not read past it', async () => {
  // 30 held (stations 20, weather 10); the limit 25 is below: the catalogue may keep its 30, not grow.
  const grown = [...FRESH.stations, ...syntheticGroup(92000, 5, { epochDay: 152.5 })]
  const huge = [...FRESH.weather, ...syntheticGroup(93000, 40, { epochDay: 152.5 })]
  const base = stand((request) => {
    const group = new URL(request.url).searchParams.get('GROUP')!
    return new Response(ommJson(group === 'stations' ? grown : huge), { headers: { 'content-type': 'application/json' } })
  })
  const { store, initial, refresher } = setup({ url: `${base}/gp.php`, maxSatellites: 25 })
  expect((await refresher.refreshNow()).kind).toBe('failed')
  expect(refresher.status().groupErrors).toEqual({
    stations: 'taking its 25 satellites would leave 35 in the catalogue, more than the limit of 30',
    weather: 'more than 30 satellites, the limit (the rest of the body was not read)',
  })
  expect(store.current).toBe(initial)
  refresher.stop()
  // Within the limit, the same round is taken.
  const { store: next, refresher: again } = setup({ url: `${base}/gp.php`, maxSatellites: 35 })
  expect((await again.refreshNow()).kind).toBe('changed')
  expect(next.current.size).toBe(35)
  expect(again.status().groupErrors).toEqual({ weather: 'more than 35 satellites, the limit (the rest of the body was not read)' })
  again.stop()
})
