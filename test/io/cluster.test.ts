/**
 * The supervisor of --workers (src/io/cluster.ts) with workers played by the
 * test: the start, the one catalogue, the version check, the replacement of a
 * worker that dies, the instance-wide rate budgets and stream slots, the
 * gathering of /metrics and the stop. The real processes: test/e2e/workers.test.ts.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Catalog } from '../../src/domain/catalog/catalog.ts'
import { catalogFromTransfer, catalogTransfer } from '../../src/domain/catalog/transfer.ts'
import { buildCatalog } from '../../src/domain/catalog/catalog.ts'
import { RateLimiter } from '../../src/http/plugins/rate-limit.ts'
import { StreamSlots, Supervisor, type SupervisorOptions, type ToSupervisor, type ToWorker, type WorkerSource } from '../../src/io/cluster.ts'
import { disabledRefreshStatus } from '../../src/domain/catalog/refresh.ts'
import { embeddedCatalog } from '../helpers/catalog.ts'

let catalog: Catalog
let other: Catalog
beforeAll(async () => {
  catalog = await embeddedCatalog()
  // Another catalogue: the ISS alone.
  other = buildCatalog([{ group: 'stations', elements: [catalog.get(25544)!.elements] }], catalog.origin, 0)
})

/** A worker the test plays: what it was sent, how it was started, and its end. */
interface FakeWorker {
  slot: number
  source: WorkerSource
  pid: number
  inbox: ToWorker[]
  signals: string[]
  say: (message: ToSupervisor) => void
  die: (code: number | null, signal?: string | null) => void
}

function harness(
  options: {
    count?: number
    rate?: RateLimiter | null
    streams?: { max: number; perClient: number }
    keepCatalogue?: boolean
    refreshState?: SupervisorOptions['refreshState']
    heartbeat?: SupervisorOptions['heartbeat']
  } = {},
) {
  const workers: FakeWorker[] = []
  const logs: { level: string; msg: string; fields?: Record<string, unknown> }[] = []
  const caught: { catalog?: Catalog; cacheGroupsUsed?: string[] } = {}
  let pid = 1000
  const supervisor = new Supervisor({
    count: options.count ?? 2,
    spawn: (slot, source, onMessage) => {
      let exit!: (value: { code: number | null; signal: string | null }) => void
      const worker: FakeWorker = {
        slot,
        source,
        pid: ++pid,
        inbox: [],
        signals: [],
        say: onMessage,
        die: (code, signal = null) => exit({ code, signal }),
      }
      workers.push(worker)
      return {
        pid: worker.pid,
        send: (message) => worker.inbox.push(message),
        kill: (signal = 'SIGTERM') => {
          worker.signals.push(signal)
          if (signal === 'SIGKILL') exit({ code: null, signal })
        },
        exited: new Promise((resolve) => {
          exit = resolve
        }),
      }
    },
    log: {
      info: (msg, fields) => logs.push({ level: 'info', msg, fields }),
      warn: (msg, fields) => logs.push({ level: 'warn', msg, fields }),
      error: (msg, fields) => logs.push({ level: 'error', msg, fields }),
    },
    rate: options.rate ?? null,
    streams: options.streams ?? { max: 100, perClient: 25 },
    onCatalog: (c, used) => {
      caught.catalog = c
      caught.cacheGroupsUsed = used
    },
    stopTimeoutMs: 200,
    restartDelayMs: 1,
    keepCatalogue: options.keepCatalogue,
    refreshState: options.refreshState,
    heartbeat: options.heartbeat,
  })
  /** The replies the supervisor sent a worker, by request id. */
  const replyTo = (w: FakeWorker, id: number) => w.inbox.find((m) => m.t === 'reply' && m.id === id) as { value: unknown } | undefined
  return { supervisor, workers, logs, caught, replyTo }
}

/** Starts two workers from the files, the first sending its catalogue: the instance is up. */
async function started(h: ReturnType<typeof harness>) {
  const up = h.supervisor.start()
  const [a, b] = h.workers
  a!.say({ t: 'listening' })
  expect(a!.inbox).toEqual([{ t: 'send-catalog' }])
  a!.say({ t: 'catalog', transfer: catalogTransfer(catalog), cacheGroupsUsed: ['geo'] })
  a!.say({ t: 'version', version: catalog.version })
  b!.say({ t: 'listening' })
  b!.say({ t: 'version', version: catalog.version })
  await up
  return [a!, b!] as const
}

/** Waits until `done` holds, 2 s at most (then the test's own expectations fail). */
async function until(done: () => boolean) {
  for (let k = 0; k < 2000 && !done(); k++) await Bun.sleep(1)
}

/** Plays workers that answer the supervisor's asks (those `workers` gives, looked at every millisecond), counting the asks each answered. */
function answeringAsks(workers: () => FakeWorker[]) {
  const answered = new Map<FakeWorker, number>()
  const timer = setInterval(() => {
    for (const w of workers()) {
      const asks = w.inbox.filter((m) => m.t === 'ping').length
      answered.set(w, (answered.get(w) ?? 0) + asks)
      if (asks > 0) w.say({ t: 'pong' })
      w.inbox.length = 0
    }
  }, 1)
  return { answered: (w: FakeWorker) => answered.get(w) ?? 0, stop: () => clearInterval(timer) }
}

describe('Supervisor', () => {
  test('starts every worker from the files and takes the first listening one\'s catalogue; up once all listen with the same version', async () => {
    const h = harness()
    let up = false
    const start = h.supervisor.start().then(() => {
      up = true
    })
    expect(h.workers.map((w) => [w.slot, w.source])).toEqual([
      [1, 'files'],
      [2, 'files'],
    ])
    const [a, b] = h.workers
    b!.say({ t: 'listening' })
    // The first to listen is asked for the catalogue.
    expect(b!.inbox).toEqual([{ t: 'send-catalog' }])
    b!.say({ t: 'catalog', transfer: catalogTransfer(catalog), cacheGroupsUsed: ['geo', 'starlink'] })
    expect(h.caught.catalog!.version).toBe(catalog.version)
    expect(h.caught.cacheGroupsUsed).toEqual(['geo', 'starlink'])
    await Bun.sleep(1)
    expect(up).toBe(false) // worker 1 does not listen yet
    a!.say({ t: 'listening' })
    a!.say({ t: 'version', version: catalog.version })
    await start
    expect(up).toBe(true)
    expect(a!.inbox.filter((m) => m.t === 'catalog')).toEqual([]) // same version: nothing sent
    expect(h.supervisor.listening).toBe(2)
  })

  test('a worker that started with another catalogue is sent the instance\'s', async () => {
    const h = harness()
    const up = h.supervisor.start()
    const [a, b] = h.workers
    a!.say({ t: 'listening' })
    a!.say({ t: 'catalog', transfer: catalogTransfer(catalog), cacheGroupsUsed: [] })
    b!.say({ t: 'listening' })
    b!.say({ t: 'version', version: other.version })
    const sent = b!.inbox.find((m) => m.t === 'catalog') as { transfer: ReturnType<typeof catalogTransfer> }
    expect(catalogFromTransfer(sent.transfer).version).toBe(catalog.version)
    expect(h.logs.some((l) => l.level === 'warn' && l.fields?.worker === 2 && l.fields?.version === other.version)).toBe(true)
    await up
  })

  test('a swap (refresh, reload) reaches every listening worker', async () => {
    const h = harness()
    const [a, b] = await started(h)
    h.supervisor.swap(other)
    for (const w of [a, b]) {
      const last = w.inbox.at(-1) as { t: string; transfer: ReturnType<typeof catalogTransfer> }
      expect(last.t).toBe('catalog')
      expect(last.transfer.version).toBe(other.version)
    }
    expect(h.supervisor.catalog).toBe(other)
  })

  test('a worker that dies is logged and replaced, from the supervisor\'s catalogue; its stream slots are freed', async () => {
    const h = harness({ streams: { max: 2, perClient: 2 } })
    const [a] = await started(h)
    a.say({ t: 'stream', id: 7, client: 'x' })
    a.say({ t: 'stream', id: 8, client: 'y' })
    expect(h.replyTo(a, 8)!.value).toBe('ok')
    a.die(null, 'SIGKILL')
    await Bun.sleep(20)
    const died = h.logs.find((l) => l.msg.startsWith('a worker died'))!
    expect(died).toMatchObject({ level: 'error', fields: { worker: 1, pid: a.pid, exitCode: null, signal: 'SIGKILL' } })
    const replacement = h.workers[2]!
    expect([replacement.slot, replacement.source]).toEqual([1, 'supervisor'])
    replacement.say({ t: 'want-catalog' })
    const sent = replacement.inbox.find((m) => m.t === 'catalog') as { transfer: ReturnType<typeof catalogTransfer> }
    expect(sent.transfer.version).toBe(catalog.version)
    // The dead worker's two streams no longer count.
    replacement.say({ t: 'listening' })
    replacement.say({ t: 'stream', id: 1, client: 'z' })
    expect(h.replyTo(replacement, 1)!.value).toBe('ok')
  })

  test('while a catalogue sent to a worker is not reported swapped in (read slowly under load), one ask in five counts', async () => {
    const h = harness({ heartbeat: { everyMs: 20, stuckAfter: 4 } })
    const [a, b] = await started(h)
    const asks = (w: FakeWorker) => w.inbox.filter((m) => m.t === 'ping').length
    h.supervisor.swap(other)
    // Ten asks each, unanswered: two of them counted, neither worker killed (four would be, without the swap).
    await until(() => asks(a) >= 10 && asks(b) >= 10)
    expect([a.signals, b.signals]).toEqual([[], []])
    // b reports the catalogue swapped in: its asks count again, and it is killed after a few more; a has had 20 asks at most by then.
    b.say({ t: 'swapped', version: other.version })
    const bAsks = asks(b)
    await until(() => b.signals.length > 0)
    expect(b.signals).toEqual(['SIGKILL'])
    expect(asks(b) - bAsks).toBeLessThanOrEqual(5)
    expect(asks(a)).toBeLessThan(20)
    expect(a.signals).toEqual([])
    await h.supervisor.stop()
  })

  test('a worker started in place of one that died is sent the refresh state as it listens, not at the state\'s next change', async () => {
    const state = { status: { ...disabledRefreshStatus(), enabled: true, lastSuccessAt: '2026-11-26T19:09:26.594Z' }, counts: { succeeded: 1, failed: 0 } }
    const h = harness({ refreshState: () => state })
    const [a] = await started(h)
    await Bun.sleep(700) // the mirror's first round: every worker gets the state once
    expect(a.inbox.filter((m) => m.t === 'refresh')).toEqual([{ t: 'refresh', state }])
    a.die(null, 'SIGKILL')
    await Bun.sleep(20)
    const replacement = h.workers[2]!
    expect(replacement.inbox.filter((m) => m.t === 'refresh')).toEqual([])
    replacement.say({ t: 'listening' })
    expect(replacement.inbox.filter((m) => m.t === 'refresh')).toEqual([{ t: 'refresh', state }])
  })

  test('a worker that answers none of the supervisor\'s asks in a row (its event loop stuck) is killed, logged and replaced; one that answers is kept', async () => {
    const h = harness({ heartbeat: { everyMs: 5, stuckAfter: 4 } })
    const [a, b] = await started(h)
    // Every worker answers every ask (a's replacement too) but a (stopped, or busy for ever).
    const answering = answeringAsks(() => h.workers.filter((w) => w !== a))
    await Bun.sleep(100)
    answering.stop()
    expect(a.signals).toEqual(['SIGKILL'])
    expect(b.signals).toEqual([])
    expect(h.logs.filter((l) => l.msg.startsWith('a worker stopped answering'))).toEqual([
      { level: 'error', msg: 'a worker stopped answering; killing it to start another in its place', fields: { worker: 1, pid: a.pid, unansweredAsks: 4, everyMs: 5 } },
    ])
    expect(h.logs.find((l) => l.msg.startsWith('a worker died'))!.fields).toMatchObject({ worker: 1, signal: 'SIGKILL' })
    expect(h.workers.map((w) => w.slot)).toEqual([1, 2, 1])
    await h.supervisor.stop()
  })

  test('a worker started in place of another that neither answers nor listens is killed and replaced in turn; one slow to listen that answers is kept', async () => {
    const h = harness({ heartbeat: { everyMs: 5, stuckAfter: 4 } })
    const [a, b] = await started(h)
    const stuck = new Set<FakeWorker>()
    const answering = answeringAsks(() => h.workers.filter((w) => !stuck.has(w)))
    // a's replacement hangs before it listens (reading its catalogue for ever, say).
    const next = h.workers.length
    a.die(1)
    await until(() => h.workers.length > next)
    const hung = h.workers[next]!
    stuck.add(hung)
    await until(() => hung.signals.length > 0)
    expect(hung.signals).toEqual(['SIGKILL'])
    expect(h.logs.filter((l) => l.msg.startsWith('a worker stopped answering')).map((l) => l.fields)).toEqual([
      { worker: 1, pid: hung.pid, unansweredAsks: 4, everyMs: 5, listening: false },
    ])
    // Its replacement answers but does not listen yet: asked as many times as would kill a stuck one, and kept.
    await until(() => h.workers.length > next + 1)
    const slow = h.workers[next + 1]!
    await until(() => answering.answered(slow) >= 12)
    answering.stop()
    expect(answering.answered(slow)).toBeGreaterThanOrEqual(12)
    expect(slow.signals).toEqual([])
    expect(b.signals).toEqual([])
    expect(h.workers.map((w) => w.slot)).toEqual([1, 2, 1, 1])
    await h.supervisor.stop()
  })

  test('a worker stuck before the instance is up (answering none of the asks) is killed and fails the start; one slow to start that answers does not', async () => {
    const h = harness({ heartbeat: { everyMs: 5, stuckAfter: 4 } })
    const start = h.supervisor.start()
    let failed = false
    start.catch(() => (failed = true))
    const [a, b] = h.workers
    // a answers every ask without listening yet (reading a large catalogue, say); b answers none.
    const answering = answeringAsks(() => [a!])
    await expect(start).rejects.toMatchObject({ message: 'worker 2 exited with code SIGKILL' })
    answering.stop()
    expect(failed).toBe(true)
    expect(answering.answered(a!)).toBeGreaterThanOrEqual(4)
    expect(a!.signals).not.toContain('SIGKILL')
    expect(b!.signals).toEqual(['SIGKILL'])
    expect(h.logs.filter((l) => l.level === 'error').map((l) => [l.msg, l.fields?.worker])).toEqual([
      ['a worker stopped answering before the instance was up; killing it', 2],
      ['a worker exited before the instance was up; stopping', 2],
    ])
    await h.supervisor.stop()
  })

  test('a worker that exits before it listens fails the start, with its exit code', async () => {
    const h = harness()
    const start = h.supervisor.start()
    h.workers[0]!.die(1)
    await expect(start).rejects.toMatchObject({ exitCode: 1 })
  })

  test('the rate budgets are the instance\'s: a client spends one budget whichever worker it reaches', async () => {
    const h = harness({ rate: new RateLimiter({ limit: 3, windowMs: 60_000, text: '3/min' }) })
    const [a, b] = await started(h)
    const answers: unknown[] = []
    for (let id = 1; id <= 5; id++) {
      const w = id % 2 === 0 ? a : b
      w.say({ t: 'rate', id, client: '10.0.0.1', nowMs: 1_000_000 })
      answers.push(h.replyTo(w, id)!.value)
    }
    expect(answers.map((x) => (x as { allowed: boolean }).allowed)).toEqual([true, true, true, false, false])
    expect((answers[3] as { retryAfterSeconds: number }).retryAfterSeconds).toBe(20)
    // Another client has its own budget.
    a.say({ t: 'rate', id: 9, client: '10.0.0.2', nowMs: 1_000_000 })
    expect(h.replyTo(a, 9)!.value).toEqual({ allowed: true })
  })

  test('stream slots are the instance\'s: the cap and the per-client share across workers, a slot freed when its stream ends', async () => {
    const h = harness({ streams: { max: 3, perClient: 2 } })
    const [a, b] = await started(h)
    const ask = (w: FakeWorker, id: number, client: string) => {
      w.say({ t: 'stream', id, client })
      return h.replyTo(w, id)!.value
    }
    expect(ask(a, 1, 'p')).toBe('ok')
    expect(ask(b, 2, 'p')).toBe('ok')
    expect(ask(a, 3, 'p')).toBe('client')
    expect(ask(b, 4, 'q')).toBe('ok')
    expect(ask(a, 5, 'r')).toBe('full')
    b.say({ t: 'stream-closed', client: 'q' })
    expect(ask(a, 6, 'r')).toBe('ok')
  })

  test('/metrics gathers every listening worker\'s own families, and the supervisor\'s figures', async () => {
    const h = harness()
    const [a, b] = await started(h)
    a.say({ t: 'metrics', id: 42 })
    const asked = [a, b].map((w) => w.inbox.at(-1) as { t: string; id: number })
    expect(asked.map((m) => m.t)).toEqual(['families', 'families'])
    b.say({ t: 'families', id: asked[1]!.id, families: [{ name: 'b' }] })
    a.say({ t: 'families', id: asked[0]!.id, families: [{ name: 'a' }] })
    await Bun.sleep(1)
    const gathered = h.replyTo(a, 42)!.value as { workers: { worker: number; families: unknown[] }[]; supervisor: Record<string, number> }
    expect(gathered.workers.map((w) => [w.worker, w.families])).toEqual([
      [1, [{ name: 'a' }]],
      [2, [{ name: 'b' }]],
    ])
    expect(gathered.supervisor).toMatchObject({ pid: process.pid, configured: 2, listening: 2, replaced: 0 })
    expect(gathered.supervisor.rssBytes).toBeGreaterThan(0)
  })

  test('a worker that does not answer is left out of /metrics after a second', async () => {
    const h = harness()
    const [a, b] = await started(h)
    b.say({ t: 'metrics', id: 1 })
    const asked = a.inbox.at(-1) as { id: number }
    a.say({ t: 'families', id: asked.id, families: [] })
    await Bun.sleep(1100)
    const gathered = h.replyTo(b, 1)!.value as { workers: { worker: number }[] }
    expect(gathered.workers.map((w) => w.worker)).toEqual([1])
  })

  test('stop sends SIGTERM to every worker and waits for them; past the timeout, SIGKILL', async () => {
    const h = harness()
    const [a, b] = await started(h)
    const stopped = h.supervisor.stop()
    expect(a.signals).toEqual(['SIGTERM'])
    expect(b.signals).toEqual(['SIGTERM'])
    a.die(0)
    // b never exits by itself: killed after the timeout (200 ms here). Neither is replaced.
    await stopped
    expect(b.signals).toEqual(['SIGTERM', 'SIGKILL'])
    expect(h.workers.length).toBe(2)
  })
})

describe('Supervisor without the catalogue (no refresh, no --snapshot)', () => {
  test('holds only the version: no catalogue asked for at the start, a replaced worker starts from the files', async () => {
    const h = harness({ keepCatalogue: false })
    const up = h.supervisor.start()
    const [a, b] = h.workers
    for (const w of [a!, b!]) {
      w.say({ t: 'listening' })
      w.say({ t: 'version', version: catalog.version })
    }
    await up
    expect([...a!.inbox, ...b!.inbox]).toEqual([])
    expect(h.supervisor.catalog).toBeUndefined()
    a!.die(1)
    await Bun.sleep(20)
    expect(h.workers[2]!.source).toBe('files')
  })

  test('a worker with another version is sent the catalogue of one serving the instance\'s', async () => {
    const h = harness({ keepCatalogue: false })
    const up = h.supervisor.start()
    const [a, b] = h.workers
    a!.say({ t: 'listening' })
    a!.say({ t: 'version', version: catalog.version })
    b!.say({ t: 'listening' })
    b!.say({ t: 'version', version: other.version })
    // a serves the instance's version: asked for its catalogue, which goes to b.
    expect(a!.inbox).toEqual([{ t: 'send-catalog' }])
    a!.say({ t: 'catalog', transfer: catalogTransfer(catalog), cacheGroupsUsed: [] })
    const sent = b!.inbox.find((m) => m.t === 'catalog') as { transfer: ReturnType<typeof catalogTransfer> }
    expect(sent.transfer.version).toBe(catalog.version)
    await up
  })
})

describe('StreamSlots', () => {
  test('a worker\'s slots are all freed at once', () => {
    const slots = new StreamSlots(4, 4)
    expect([slots.acquire(1, 'a'), slots.acquire(1, 'a'), slots.acquire(2, 'a')]).toEqual(['ok', 'ok', 'ok'])
    slots.releaseWorker(1)
    expect(slots.open).toBe(1)
    // Releasing what a worker does not hold changes nothing.
    slots.release(1, 'a')
    expect(slots.open).toBe(1)
  })
})
