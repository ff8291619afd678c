/** The time control's reading of the datetime-local field (src/web/time.ts) and the pinned instant's wording (src/web/dom.ts). */
import { describe, expect, test } from 'bun:test'
import { formatDateTime } from '../../src/web/dom.ts'
import { TIME_MAX_MS, TIME_MIN_MS } from '../../src/web/instant.ts'
import { localInputValue, typedInstantMs } from '../../src/web/time.ts'

describe('the Instant field', () => {
  test('a year typed digit by digit is chosen only once it is one the service answers for', () => {
    // What Chromium reports after each digit of "2026" typed into the year of 2026-05-31T21:30.
    const steps = ['0002-05-31T21:30', '0020-05-31T21:30', '0202-05-31T21:30', '2026-05-31T21:30']
    expect(steps.map((value) => typedInstantMs(value) !== null)).toEqual([false, false, false, true])
    expect(typedInstantMs('2026-05-31T21:30')).toBe(new Date(2026, 4, 31, 21, 30).getTime())
    expect(typedInstantMs('')).toBeNull()
    expect(typedInstantMs('2100-01-02T00:00')).toBeNull()
  })

  test('the field is written with a four-digit year, which the input needs', () => {
    expect(localInputValue(new Date(2026, 4, 31, 21, 30).toISOString())).toBe('2026-05-31T21:30')
    expect(localInputValue(new Date(1957, 9, 4, 12, 0).toISOString())).toBe('1957-10-04T12:00')
    const early = new Date(2026, 0, 1, 8, 5)
    early.setFullYear(2)
    expect(localInputValue(early.toISOString())).toBe('0002-01-01T08:05')
    expect(typedInstantMs(localInputValue(new Date(TIME_MIN_MS + 86_400_000).toISOString()))).not.toBeNull()
    expect(typedInstantMs(localInputValue(new Date(TIME_MAX_MS - 86_400_000).toISOString()))).not.toBeNull()
  })

  test('the pinned instant is shown with its year', () => {
    expect(formatDateTime('2026-05-31T21:30:00Z')).toContain('2026')
    expect(formatDateTime('1999-12-31T23:00:00Z')).toContain('1999')
  })
})
