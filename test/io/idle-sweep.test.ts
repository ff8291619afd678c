/** IdleSweeps (src/io/idle-sweep.ts): the modules' sweeps, run together, every period once started, never after the stop. */
import { expect, test } from 'bun:test'
import { IdleSweeps, SWEEP_MS } from '../../src/io/idle-sweep.ts'

test('runs every sweep handed to it, on demand and every period until stopped', async () => {
  const sweeps = new IdleSweeps()
  const ran: string[] = []
  sweeps.add(() => ran.push('list'))
  sweeps.add(() => ran.push('tables'))
  sweeps.sweep()
  expect(ran).toEqual(['list', 'tables'])
  const stop = sweeps.start(10)
  await Bun.sleep(55)
  stop()
  const count = ran.length
  expect(count).toBeGreaterThanOrEqual(2 + 2 * 3)
  await Bun.sleep(30)
  expect(ran.length).toBe(count)
  expect(SWEEP_MS).toBe(10_000)
})
