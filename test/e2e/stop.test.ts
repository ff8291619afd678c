/**
 * A stop that loses nothing, under keep-alive load: on SIGTERM, every request
 * already sent on an open connection is answered (the answers from then on
 * with `Connection: close`), none is reset, and the process exits 0 within
 * --shutdown-timeout. A connection opened after the signal is refused, or
 * reset while still in the kernel's accept queue (the service never took it):
 * both are counted apart, and never on a connection that had been answered.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { connect } from 'node:net'
import { LOOPBACK, startService } from './harness.ts'

setDefaultTimeout(60_000)

interface Outcome {
  answered: number
  /** Answers that carried Connection: close. */
  closing: number
  /** Requests sent on a connection already answered before, that got a reset or an end with no answer. */
  lost: string[]
  /** Requests on a fresh connection that was refused or reset before any answer (never taken by the service). */
  notTaken: number
}

/** `clients` keep-alive clients, each sending `path` again as soon as it is answered; reconnecting after Connection: close. */
function keepAliveLoad(port: number, clients: number, path: string) {
  const outcome: Outcome = { answered: 0, closing: 0, lost: [], notTaken: 0 }
  let stopping = false
  const client = (): Promise<void> =>
    new Promise((resolve) => {
      const socket = connect(port, LOOPBACK)
      let buffer = ''
      let outstanding = false
      let answeredHere = 0
      const send = () => {
        outstanding = true
        socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`)
      }
      const fail = (why: string) => {
        if (!outstanding) return
        outstanding = false
        if (answeredHere === 0) outcome.notTaken++
        else outcome.lost.push(why)
      }
      socket.on('connect', send)
      socket.on('data', (chunk) => {
        buffer += chunk.toString('latin1')
        for (;;) {
          const headEnd = buffer.indexOf('\r\n\r\n')
          if (headEnd < 0) return
          const head = buffer.slice(0, headEnd)
          const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0)
          if (buffer.length < headEnd + 4 + length) return
          buffer = buffer.slice(headEnd + 4 + length)
          outstanding = false
          answeredHere++
          outcome.answered++
          if (/\r\nconnection: close/i.test(head)) {
            outcome.closing++
            socket.end()
            if (!stopping) void client().then(resolve)
            else resolve()
            return
          }
          if (stopping) {
            socket.end()
            return resolve()
          }
          send()
        }
      })
      socket.on('error', (error: NodeJS.ErrnoException) => fail(String(error.code)))
      socket.on('close', () => {
        fail('closed with no answer')
        resolve()
      })
    })
  const all = Promise.all(Array.from({ length: clients }, client))
  return {
    outcome,
    finish: async () => {
      stopping = true
      await Promise.race([all, Bun.sleep(5_000)])
    },
  }
}

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
