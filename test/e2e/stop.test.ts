/**
 * A stop that loses nothing, under keep-alive load: on SIGTERM, every request
 * already sent on an open connection is answered (the answers from then on
 * with `Connection: close`), none is reset, and the process exits 0 within
 * --shutdown-timeout. A connection opened after the signal is refused, or
 * reset while still in the kernel's accept queue (the service never took it):
 * both are counted apart, and never on a connection that had been answered.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { keepAliveLoad, startService } from './harness.ts'

setDefaultTimeout(60_000)

describe('SIGTERM under keep-alive load', () => {
  for (const [name, path] of [
    ['light requests', '/api/v1/service/healthcheck'],
    ['heavy requests', '/api/v1/satellites/25544/passes?latitude=51.5&longitude=0&days=2&time=2026-05-30T00:00:00Z'],
  ] as const) {
    test(`${name}: every request already sent is answered, none reset; exit 0 within --shutdown-timeout`, async () => {
      const service = await startService({ args: ['--shutdown-timeout', '10s'] })
      const load = keepAliveLoad(service.port, 32, path)
      for (let i = 0; i < 200 && load.outcome.answered < 64; i++) await Bun.sleep(25)
      const answeredBefore = load.outcome.answered
      expect(answeredBefore).toBeGreaterThan(0)
      const signalled = performance.now()
      service.proc.kill('SIGTERM')
      const code = await service.proc.exited
      const tookMs = performance.now() - signalled
      await load.finish()
      expect(load.outcome.lost).toEqual([])
      expect(code).toBe(0)
      expect(tookMs).toBeLessThan(10_000)
      // Requests in flight at the signal were answered, and told the connection ends.
      expect(load.outcome.closing).toBeGreaterThan(0)
      console.log(`${name}: ${answeredBefore} answered before the signal, ${load.outcome.answered - answeredBefore} after (${load.outcome.closing} with Connection: close), ${load.outcome.notTaken} new connections not taken, 0 lost; stopped in ${Math.round(tookMs)} ms`)
    })
  }
})
