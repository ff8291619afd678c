/** The memory trim collects only after periods that served requests. */
import { describe, expect, test } from 'bun:test'
import { createApp } from '../../src/app.ts'
import { CatalogStore } from '../../src/catalog/store.ts'
import { MemoryTrim } from '../../src/memory.ts'
import { appFor, embeddedCatalog, request } from '../helpers/catalog.ts'

describe('MemoryTrim', () => {
  test('collects after busy periods, never after idle ones', () => {
    const activity = { requests: 7 }
    let collections = 0
    const trim = new MemoryTrim(activity, () => collections++)
    expect(trim.tick()).toBe(false) // what came before the trim started does not count
    activity.requests += 5
    expect(trim.tick()).toBe(true)
    expect(trim.tick()).toBe(false)
    expect(trim.tick()).toBe(false)
    activity.requests++
    expect(trim.tick()).toBe(true)
    expect(collections).toBe(2)
  })

  test('start looks periodically until stopped', async () => {
    const activity = { requests: 0 }
    let collections = 0
    const stop = new MemoryTrim(activity, () => collections++).start(5)
    activity.requests++
    for (let waited = 0; collections === 0 && waited < 5000; waited += 5) await Bun.sleep(5)
    expect(collections).toBe(1)
    stop()
    activity.requests++
    await Bun.sleep(50)
    expect(collections).toBe(1)
  })

  test('the app counts every request it receives, answered or refused', async () => {
    const activity = { requests: 0 }
    const app = createApp({ store: new CatalogStore(await embeddedCatalog()), clock: () => Date.UTC(2026, 4, 31), activity })
    expect((await request(app, '/api/v1/service/healthcheck')).status).toBe(200)
    expect((await request(app, '/no/such/path')).status).toBe(404)
    expect((await request(app, '/api/v1/satellites/nearby?latitude=500&longitude=0')).status).toBe(400)
    expect(activity.requests).toBe(3)
    // Without an activity object nothing is counted and nothing fails.
    expect((await request(appFor(await embeddedCatalog()), '/api/v1/service/healthcheck')).status).toBe(200)
  })
})
