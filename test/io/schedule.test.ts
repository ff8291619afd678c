/** src/io/schedule.ts: work for later runs in order, one piece per turn of the event loop, with I/O served between pieces. */
import { expect, test } from 'bun:test'
import { soon } from '../../src/io/schedule.ts'

const busy = (ms: number) => {
  const end = performance.now() + ms
  while (performance.now() < end);
}

test('pieces run in the order queued, pieces queued by a piece after those already queued', async () => {
  const ran: string[] = []
  const done = Promise.withResolvers<void>()
  soon(() => {
    ran.push('a')
    soon(() => {
      ran.push('c')
      done.resolve()
    })
  })
  soon(() => ran.push('b'))
  await done.promise
  expect(ran).toEqual(['a', 'b', 'c'])
})

test('a request arriving while many pieces are queued waits for a piece or two, not for a piece of every chain', async () => {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('ok') })
  try {
    // Eight chains of pieces queued at once (at start-up: the warm-up and three tables).
    let ran = 0
    let left = 400
    const chain = () => {
      busy(2)
      ran++
      if (--left > 0) soon(chain)
    }
    for (let k = 0; k < 8; k++) soon(chain)
    const during: number[] = []
    for (let i = 0; i < 9; i++) {
      const before = ran
      await fetch(`http://127.0.0.1:${server.port}/`)
      during.push(ran - before)
    }
    // The client shares this thread: a request and its answer take a few turns of the loop. With a piece of
    // every chain per turn, eight pieces per turn would run meanwhile. The median request: on a loaded machine
    // (the fast loop runs a file per core) one round trip in nine may take a few more turns.
    during.sort((a, b) => a - b)
    expect(during[4]!).toBeLessThan(4)
    expect(left).toBeGreaterThan(0)
  } finally {
    server.stop(true)
  }
})

test('thousands of pieces queued at once all run, in order (the queue drops the slots already run as it goes)', async () => {
  const ran: number[] = []
  const done = Promise.withResolvers<void>()
  for (let i = 0; i < 3000; i++) soon(() => ran.push(i))
  soon(() => done.resolve())
  await done.promise
  expect(ran).toEqual(Array.from({ length: 3000 }, (_, i) => i))
})
