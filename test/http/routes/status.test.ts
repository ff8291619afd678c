/** GET /api/v1/service/status and /healthcheck, and swaps under concurrent requests. */
import { afterAll, describe, expect, test } from 'bun:test'
import { createApp } from '../../../src/http/app.ts'
import { buildCatalog, type Catalog } from '../../../src/domain/catalog/catalog.ts'
import { Refresher, warnIfStale } from '../../../src/io/refresh.ts'
import { CatalogStore } from '../../../src/domain/catalog/store.ts'
import { VERSION } from '../../../src/io/version.ts'
import { NO_AGE_LIMIT } from '../../../src/domain/orbit/validity.ts'
import { request } from '../../helpers/catalog.ts'
import { elementsOf, ommRecord, syntheticGroup } from '../../fixtures/synthetic.ts'
import { startMockUpstream } from '../../fixtures/upstream.ts'

const NOW = Date.UTC(2026, 5, 10, 12)
const DAY = 86_400_000
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

function catalogOf(groups: Record<string, ReturnType<typeof syntheticGroup>>, origin: Catalog['origin'], loadedAtMs = NOW): Catalog {
  return buildCatalog(
    Object.entries(groups).map(([group, records]) => ({ group, elements: records.map(elementsOf) })),
    origin,
    loadedAtMs,
  )
}

const quiet = { info() {}, warn() {}, error() {} }

/** The service on data obtained 39 days before NOW: one satellite, its elements 40 days old. */
function staleApp() {
  const records = [ommRecord({ NORAD_CAT_ID: 1, EPOCH: new Date(NOW - 40 * DAY).toISOString().replace('Z', '') })]
  const catalog = catalogOf({ stations: records }, { source: 'embedded', obtainedAtMs: NOW - 39 * DAY }, NOW)
  return createApp({ store: new CatalogStore(catalog), clock: () => NOW })
}

describe('GET /api/v1/service/status', () => {
  test('stale data: the freshness says so, and what to do', async () => {
    const app = staleApp()
    const { freshness } = (await request(app, '/api/v1/service/status')).body.catalog
    expect(freshness).toMatchObject({ dataAgeDays: 39, withinAgeLimit: 0, stale: true })
    expect(freshness.summary).toStartWith(`Data of ${new Date(NOW - 39 * DAY).toISOString().slice(0, 10)}, 39 days old: 0 of 1 satellites`)
    // The data's own time is its elements' (the median epoch), a day before it was obtained.
    expect(freshness.dataTime).toBe(new Date(NOW - 40 * DAY).toISOString())
    for (const way of ['--refresh-url', '--snapshot', 'make snapshot', `time=${freshness.dataTime}`]) expect(freshness.advice).toContain(way)
  })

  test('the advice says how many are refused, and "most" only when most are', async () => {
    // Data obtained 20 days ago (stale by age): elements 20 days old (within 30 days) and 40 days old (not), 3 and 1.
    const epochs = [20, 20, 20, 40].map((days) => NOW - days * DAY)
    const records = epochs.map((ms, i) => ommRecord({ NORAD_CAT_ID: i + 1, EPOCH: new Date(ms).toISOString().replace('Z', '') }))
    const adviceOf = async (catalog: Catalog) =>
      (await request(createApp({ store: new CatalogStore(catalog), clock: () => NOW }), '/api/v1/service/status')).body.catalog.freshness.advice as string
    const catalog = catalogOf({ stations: records }, { source: 'snapshot', obtainedAtMs: NOW - 20 * DAY }, NOW)
    expect(await adviceOf(catalog)).toContain('drift far from the truth, and more are refused as they age (1 of 4 now).')
    expect(await adviceOf(catalog.withPolicy(NO_AGE_LIMIT))).toContain('drift far from the truth, and with no age limit (--max-element-age off) they are given all the same.')
    const older = catalogOf({ stations: records.slice(2) }, { source: 'snapshot', obtainedAtMs: NOW - 20 * DAY }, NOW)
    expect(await adviceOf(older.withPolicy({ ...older.validity.policy, maxElementAgeMs: 10 * DAY }))).toContain('and all are refused (2 of 2 now).')
    expect(await adviceOf(catalogOf({ stations: [...records, ...records.slice(3).map((r) => ({ ...r, NORAD_CAT_ID: 9 }))] }, { source: 'snapshot', obtainedAtMs: NOW - 20 * DAY }, NOW))).toContain(
      'and more are refused as they age (2 of 5 now).',
    )
    expect(await adviceOf(catalogOf({ stations: [...records.slice(2), ...records.slice(3).map((r) => ({ ...r, NORAD_CAT_ID: 9 }))] }, { source: 'snapshot', obtainedAtMs: NOW - 20 * DAY }, NOW))).toContain(
      'and most are refused (2 of 3 now).',
    )
  })

  test('elements 21 days old obtained an hour ago (an upstream that is behind): stale as the log says it, and the advice says the source is behind', async () => {
    const records = [21, 21, 20.5].map((days, i) => ommRecord({ NORAD_CAT_ID: i + 1, EPOCH: new Date(NOW - days * DAY).toISOString().replace('Z', '') }))
    const catalog = catalogOf({ stations: records }, { source: 'refresh', obtainedAtMs: NOW - 3_600_000 }, NOW)
    const { freshness } = (await request(createApp({ store: new CatalogStore(catalog), clock: () => NOW }), '/api/v1/service/status')).body.catalog
    // All within the 30-day limit, the data obtained an hour ago: only the elements' age makes it stale.
    expect(freshness).toMatchObject({ withinAgeLimit: 3, dataAgeDays: 0.042, stale: true })
    expect(freshness.summary).toContain('its elements are older: median epoch')
    expect(freshness.advice).toContain('It was obtained recently but its source is behind: load data from one that is up to date: --refresh-url')
    // The log's warning after a refresh round says the same of these elements.
    const warned: string[] = []
    warnIfStale(catalog, NOW, { info() {}, warn: (msg: string) => warned.push(msg), error() {} })
    expect(warned).toEqual(['element sets are stale'])
    // 13 days old: neither.
    const younger = catalogOf({ stations: records.map((r) => ({ ...r, EPOCH: new Date(NOW - 13 * DAY).toISOString().replace('Z', '') })) }, { source: 'refresh', obtainedAtMs: NOW - 3_600_000 }, NOW)
    expect((await request(createApp({ store: new CatalogStore(younger), clock: () => NOW }), '/api/v1/service/status')).body.catalog.freshness).toMatchObject({ stale: false, advice: null })
  })

  test('a clock before the data (a board without a real-time clock): the summary and the advice say the clock is probably wrong', async () => {
    // Elements of 10 June; this machine says 1 January 1970, or 1 June (the data dated by when it was read: a date ahead of the clock is not believed).
    const records = syntheticGroup(1, 3, { epochDay: 161 })
    for (const clockMs of [0, NOW - 9 * DAY]) {
      const catalog = catalogOf({ stations: records }, { source: 'embedded', obtainedAtMs: clockMs }, clockMs)
      const { freshness } = (await request(createApp({ store: new CatalogStore(catalog), clock: () => clockMs }), '/api/v1/service/status')).body.catalog
      const day = new Date(clockMs).toISOString().slice(0, 10)
      expect(freshness.summary).toStartWith(`Data of ${day}, 0 days old (this machine's clock is before its elements: median epoch 2026-06-10; the clock is probably wrong): `)
      expect(freshness.advice).toStartWith("Set this machine's clock (NTP, timedatectl)")
      // Not also told to load newer data: the data is not old, "now" is wrong.
      expect(freshness.advice).not.toContain('Load newer data')
    }
    // A clock less than a day behind is a clock: nothing said.
    const near = catalogOf({ stations: records }, { source: 'embedded', obtainedAtMs: NOW - DAY / 2 }, NOW - DAY / 2)
    const { freshness } = (await request(createApp({ store: new CatalogStore(near), clock: () => NOW - DAY / 2 }), '/api/v1/service/status')).body.catalog
    expect(freshness.summary).not.toContain('clock')
    expect(freshness.advice).toBeNull()
  })

  test('files copied months after their elements (dated by their modification time): the advised time is the elements\', where they give positions', async () => {
    const epochs = [181, 180, 179.5].map((days) => NOW - days * DAY + 17_123)
    const records = epochs.map((ms, i) => ommRecord({ NORAD_CAT_ID: i + 1, EPOCH: new Date(ms).toISOString().replace('Z', '') }))
    const catalog = catalogOf({ stations: records }, { source: 'snapshot', obtainedAtMs: NOW - 3_600_000 }, NOW)
    const app = createApp({ store: new CatalogStore(catalog), clock: () => NOW })
    const { freshness } = (await request(app, '/api/v1/service/status')).body.catalog
    expect(freshness).toMatchObject({ dataAgeDays: 0.042, withinAgeLimit: 0, stale: true })
    // The files' date is not passed off as the elements' age.
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
    expect(freshness.summary).toStartWith(`Data of ${day(NOW - 3_600_000)}, 0 days old (its elements are older: median epoch ${day(NOW - 180 * DAY)}, 180 days old): 0 of 3 satellites`)
    // Two files of one copy (their times a millisecond apart): obtained together, no oldest group.
    // Two minutes apart: the oldest named, one date when it is the same day, and the elements' age.
    for (const [apartMs, dated] of [
      [1, `Data of ${day(NOW - 3_600_000)}, 0 days old (its elements are older`],
      [120_000, `Data of ${day(NOW - 3_600_000)} (the oldest, stations, 0 days old; its elements are older`],
    ] as const) {
      const twoFiles = catalogOf(
        { stations: records.slice(0, 1), weather: records.slice(1) },
        { source: 'snapshot', obtainedAtMs: NOW - 3_600_000, groupsObtainedAtMs: { stations: NOW - 3_600_000, weather: NOW - 3_600_000 + apartMs } },
        NOW,
      )
      const { freshness: two } = (await request(createApp({ store: new CatalogStore(twoFiles), clock: () => NOW }), '/api/v1/service/status')).body.catalog
      expect(two.summary).toStartWith(dated)
      expect(two.oldestGroups).toEqual(apartMs === 1 ? [] : ['stations'])
    }
    // The median epoch, to the minute.
    expect(freshness.dataTime).toBe(new Date(NOW - 180 * DAY).toISOString())
    expect(freshness.advice).toContain(`time=${freshness.dataTime}`)
    const nearby = (await request(app, `/api/v1/satellites/nearby?latitude=0&longitude=0&time=${freshness.dataTime}`)).body
    expect(nearby.metadata.leftOut).toEqual({ elementAge: 0, decayed: 0 })
    // At the file's time, every satellite is refused by age.
    const atFileTime = (await request(app, `/api/v1/satellites/nearby?latitude=0&longitude=0&time=${new Date(NOW - 3_600_000).toISOString()}`)).body
    expect(atFileTime.metadata.leftOut).toEqual({ elementAge: 3, decayed: 0 })
  })

  test('groups obtained at different times (a partial refresh): the freshness describes the oldest data served', async () => {
    const records = [
      ommRecord({ NORAD_CAT_ID: 1, EPOCH: new Date(NOW - DAY / 2).toISOString().replace('Z', '') }),
      ommRecord({ NORAD_CAT_ID: 2, EPOCH: new Date(NOW - 101 * DAY).toISOString().replace('Z', '') }),
    ]
    // stations refreshed an hour ago; weather kept from a snapshot obtained 100 days ago (its refresh keeps failing).
    const catalog = catalogOf(
      { stations: records.slice(0, 1), weather: records.slice(1) },
      { source: 'refresh', obtainedAtMs: NOW - 100 * DAY, groupsObtainedAtMs: { stations: NOW - 3_600_000, weather: NOW - 100 * DAY } },
      NOW,
    )
    const app = createApp({ store: new CatalogStore(catalog), clock: () => NOW })
    const { catalog: status } = (await request(app, '/api/v1/service/status')).body
    expect(status.obtainedAt).toBe(new Date(NOW - 100 * DAY).toISOString())
    expect(status.groupsObtainedAt).toEqual({ stations: new Date(NOW - 3_600_000).toISOString(), weather: new Date(NOW - 100 * DAY).toISOString() })
    expect(status.freshness).toMatchObject({
      obtainedAt: new Date(NOW - 100 * DAY).toISOString(),
      newestObtainedAt: new Date(NOW - 3_600_000).toISOString(),
      oldestGroups: ['weather'],
      dataAgeDays: 100,
      stale: true,
    })
    expect(status.freshness.summary).toStartWith(
      `Data of ${new Date(NOW - 100 * DAY).toISOString().slice(0, 10)} to ${new Date(NOW - 3_600_000).toISOString().slice(0, 10)} (the oldest, weather, 100 days old): 1 of 2 satellites`,
    )
  })

  test('reports the catalogue: source, counts per group, load time and element ages', async () => {
    // Three epochs: 1, 3 and 20 days before NOW.
    const records = [
      ommRecord({ NORAD_CAT_ID: 1, EPOCH: new Date(NOW - 1 * DAY).toISOString().replace('Z', '') }),
      ommRecord({ NORAD_CAT_ID: 2, EPOCH: new Date(NOW - 3 * DAY).toISOString().replace('Z', '') }),
      ommRecord({ NORAD_CAT_ID: 3, EPOCH: new Date(NOW - 20 * DAY).toISOString().replace('Z', '') }),
    ]
    const catalog = catalogOf({ stations: records.slice(0, 2), weather: records.slice(1) }, { source: 'embedded', obtainedAtMs: NOW - DAY }, NOW - 60_000)
    const app = createApp({ store: new CatalogStore(catalog), clock: () => NOW, startedAtMs: NOW - 90_500 })
    const { status, headers, body } = await request(app, '/api/v1/service/status')
    expect(status).toBe(200)
    expect(headers.get('content-type')).toContain('application/json')
    expect(body).toEqual({
      version: VERSION,
      uptimeSeconds: 90,
      catalog: {
        source: 'embedded',
        satellites: 3,
        groups: { stations: 2, weather: 2 },
        loadedAt: new Date(NOW - 60_000).toISOString(),
        obtainedAt: new Date(NOW - DAY).toISOString(),
        groupsObtainedAt: { stations: new Date(NOW - DAY).toISOString(), weather: new Date(NOW - DAY).toISOString() },
        epochs: { oldest: new Date(NOW - 20 * DAY).toISOString(), newest: new Date(NOW - DAY).toISOString(), medianAgeDays: 3 },
        freshness: {
          obtainedAt: new Date(NOW - DAY).toISOString(),
          newestObtainedAt: new Date(NOW - DAY).toISOString(),
          oldestGroups: [],
          dataAgeDays: 1,
          maxElementAgeDays: 30,
          withinAgeLimit: 3,
          decayed: 0,
          stale: false,
          summary:
            `Data of ${new Date(NOW - DAY).toISOString().slice(0, 10)}, 1 day old: 3 of 3 satellites have elements that can give a position now ` +
            "(positions are given within 30 days of each element set's epoch).",
          dataTime: new Date(NOW - 3 * DAY).toISOString(),
          advice: null,
        },
      },
      refresh: {
        enabled: false,
        url: null,
        intervalSeconds: null,
        format: null,
        groups: [],
        lastAttemptAt: null,
        lastSuccessAt: null,
        lastError: null,
        nextAttemptAt: null,
        consecutiveFailures: 0,
        inProgress: false,
        cacheError: null,
        groupErrors: {},
        missingGroups: [],
      },
    })
  })

  test('reports the refresh: configuration, last attempt, success, error and next attempt', async () => {
    const upstream = startMockUpstream({ stations: syntheticGroup(90000, 4, { epochDay: 160 }) })
    try {
      let now = NOW
      const store = new CatalogStore(catalogOf({ stations: syntheticGroup(90000, 4, { epochDay: 150 }) }, { source: 'snapshot', obtainedAtMs: NOW - 9 * DAY }))
      const refresher = new Refresher({
        store,
        settings: { url: upstream.url, intervalMs: 2 * 3_600_000, groups: ['stations'], format: 'json', timeoutMs: 5_000 },
        clock: () => now,
        log: quiet,
      })
      const app = createApp({ store, clock: () => now, refreshStatus: () => refresher.status() })
      refresher.start()
      await refresher.refreshNow()
      let { body } = await request(app, '/api/v1/service/status')
      expect(body.catalog.source).toBe('refresh')
      expect(body.refresh).toMatchObject({
        enabled: true,
        url: upstream.url,
        intervalSeconds: 7200,
        format: 'json',
        groups: ['stations'],
        lastAttemptAt: new Date(NOW).toISOString(),
        lastSuccessAt: new Date(NOW).toISOString(),
        lastError: null,
        nextAttemptAt: new Date(NOW + 7_200_000).toISOString(),
      })

      now += 7_200_000
      upstream.setFault({ kind: 'status', status: 500 })
      await refresher.refreshNow()
      ;({ body } = await request(app, '/api/v1/service/status'))
      expect(body.catalog.source).toBe('refresh')
      expect(body.refresh.lastError).toMatch(/^stations: HTTP 500/)
      expect(body.refresh.lastAttemptAt).toBe(new Date(now).toISOString())
      expect(body.refresh.lastSuccessAt).toBe(new Date(NOW).toISOString())
      expect(body.refresh.nextAttemptAt).toBe(new Date(now + 60_000).toISOString()) // backed off: a minute after the first failure
      expect(body.refresh.groupErrors).toEqual({ stations: expect.stringMatching(/^HTTP 500 \(9 bytes\) from /) })
      for (const key of ['lastAttemptAt', 'lastSuccessAt', 'nextAttemptAt']) expect(body.refresh[key]).toMatch(ISO_MS)
      // Three weeks of failures: stale, and the advice says the refresh is on and where to see why, not to turn it on.
      now += 21 * DAY
      await refresher.refreshNow()
      ;({ body } = await request(app, '/api/v1/service/status'))
      expect(body.catalog.freshness.stale).toBe(true)
      expect(body.catalog.freshness.advice).toContain('Load newer data: the refresh is on, so see why it brings nothing newer (GET /api/v1/service/status: refresh.lastError, refresh.groupErrors')
      expect(body.catalog.freshness.advice).not.toContain('--refresh-url to keep it fresh')
      expect((await request(app, '/openapi/json')).body.info.description).toContain('the refresh is on, so see why')
      refresher.stop()
    } finally {
      await upstream.stop()
    }
  })

  test('HEAD works and other methods are 405; the healthcheck is unchanged', async () => {
    const app = createApp({ store: new CatalogStore(catalogOf({ g: syntheticGroup(1, 2) }, { source: 'embedded', obtainedAtMs: 0 })) })
    expect((await request(app, '/api/v1/service/status', { method: 'HEAD' })).status).toBe(200)
    const post = await request(app, '/api/v1/service/status', { method: 'POST' })
    expect(post.status).toBe(405)
    expect(post.body).toEqual({ message: expect.any(String), statusCode: 405 })
    const health = await request(app, '/api/v1/service/healthcheck')
    expect(health).toMatchObject({ status: 200, body: { message: 'OK' } })
  })

  test('an empty catalogue has null epochs', async () => {
    const app = createApp({ store: new CatalogStore(catalogOf({}, { source: 'embedded', obtainedAtMs: 0 })), clock: () => NOW })
    const { body } = await request(app, '/api/v1/service/status')
    expect(body.catalog.epochs).toEqual({ oldest: null, newest: null, medianAgeDays: null })
    expect(body.catalog.satellites).toBe(0)
  })
})

describe('a swap under concurrent requests', () => {
  const upstream = startMockUpstream({ big: syntheticGroup(100_000, 3000, { epochDay: 160 }), small: syntheticGroup(200_000, 50, { epochDay: 160 }) })
  afterAll(() => upstream.stop())

  test('every answer comes whole from the old catalogue or whole from the new one', async () => {
    const old = catalogOf({ big: syntheticGroup(100_000, 2500, { epochDay: 150 }), small: syntheticGroup(200_000, 40, { epochDay: 150 }) }, { source: 'embedded', obtainedAtMs: 0 })
    const store = new CatalogStore(old)
    const refresher = new Refresher({
      store,
      settings: { url: upstream.url, intervalMs: 3_600_000, groups: ['big', 'small'], format: 'csv', timeoutMs: 10_000 },
      log: quiet,
    })
    const app = createApp({ store, clock: () => NOW })
    const round = refresher.refreshNow()
    const answers: { noradId: number; epoch: string }[][] = []
    let done = false
    round.finally(() => {
      done = true
    })
    const ask = async () => {
      const response = await app.handle(new Request('http://localhost/api/v1/satellites'))
      const body = await response.json()
      expect(body.metadata.total).toBe(body.data.length)
      answers.push(body.data.map((s: { noradId: number; epoch: string }) => ({ noradId: s.noradId, epoch: s.epoch })))
    }
    const client = async () => {
      while (!done) {
        await ask()
        await Bun.sleep(0)
      }
    }
    await Promise.all([client(), client(), client(), round])
    await ask() // and one after the swap
    const fresh = store.current
    expect(fresh).not.toBe(old)
    const shapeOf = (catalog: Catalog) => catalog.satellites.map((s) => ({ noradId: s.noradId, epoch: new Date(s.elements.epochMs).toISOString() }))
    const oldShape = shapeOf(old)
    const freshShape = shapeOf(fresh)
    let oldSeen = 0
    let freshSeen = 0
    for (const answer of answers) {
      // Whole lists compared: one satellite from the other catalogue would break the equality.
      if (answer.length === oldShape.length) {
        expect(answer).toEqual(oldShape)
        oldSeen++
      } else {
        expect(answer).toEqual(freshShape)
        freshSeen++
      }
    }
    expect(oldSeen).toBeGreaterThan(0) // requests answered while the round was fetching
    expect(freshSeen).toBeGreaterThan(0)
    expect(oldSeen + freshSeen).toBe(answers.length)
    expect(answers.length).toBeGreaterThan(3)
  })
})

describe('the OpenAPI description', () => {
  test('states the validity rules and the data’s date and age when served, as the status does', async () => {
    const app = staleApp()
    const { description } = (await request(app, '/openapi/json')).body.info
    const { summary, stale, advice } = (await request(app, '/api/v1/service/status')).body.catalog.freshness
    // The same sentences, decays counted: what the data is, and (stale) what that means and what to do.
    expect(summary).toStartWith(`Data of ${new Date(NOW - 39 * DAY).toISOString().slice(0, 10)}, 39 days old: 0 of 1 satellites have elements that can give a position now (`)
    expect(description).toContain('--max-element-age')
    expect(description).toContain('below 80 km')
    expect(description).toContain('`metadata.leftOut`')
    expect(stale).toBe(true)
    expect(advice).toContain('--snapshot')
    expect(description).toEndWith(`Now: ${summary} ${advice}`)
  })

  test('with fresh data, the sentence alone', async () => {
    const records = [ommRecord({ NORAD_CAT_ID: 1, EPOCH: new Date(NOW - DAY).toISOString().replace('Z', '') })]
    const catalog = catalogOf({ stations: records }, { source: 'embedded', obtainedAtMs: NOW - DAY / 2 }, NOW)
    const app = createApp({ store: new CatalogStore(catalog), clock: () => NOW })
    const { description } = (await request(app, '/openapi/json')).body.info
    const { summary, advice } = (await request(app, '/api/v1/service/status')).body.catalog.freshness
    expect(advice).toBeNull()
    expect(description).toEndWith(`Now: ${summary}`)
  })
})

describe('the start log\'s sentence (freshness without the decay search)', () => {
  test('counts the age limit alone and says where decays are counted; the status, with decays, in the same words otherwise', async () => {
    const { freshness } = await import('../../../src/domain/orbit/freshness.ts')
    const { embeddedCatalog } = await import('../../helpers/catalog.ts')
    const { NO_AGE_LIMIT } = await import('../../../src/domain/orbit/validity.ts')
    // Months after the data with no age limit: by age every satellite could give a position, yet hundreds have decayed.
    const catalog = (await embeddedCatalog()).withPolicy(NO_AGE_LIMIT)
    const at = Date.UTC(2026, 10, 25)
    const withDecays = freshness(catalog, at)
    const byAge = freshness(catalog, at, { countDecay: false })
    expect(withDecays.decayed).toBeGreaterThan(100)
    expect(byAge.summary).toContain(`${catalog.size} of ${catalog.size} satellites have elements that can give a position now by age (`)
    expect(byAge.summary).toEndWith('; decays are not counted here: GET /api/v1/service/status counts them).')
    expect(withDecays.summary).toContain(`${catalog.size - withDecays.decayed} of ${catalog.size} satellites have elements that can give a position now (`)
    expect(withDecays.summary).toContain(`; ${withDecays.decayed} have decayed).`)
  })
})
