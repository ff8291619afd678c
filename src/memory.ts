/**
 * Keeps RSS near what the service really holds while it is busy. JavaScriptCore
 * lets its heap grow to a multiple of the live data before a full collection,
 * and under a steady stream of requests (each leaving its answer behind as
 * garbage) that headroom becomes resident memory: tens of MB on top of the
 * catalogue. Once a second, only in seconds that served requests, the trim asks
 * for a collection without waiting for it (`Bun.gc(false)`): a synchronous one
 * would pause every request in flight for ~10 ms, which shows in the p99
 * latency. An idle service is left alone.
 */

/** Requests counted as they arrive (createApp's `activity`). */
export interface Activity {
  requests: number
}

/** Decides, at each look, whether the last period served requests, and then collects. */
export class MemoryTrim {
  private seen: number

  constructor(
    private readonly activity: Activity,
    private readonly collect: () => void = () => Bun.gc(false),
  ) {
    this.seen = activity.requests
  }

  /** One look: collects when requests arrived since the last one; tells whether it did. */
  tick(): boolean {
    if (this.activity.requests === this.seen) return false
    this.seen = this.activity.requests
    this.collect()
    return true
  }

  /** Looks every `intervalMs`; returns a function that stops. The timer never keeps the process alive. */
  start(intervalMs = 1000): () => void {
    const timer = setInterval(() => this.tick(), intervalMs)
    timer.unref()
    return () => clearInterval(timer)
  }
}
