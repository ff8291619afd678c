/**
 * Requests refused before routing, each with the usual error body: a URL over
 * 8 KB (414), more than 50 query parameters (400), and a client over its
 * `--rate-limit` budget (429 with Retry-After).
 *
 * Bun itself answers `431` with no body when the request line and headers
 * together pass about 16 KB, and `505` for a request line with raw non-ASCII
 * bytes: those never reach the application.
 */
import { Elysia } from 'elysia'
import { requestTarget } from './edge.ts'
import { ApiError } from './errors.ts'
import type { Admission, RateLimit } from './rate-limit.ts'

/**
 * Where a request's admission is decided: a RateLimiter in this process, or
 * (with --workers) the instance's budgets, which the supervisor holds: then
 * the answer comes back asynchronously.
 */
export interface RateBudget {
  readonly rate: RateLimit
  take(client: string, nowMs: number): Admission | Promise<Admission>
}

/** The longest request target (path and query) accepted, bytes. */
export const MAX_URL_BYTES = 8 * 1024
/** The most query parameters (`name=value` pairs, repeats included) accepted. */
export const MAX_QUERY_PARAMS = 50

export interface LimitsOptions {
  rateLimiter?: RateBudget | null
  /** Identify clients by the last X-Forwarded-For entry (the address the proxy in front saw). */
  trustProxy?: boolean
  /** Paths the rate limit does not count (probes and scrapes). */
  rateLimitExempt?: readonly string[]
  /** Now, ms since 1970. */
  clock: () => number
}


/** `name=value` pairs in a query string (empty pieces between `&`s do not count). */
export function countQueryParams(target: string): number {
  const q = target.indexOf('?')
  if (q < 0) return 0
  let count = 0
  let pieceStart = q + 1
  for (let i = pieceStart; i <= target.length; i++) {
    if (i === target.length || target.charCodeAt(i) === 38 /* & */) {
      if (i > pieceStart) count++
      pieceStart = i + 1
    }
  }
  return count
}

/** The client's address as the proxy in front saw it (the last X-Forwarded-For entry), or null. */
export function lastForwardedFor(header: string | null): string | null {
  if (!header) return null
  const last = header.split(',').at(-1)!.trim()
  return last === '' ? null : last
}

const WINDOW_WORDS: Record<number, string> = { 1000: 'second', 60_000: 'minute', 3_600_000: 'hour', 86_400_000: 'day' }

export function limits({ rateLimiter = null, trustProxy = false, rateLimitExempt = [], clock }: LimitsOptions) {
  const exempt = new Set(rateLimitExempt)
  const rate = rateLimiter?.rate
  const budget = rate ? `at most ${rate.limit} requests per ${WINDOW_WORDS[rate.windowMs] ?? `${rate.windowMs / 1000} s`} per client` : ''
  return new Elysia({ name: 'limits' }).onRequest(({ request, set, server }) => {
    const target = requestTarget(request.url)
    if (target.length > MAX_URL_BYTES) {
      throw new ApiError(414, `the URL is ${target.length} bytes long; at most ${MAX_URL_BYTES} are accepted`)
    }
    const params = countQueryParams(target)
    if (params > MAX_QUERY_PARAMS) {
      throw new ApiError(400, `the query string has ${params} parameters; at most ${MAX_QUERY_PARAMS} are accepted`)
    }
    if (!rateLimiter || request.method === 'OPTIONS') return
    const q = target.indexOf('?')
    if (exempt.has(q < 0 ? target : target.slice(0, q))) return
    const client = (trustProxy ? lastForwardedFor(request.headers.get('x-forwarded-for')) : null) ?? server?.requestIP(request)?.address ?? 'unknown'
    const admit = (admission: Admission) => {
      if (admission.allowed) return
      set.headers['retry-after'] = String(admission.retryAfterSeconds)
      throw new ApiError(429, `too many requests: ${budget}; retry in ${admission.retryAfterSeconds} s`)
    }
    const admission = rateLimiter.take(client, clock())
    // The instance's budget (--workers): the request waits for the supervisor's answer.
    if (admission instanceof Promise) return admission.then(admit)
    admit(admission)
  })
}
