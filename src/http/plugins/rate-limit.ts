/**
 * Per-client request budgets (`--rate-limit 600/min`): a token bucket per
 * client that holds up to N requests and refills N per window, so a client may
 * burst to N and then goes at the average rate. Pure: the caller gives the time.
 */

export interface RateLimit {
  /** Requests per window (also the largest burst). */
  limit: number
  windowMs: number
  /** As the operator wrote it, normalised (`600/min`), for messages. */
  text: string
}

const WINDOWS_MS: Record<string, { ms: number; name: string }> = {
  s: { ms: 1000, name: 's' },
  sec: { ms: 1000, name: 's' },
  second: { ms: 1000, name: 's' },
  m: { ms: 60_000, name: 'min' },
  min: { ms: 60_000, name: 'min' },
  minute: { ms: 60_000, name: 'min' },
  h: { ms: 3_600_000, name: 'h' },
  hour: { ms: 3_600_000, name: 'h' },
  d: { ms: 86_400_000, name: 'd' },
  day: { ms: 86_400_000, name: 'd' },
}

/** `600/min`, `20/s`, `10000/h`, `off` → a limit, null (no limit) or an Error that says what is accepted. */
export function parseRateLimit(raw: string): RateLimit | null | Error {
  const text = raw.trim().toLowerCase()
  if (text === 'off' || text === 'none') return null
  const m = /^(\d{1,9})\s*\/\s*([a-z]+)$/.exec(text)
  const window = m ? WINDOWS_MS[m[2]!] : undefined
  if (!m || !window || Number(m[1]) < 1) return new Error('must be requests per window such as 600/min, 20/s or 10000/h (or off)')
  return { limit: Number(m[1]), windowMs: window.ms, text: `${Number(m[1])}/${window.name}` }
}

interface Bucket {
  tokens: number
  updatedMs: number
}

export type Admission = { allowed: true; retryAfterSeconds?: undefined } | { allowed: false; retryAfterSeconds: number }

/** How many clients are remembered at most; past it, idle ones are forgotten first. */
const DEFAULT_MAX_CLIENTS = 100_000

export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>()
  readonly #perMs: number
  #lastSweepMs = 0

  constructor(
    readonly rate: RateLimit,
    private readonly maxClients = DEFAULT_MAX_CLIENTS,
  ) {
    this.#perMs = rate.limit / rate.windowMs
  }

  /** Clients remembered now (a full bucket is forgotten at the next sweep). */
  get clients(): number {
    return this.#buckets.size
  }

  /** Takes one request from `client`'s budget at `nowMs`. */
  take(client: string, nowMs: number): Admission {
    if (nowMs - this.#lastSweepMs >= this.rate.windowMs || this.#buckets.size >= this.maxClients) this.#sweep(nowMs)
    const bucket = this.#buckets.get(client)
    const tokens = bucket ? this.#tokensAt(bucket, nowMs) : this.rate.limit
    if (tokens >= 1) {
      if (bucket) {
        bucket.tokens = tokens - 1
        bucket.updatedMs = nowMs
      } else this.#buckets.set(client, { tokens: tokens - 1, updatedMs: nowMs })
      return { allowed: true }
    }
    // Multiply before dividing: (1 - tokens) / perMs would round 3600 s up to 3601.
    const waitMs = ((1 - tokens) * this.rate.windowMs) / this.rate.limit
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000 - 1e-9)) }
  }

  #tokensAt(bucket: Bucket, nowMs: number): number {
    return Math.min(this.rate.limit, bucket.tokens + Math.max(0, nowMs - bucket.updatedMs) * this.#perMs)
  }

  /** Forgets clients whose budget is full again; if still too many, the least recently seen. */
  #sweep(nowMs: number): void {
    this.#lastSweepMs = nowMs
    for (const [client, bucket] of this.#buckets) if (this.#tokensAt(bucket, nowMs) >= this.rate.limit) this.#buckets.delete(client)
    let excess = this.#buckets.size - Math.floor(this.maxClients * 0.9)
    if (excess <= 0) return
    const byAge = [...this.#buckets].sort((a, b) => a[1].updatedMs - b[1].updatedMs)
    for (const [client] of byAge) {
      if (excess-- <= 0) break
      this.#buckets.delete(client)
    }
  }
}
