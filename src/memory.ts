/**
 * Keeps RSS near what the service really holds while it is busy. JavaScriptCore
 * lets its heap grow to a multiple of the live data before a full collection,
 * and under a steady stream of requests (each leaving its answer behind as
 * garbage) that headroom becomes resident memory: tens of MB on top of the
 * catalogue. Four times a second, only in periods that served requests, the
 * trim asks for a collection without waiting for it (`Bun.gc(false)`): no
 * request pauses. (Once a second let a burst after a quiet spell grow RSS by
 * ~40 MB before the first look.)
 * When RSS has still grown by more than `headroomBytes` over what a full
 * collection last left, it collects synchronously (`Bun.gc(true)`, a pause of
 * ~10 ms): rare, so the p99 latency does not show it. An idle service is left alone.
 */

/** Requests counted as they arrive (createApp's `activity`). */
export interface Activity {
  requests: number
}

/** Above what the last full collection left, RSS may grow by this much before the next full one. */
export const HEADROOM_BYTES = 16 * 2 ** 20

export interface MemoryTrimOptions {
  /** Resident memory now, bytes. */
  rss?: () => number
  /** Asks for a collection; `wait`: a full synchronous one. */
  collect?: (wait: boolean) => void
  headroomBytes?: number
}

/** Decides, at each look, whether the last period served requests, and how to collect. */
export class MemoryTrim {
  private seen: number
  private readonly rss: () => number
  private readonly collect: (wait: boolean) => void
  private readonly headroomBytes: number
  /** RSS right after the last synchronous collection. */
  private floor: number

  constructor(
    private readonly activity: Activity,
    { rss = () => process.memoryUsage.rss(), collect = (wait) => Bun.gc(wait), headroomBytes = HEADROOM_BYTES }: MemoryTrimOptions = {},
  ) {
    this.seen = activity.requests
    this.rss = rss
    this.collect = collect
    this.headroomBytes = headroomBytes
    this.floor = rss()
  }

  /** One look: nothing after an idle period; else a collection, synchronous when RSS has outgrown its headroom. Tells which. */
  tick(): 'idle' | 'async' | 'sync' {
    if (this.activity.requests === this.seen) return 'idle'
    this.seen = this.activity.requests
    if (this.rss() <= this.floor + this.headroomBytes) {
      this.collect(false)
      return 'async'
    }
    this.collect(true)
    this.floor = this.rss()
    return 'sync'
  }

  /** Looks every `intervalMs`; returns a function that stops. The timer never keeps the process alive. */
  start(intervalMs = 250): () => void {
    const timer = setInterval(() => this.tick(), intervalMs)
    timer.unref()
    return () => clearInterval(timer)
  }
}
