/** The page's time formats (src/web/dom.ts): a visible window shown to the minute, or to the second when it lies within one minute. */
import { describe, expect, test } from 'bun:test'
import { formatElementAge, formatShortTime, formatTime, formatTimeSpan } from '../../src/web/dom.ts'

describe('formatTimeSpan', () => {
  test('to the minute across minutes; to the second within one (a 34-second window is not "23:54–23:54")', () => {
    const [a, b, c] = ['2026-05-30T23:54:10Z', '2026-05-30T23:54:44Z', '2026-05-30T23:57:02Z']
    expect(formatTimeSpan(a, c)).toBe(`${formatShortTime(a)}–${formatShortTime(c)}`)
    expect(formatTimeSpan(a, b)).toBe(`${formatTime(a)}–${formatTime(b)}`)
    expect(formatTime(a)).not.toBe(formatTime(b))
  })
})

describe('formatElementAge', () => {
  test("the elements' age at the instant shown, or how long before their epoch it is", () => {
    expect(formatElementAge(180.06)).toBe('180.1 days old')
    expect(formatElementAge(0)).toBe('0.0 days old')
    expect(formatElementAge(-2.25)).toBe('2.3 days before their epoch')
  })
})
