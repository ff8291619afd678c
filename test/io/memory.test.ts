/** The memory trim: nothing after idle periods; a collection after busy ones, synchronous only when RSS has outgrown its headroom. */
import { describe, expect, test } from 'bun:test'
import { createApp } from '../../src/http/app.ts'
import { CatalogStore } from '../../src/domain/catalog/store.ts'
import { FLOOR_WINDOW, HEAP_OPTIONS, MemoryTrim, relaunchCommand } from '../../src/io/memory.ts'
import { appFor, embeddedCatalog, request } from '../helpers/catalog.ts'

const MB = 2 ** 20

describe('MemoryTrim', () => {
  test('collects after busy periods only, without waiting while RSS stays within its headroom', () => {
    const activity = { requests: 7 }
    let rss = 100 * MB
    const collections: boolean[] = []
    const trim = new MemoryTrim(activity, { rss: () => rss, collect: (wait) => collections.push(wait), headroomBytes: 30 * MB })
    expect(trim.tick()).toBe('idle') // what came before the trim started does not count
    activity.requests += 5
    rss = 120 * MB
    expect(trim.tick()).toBe('async')
    expect(trim.tick()).toBe('idle')
    activity.requests++
    rss = 131 * MB // over 100 + 30: a full collection
    expect(trim.tick()).toBe('sync')
    rss = 110 * MB
    activity.requests++
    expect(trim.tick()).toBe('async')
    activity.requests++
    rss = 129 * MB // within 100 + 30: the least a collection has left is the floor
    expect(trim.tick()).toBe('async')
    expect(collections).toEqual([false, true, false, false])
  })

  test('the floor is the least RSS one of the last FLOOR_WINDOW full collections left: answers in flight at one do not raise it', () => {
    const activity = { requests: 0 }
    let rss = 100 * MB
    const trim = new MemoryTrim(activity, { rss: () => rss, collect: () => {}, headroomBytes: 10 * MB })
    const tick = (at: number) => {
      activity.requests++
      rss = at * MB
      return trim.tick()
    }
    // Each full collection leaves more behind (answers in flight): the floor stays at 100.
    expect([tick(111), tick(115), tick(119), tick(109)]).toEqual(['sync', 'sync', 'sync', 'async'])
    // Live data that really grew: the floor follows once FLOOR_WINDOW collections have all left more.
    const rising = Array.from({ length: FLOOR_WINDOW }, () => tick(150))
    expect(rising).toEqual(Array(FLOOR_WINDOW).fill('sync'))
    expect(tick(159)).toBe('async')
    expect(tick(161)).toBe('sync')
  })

  test('start looks periodically until stopped', async () => {
    const activity = { requests: 0 }
    let collections = 0
    const stop = new MemoryTrim(activity, { collect: () => collections++ }).start(5)
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

describe('relaunchCommand', () => {
  const facts = { env: { PATH: '/usr/bin', UNSET: undefined }, execArgv: [] as string[] }

  test('the compiled executable runs itself again with its own arguments and the heap options added', () => {
    const command = relaunchCommand({ ...facts, argv: ['bun', '/$bunfs/root/sattrack', '--port', '8080'], execPath: '/opt/sattrack', main: '/$bunfs/root/sattrack' })
    expect(command).toEqual({ file: '/opt/sattrack', args: ['/opt/sattrack', '--port', '8080'], env: { PATH: '/usr/bin', ...HEAP_OPTIONS } })
  })

  test('from source: the runtime with its flags, the entry and the arguments', () => {
    const command = relaunchCommand({ ...facts, execArgv: ['--smol'], argv: ['/usr/bin/bun', '/src/main.ts', '--port', '0'], execPath: '/usr/bin/bun', main: '/src/main.ts' })
    expect(command?.args).toEqual(['/usr/bin/bun', '--smol', '/src/main.ts', '--port', '0'])
  })

  const compiled = { argv: ['bun', '/$bunfs/root/sattrack'], execPath: '/opt/sattrack', main: '/$bunfs/root/sattrack' }

  test('an option the operator set keeps its value; the others are added', () => {
    for (const name of Object.keys(HEAP_OPTIONS)) {
      const command = relaunchCommand({ ...facts, ...compiled, env: { PATH: '/usr/bin', [name]: '2' } })
      expect(command?.env).toEqual({ PATH: '/usr/bin', ...HEAP_OPTIONS, [name]: '2' })
    }
  })

  test('nothing to do once every option is in the environment (the second run, or the operator chose them all)', () => {
    const env = Object.fromEntries(Object.keys(HEAP_OPTIONS).map((name) => [name, '2']))
    expect(relaunchCommand({ ...facts, ...compiled, env })).toBeNull()
    expect(relaunchCommand({ ...facts, ...compiled, env: { ...HEAP_OPTIONS } })).toBeNull()
  })
})
