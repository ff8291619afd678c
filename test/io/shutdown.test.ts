/** Graceful stop: drain within the grace period, else force; a second signal forces at once. */
import { describe, expect, test } from 'bun:test'
import { type StopTarget, stopGracefully, stopOnSignals } from '../../src/io/shutdown.ts'

function target(drainMs: number) {
  const calls: string[] = []
  const t: StopTarget = {
    drain: async () => {
      calls.push('drain')
      await Bun.sleep(drainMs)
      calls.push('drained')
    },
    force: () => calls.push('force'),
    inFlight: () => 1,
  }
  return { t, calls }
}

describe('stopGracefully', () => {
  test('requests that finish in time: drained, nothing forced', async () => {
    const { t, calls } = target(20)
    expect(await stopGracefully(t, 1000)).toBe('drained')
    expect(calls).toEqual(['drain', 'drained'])
  })

  test('requests still running at the end of the grace period are cut off', async () => {
    const { t, calls } = target(2000)
    const started = performance.now()
    expect(await stopGracefully(t, 50)).toBe('grace period over')
    expect(performance.now() - started).toBeLessThan(1000)
    expect(calls).toEqual(['drain', 'force'])
  })
})

describe('stopOnSignals', () => {
  test('first signal drains then exits 0; a second one forces and exits 0 at once', async () => {
    const { t, calls } = target(300)
    const exits: number[] = []
    const logged: string[] = []
    const log = { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m) }
    // A signal nobody sends to a test run: the handlers are triggered by emitting it.
    stopOnSignals({ target: t, graceMs: 5000, log, exit: (code) => exits.push(code), signals: ['SIGUSR2'], beforeDrain: () => calls.push('before') })
    process.emit('SIGUSR2', 'SIGUSR2')
    await Bun.sleep(20)
    expect(calls).toEqual(['before', 'drain'])
    process.emit('SIGUSR2', 'SIGUSR2')
    expect(calls).toContain('force')
    expect(exits).toEqual([0])
    await Bun.sleep(400)
    expect(exits).toEqual([0, 0])
    expect(logged[0]).toContain('stopping')
    process.removeAllListeners('SIGUSR2')
  })
})
