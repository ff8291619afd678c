/**
 * Cooperative heavy work: long computations written as generators (they yield
 * between slices, see orbit/passes-sliced.ts) are run a slice at a time, giving
 * the event loop a turn between slices, so light requests are answered while a
 * heavy one is under way; at most `maxRunning` of them run at once, at most
 * `maxQueued` wait for a turn (and no longer than `maxWaitMs`), the rest are
 * refused with 503 and Retry-After; and a computation whose client has gone
 * (its request's signal aborted) stops at the next slice, or never starts.
 */

export interface HeavyWorkOptions {
  /** Computations run at once (interleaved slice by slice). */
  maxRunning?: number
  /** Computations waiting for a turn; one more is refused with 503. */
  maxQueued?: number
  /** The longest a computation waits for a turn before it is refused with 503, ms. */
  maxWaitMs?: number
  /** The longest one stretch of slices runs before giving the loop a turn, ms. */
  sliceBudgetMs?: number
}

/** A computation whose client has gone: nobody reads the answer (the HTTP layer counts it as 499, nginx's "client closed request"). */
export class Abandoned extends Error {
  constructor() {
    super('the client has gone')
  }
}

/** No turn for a computation: too many running and waiting (the HTTP layer answers 503 with Retry-After). */
export class Busy extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message)
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

export class HeavyWork {
  readonly maxRunning: number
  readonly maxQueued: number
  readonly maxWaitMs: number
  readonly sliceBudgetMs: number
  running = 0
  readonly #waiting: { start: () => void; fail: (error: Error) => void }[] = []
  /** Counts for /metrics and tests: computations refused (503), abandoned (client gone), finished. */
  readonly counts = { refused: 0, abandoned: 0, finished: 0 }

  constructor({ maxRunning = 2, maxQueued = 64, maxWaitMs = 10_000, sliceBudgetMs = 3 }: HeavyWorkOptions = {}) {
    this.maxRunning = maxRunning
    this.maxQueued = maxQueued
    this.maxWaitMs = maxWaitMs
    this.sliceBudgetMs = sliceBudgetMs
  }

  get queued(): number {
    return this.#waiting.length
  }

  /** Runs `work` to its end (a slice at a time), once a turn comes; rejects with Busy when there is none, Abandoned when `signal` aborts. */
  async run<T>(work: Generator<void, T>, signal?: AbortSignal): Promise<T> {
    // Holds a place among the running once admitted (taken at admission, so that calls made
    // together count each other).
    await this.#admit(signal)
    try {
      for (;;) {
        const until = performance.now() + this.sliceBudgetMs
        for (;;) {
          const step = work.next()
          if (step.done) {
            this.counts.finished++
            return step.value
          }
          if (performance.now() >= until) break
        }
        await turn()
        if (signal?.aborted) {
          this.counts.abandoned++
          throw new Abandoned()
        }
      }
    } finally {
      this.running--
      this.#waiting.shift()?.start()
    }
  }

  #admit(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) {
      this.counts.abandoned++
      return Promise.reject(new Abandoned())
    }
    if (this.running < this.maxRunning) {
      this.running++
      return Promise.resolve()
    }
    if (this.#waiting.length >= this.maxQueued) {
      this.counts.refused++
      return Promise.reject(this.#busy())
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        start: () => {
          this.running++
          clearTimeout(timer)
          signal?.removeEventListener('abort', onAbort)
          resolve()
        },
        fail: (error: Error) => {
          clearTimeout(timer)
          signal?.removeEventListener('abort', onAbort)
          const i = this.#waiting.indexOf(entry)
          if (i >= 0) this.#waiting.splice(i, 1)
          reject(error)
        },
      }
      const onAbort = () => {
        this.counts.abandoned++
        entry.fail(new Abandoned())
      }
      const timer = setTimeout(() => {
        this.counts.refused++
        entry.fail(this.#busy())
      }, this.maxWaitMs)
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#waiting.push(entry)
    })
  }

  #busy(): Busy {
    return new Busy(`too many long computations under way (${this.maxRunning} running, ${this.#waiting.length} waiting); retry in a few seconds`, 2)
  }
}
