/** --rate-limit: parsing `N/window`, and the per-client token bucket (burst, refill, Retry-After, memory bound). */
import { describe, expect, test } from 'bun:test'
import { parseRateLimit, type RateLimit, RateLimiter } from '../../../src/http/plugins/rate-limit.ts'

const perMinute = (limit: number): RateLimit => ({ limit, windowMs: 60_000, text: `${limit}/min` })

describe('parseRateLimit', () => {
  test('requests per second, minute, hour or day', () => {
    expect(parseRateLimit('600/min')).toEqual({ limit: 600, windowMs: 60_000, text: '600/min' })
    expect(parseRateLimit('20/s')).toEqual({ limit: 20, windowMs: 1000, text: '20/s' })
    expect(parseRateLimit(' 10000 / hour ')).toEqual({ limit: 10000, windowMs: 3_600_000, text: '10000/h' })
    expect(parseRateLimit('5/M')).toEqual({ limit: 5, windowMs: 60_000, text: '5/min' })
    expect(parseRateLimit('100000/d')).toMatchObject({ windowMs: 86_400_000 })
  })

  test('off turns it off', () => {
    expect(parseRateLimit('off')).toBeNull()
  })

  test('anything else is an Error that says what is accepted', () => {
    for (const bad of ['', '600', '600/', '/min', '0/min', '-5/min', '1.5/s', '600/fortnight', '600 per minute', '1e3/min']) {
      const result = parseRateLimit(bad)
      expect(result).toBeInstanceOf(Error)
      expect((result as Error).message).toContain('600/min')
    }
  })
})

describe('RateLimiter', () => {
  test('a client may burst to the limit, then is refused with the seconds until the next request', () => {
    const limiter = new RateLimiter(perMinute(3))
    for (let i = 0; i < 3; i++) expect(limiter.take('a', 0)).toEqual({ allowed: true })
    // One request refills every 20 s.
    expect(limiter.take('a', 0)).toEqual({ allowed: false, retryAfterSeconds: 20 })
    expect(limiter.take('a', 5_000)).toEqual({ allowed: false, retryAfterSeconds: 15 })
    expect(limiter.take('a', 19_999)).toEqual({ allowed: false, retryAfterSeconds: 1 })
    expect(limiter.take('a', 20_000)).toEqual({ allowed: true })
    expect(limiter.take('a', 20_000)).toMatchObject({ allowed: false })
  })

  test('clients have separate budgets', () => {
    const limiter = new RateLimiter(perMinute(1))
    expect(limiter.take('a', 0).allowed).toBe(true)
    expect(limiter.take('a', 0).allowed).toBe(false)
    expect(limiter.take('b', 0).allowed).toBe(true)
  })

  test('the average rate holds over a long run: about limit per window', () => {
    const limiter = new RateLimiter({ limit: 10, windowMs: 1000, text: '10/s' })
    let allowed = 0
    // A request every 10 ms for 10 s: 1000 asked, 10 (burst) + 100 (refill) allowed.
    for (let t = 0; t < 10_000; t += 10) if (limiter.take('a', t).allowed) allowed++
    expect(allowed).toBeGreaterThanOrEqual(108)
    expect(allowed).toBeLessThanOrEqual(111)
  })

  test('Retry-After is at least 1 s and never more than the window', () => {
    const limiter = new RateLimiter({ limit: 1000, windowMs: 1000, text: '1000/s' })
    for (let i = 0; i < 1000; i++) limiter.take('a', 0)
    expect(limiter.take('a', 0)).toEqual({ allowed: false, retryAfterSeconds: 1 })
    const slow = new RateLimiter({ limit: 1, windowMs: 3_600_000, text: '1/h' })
    slow.take('a', 0)
    expect(slow.take('a', 0)).toEqual({ allowed: false, retryAfterSeconds: 3600 })
  })

  test('memory stays bounded: idle clients are forgotten, and the least recently seen go first when full', () => {
    const limiter = new RateLimiter(perMinute(5), 1000)
    for (let i = 0; i < 5000; i++) limiter.take(`client-${i}`, i)
    expect(limiter.clients).toBeLessThanOrEqual(1000)
    // The most recent clients are still remembered (their budgets are not reset).
    for (let i = 0; i < 4; i++) limiter.take('client-4999', 5000)
    expect(limiter.take('client-4999', 5000).allowed).toBe(false)
    // A window later every budget is full again and nothing needs remembering.
    limiter.take('late', 5000 + 120_000)
    expect(limiter.clients).toBe(1)
  })
})
