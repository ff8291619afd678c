/** HeavyWork (src/io/heavy-work.ts): slices interleaved with other work, a bound on how many run and wait, 503 + Retry-After, abandoned work stops. */
import { describe, expect, test } from 'bun:test'
import { Abandoned, Busy, HeavyWork } from '../../src/io/heavy-work.ts'

/** A computation of `slices` slices of about `sliceMs` ms each; counts the slices it ran. */
function* busy(slices: number, sliceMs: number, ran: { slices: number }): Generator<void, string> {
  for (let i = 0; i < slices; i++) {
    const until = performance.now() + sliceMs
    while (performance.now() < until) {}
    ran.slices++
    yield
  }
  return 'done'
}

describe('HeavyWork', () => {
  test('the event loop gets a turn between slices: a timer set during the work fires within a few slices', async () => {
    const heavy = new HeavyWork({ sliceBudgetMs: 5 })
    const ran = { slices: 0 }
    const started = performance.now()
    let timerLateMs = -1
    setTimeout(() => {
      timerLateMs = performance.now() - started
    }, 0)
    expect(await heavy.run(busy(100, 1, ran))).toBe('done')
    expect(ran.slices).toBe(100)
    expect(timerLateMs).toBeGreaterThanOrEqual(0)
    expect(timerLateMs).toBeLessThan(30)
  })

  test('at most maxRunning at once; at most maxQueued waiting; one more is refused as Busy (answered 503 by the HTTP layer), retry after 2 s', async () => {
    const heavy = new HeavyWork({ maxRunning: 1, maxQueued: 2, sliceBudgetMs: 2 })
    const ran = { slices: 0 }
    const first = heavy.run(busy(20, 1, ran))
    const queued = [heavy.run(busy(5, 1, ran)), heavy.run(busy(5, 1, ran))]
    expect(heavy.running).toBe(1)
    expect(heavy.queued).toBe(2)
    const refused = await heavy.run(busy(5, 1, ran)).catch((error) => error)
    expect(refused).toBeInstanceOf(Busy)
    expect(refused.retryAfterSeconds).toBe(2)
    expect(await Promise.all([first, ...queued])).toEqual(['done', 'done', 'done'])
    expect(heavy.counts).toEqual({ refused: 1, abandoned: 0, finished: 3 })
  })

  test('waiting longer than maxWaitMs: Busy', async () => {
    const heavy = new HeavyWork({ maxRunning: 1, maxWaitMs: 20, sliceBudgetMs: 2 })
    const running = heavy.run(busy(40, 1, { slices: 0 }))
    const late = await heavy.run(busy(1, 1, { slices: 0 })).catch((error) => error)
    expect(late).toBeInstanceOf(Busy)
    await running
  })

  test('a client gone: running work stops at the next slice, queued work never starts, and a turn passes on', async () => {
    const heavy = new HeavyWork({ maxRunning: 1, sliceBudgetMs: 2 })
    const gone = new AbortController()
    const ranRunning = { slices: 0 }
    const ranQueued = { slices: 0 }
    const running = heavy.run(busy(1000, 1, ranRunning), gone.signal).catch((error) => error)
    const queued = heavy.run(busy(1000, 1, ranQueued), gone.signal).catch((error) => error)
    const other = heavy.run(busy(3, 1, { slices: 0 }))
    await Bun.sleep(10)
    gone.abort()
    expect(await running).toBeInstanceOf(Abandoned)
    expect(await queued).toBeInstanceOf(Abandoned)
    expect(await other).toBe('done')
    expect(ranRunning.slices).toBeLessThan(40)
    expect(ranQueued.slices).toBe(0)
    expect(heavy.counts.abandoned).toBe(2)
    // Already gone before it asks: never starts.
    expect(await heavy.run(busy(1, 1, ranQueued), gone.signal).catch((error) => error)).toBeInstanceOf(Abandoned)
    expect(ranQueued.slices).toBe(0)
  })
})
