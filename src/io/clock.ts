/** The clock and timers: the only way the HTTP layer reads the time or schedules work. */

/** Now, ms since 1970 (the wall clock). */
export function now(): number {
  return Date.now()
}

/** A monotonic time in ms, for durations (never goes back when the wall clock is set). */
export function monotonicMs(): number {
  return performance.now()
}

/** Calls `tick` every `intervalMs` until the returned function is called; `background`: the timer never keeps the process alive. */
export function every(intervalMs: number, tick: () => void, { background = false } = {}): () => void {
  const timer = setInterval(tick, intervalMs)
  if (background) timer.unref()
  return () => clearInterval(timer)
}

/** Calls `fn` once after `delayMs` (0: after the I/O already waiting). */
export function after(delayMs: number, fn: () => void): void {
  setTimeout(fn, delayMs)
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return Bun.sleep(ms)
}
