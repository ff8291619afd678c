/**
 * Graceful stop on SIGTERM and SIGINT: stop accepting connections, let the
 * requests in flight finish (up to a grace period), then exit 0. A second
 * signal, or the end of the grace period, closes what is still open.
 */

export interface StopTarget {
  /** Stops accepting connections; resolves once the requests in flight are answered. */
  drain(): Promise<unknown>
  /** Closes every connection still open. */
  force(): unknown
  /** Requests being answered now (for the log). */
  inFlight(): number
  /**
   * Resolves once answers already handed to the server have been written out:
   * the server keeps a slow client's connection, and so the process, alive
   * until then (in main: when the event loop has nothing left, `beforeExit`).
   */
  settled?(): Promise<unknown>
}

export interface ShutdownOptions {
  target: StopTarget
  /** The longest the requests in flight may take, ms. */
  graceMs: number
  /** Runs first (stops background work such as the refresh). */
  beforeDrain?: () => void
  log: { info(msg: string, fields?: Record<string, unknown>): void; warn(msg: string, fields?: Record<string, unknown>): void }
  exit?: (code: number) => void
  signals?: readonly NodeJS.Signals[]
}

export type StopOutcome = 'drained' | 'grace period over'

/** Drains `target` within `graceMs`, forcing the rest; tells which happened. */
export async function stopGracefully(target: StopTarget, graceMs: number): Promise<StopOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const graceOver = new Promise<StopOutcome>((resolve) => {
    timer = setTimeout(() => resolve('grace period over'), graceMs)
    // The deadline must not itself keep the process alive, or `settled` (the loop running empty) never comes.
    timer.unref?.()
  })
  const finished = async (): Promise<StopOutcome> => {
    await target.drain()
    await target.settled?.()
    return 'drained'
  }
  const outcome = await Promise.race([finished(), graceOver])
  clearTimeout(timer)
  if (outcome !== 'drained') target.force()
  return outcome
}

/** Installs the signal handlers. */
export function stopOnSignals({ target, graceMs, beforeDrain, log, exit = process.exit, signals = ['SIGTERM', 'SIGINT'] }: ShutdownOptions): void {
  let stopping = false
  const onSignal = async (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn('second signal: closing open connections now', { signal, inFlight: target.inFlight() })
      target.force()
      exit(0)
      return
    }
    stopping = true
    const started = performance.now()
    log.info('stopping: no new connections; finishing requests in flight', { signal, inFlight: target.inFlight(), graceSeconds: graceMs / 1000 })
    beforeDrain?.()
    const outcome = await stopGracefully(target, graceMs)
    if (outcome !== 'drained') log.warn('requests still in flight after the grace period were cut off', { graceSeconds: graceMs / 1000 })
    log.info('stopped', { durationMs: Math.round(performance.now() - started) })
    exit(0)
  }
  for (const signal of signals) process.on(signal, onSignal)
}

/** Resolves when the event loop has nothing left to do (`beforeExit`): every answer handed to the server has been written out. */
export function eventLoopDone(): Promise<void> {
  return new Promise((resolve) => process.once('beforeExit', () => resolve()))
}

/** Stops this process as a SIGTERM would (the graceful stop installed by stopOnSignals). */
export function stopSelf(): void {
  process.kill(process.pid, 'SIGTERM')
}
