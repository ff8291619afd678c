/** A worker's link to its supervisor (src/io/worker-link.ts): questions answered in time, and what a worker decides alone when they are not. */
import { expect, test } from 'bun:test'
import type { ToSupervisor, ToWorker } from '../../src/io/cluster.ts'
import { type Channel, WorkerLink } from '../../src/io/worker-link.ts'

/** A channel whose supervisor answers only when the test says so. */
function quietChannel() {
  const sent: ToSupervisor[] = []
  let deliver: (message: ToWorker) => void = () => {}
  const channel: Channel = { send: (m) => sent.push(m), onMessage: (h) => (deliver = h), onDisconnect: () => {} }
  return { channel, sent, answer: (id: number, value: unknown) => deliver({ t: 'reply', id, value } as ToWorker), tell: (message: ToWorker) => deliver(message) }
}

test('the supervisor\'s ask whether the worker answers gets an answer at once (the supervisor replaces a worker that gives none)', () => {
  const { channel, sent, tell } = quietChannel()
  new WorkerLink(1, channel, 50)
  tell({ t: 'ping' })
  tell({ t: 'ping' })
  expect(sent).toEqual([{ t: 'pong' }, { t: 'pong' }])
})

test('a stream slot: the supervisor\'s grant when it answers in time', async () => {
  const { channel, sent, answer } = quietChannel()
  const link = new WorkerLink(1, channel, 50)
  const grant = link.acquireStream('192.0.2.1')
  const asked = sent[0] as Extract<ToSupervisor, { t: 'stream' }>
  expect(asked).toMatchObject({ t: 'stream', client: '192.0.2.1' })
  answer(asked.id, 'client')
  expect(await grant).toBe('client')
  expect(sent.length).toBe(1)
})

test('a stream slot the supervisor does not answer for in time: unanswered, and a slot it grants later is given back', async () => {
  const { channel, sent, answer } = quietChannel()
  const link = new WorkerLink(1, channel, 20)
  const first = link.acquireStream('192.0.2.1')
  const second = link.acquireStream('192.0.2.2')
  expect(await first).toBe('unanswered')
  expect(await second).toBe('unanswered')
  const [a, b] = sent as Extract<ToSupervisor, { t: 'stream' }>[]
  // Late: a slot granted to the first is given back; the second was refused, nothing to give back.
  answer(a!.id, 'ok')
  answer(b!.id, 'full')
  expect(sent.slice(2)).toEqual([{ t: 'stream-closed', client: '192.0.2.1' }])
  // An answer is taken once.
  answer(a!.id, 'ok')
  expect(sent.length).toBe(3)
})

test('a request the supervisor does not answer for in time is admitted; /metrics then has no instance figures', async () => {
  const { channel } = quietChannel()
  const link = new WorkerLink(2, channel, 20)
  expect(await link.takeRate('192.0.2.1', 0)).toEqual({ allowed: true })
  expect(await link.gather()).toBeNull()
})
