/** When Tonight starts (src/web/geometry.ts nightStart): now when dark, the next dusk within a day, or none under the midnight sun. */
import { describe, expect, test } from 'bun:test'
import { nightStart, sunAltitudeDeg } from '../../src/web/geometry.ts'

describe('nightStart', () => {
  test('dark already: the instant itself; by day: the first minute the Sun is at or below -6°', () => {
    const night = new Date('2026-06-01T00:30:00Z')
    expect(nightStart(48.85, 2.35, night)).toEqual(night)
    const noon = new Date('2026-06-01T12:00:00Z')
    const dusk = nightStart(48.85, 2.35, noon)!
    expect(dusk.getTime() - noon.getTime()).toBeGreaterThan(8 * 3_600_000)
    expect(dusk.getTime() - noon.getTime()).toBeLessThan(12 * 3_600_000)
    expect(sunAltitudeDeg(48.85, 2.35, dusk)).toBeLessThanOrEqual(-6)
    expect(sunAltitudeDeg(48.85, 2.35, new Date(dusk.getTime() - 60_000))).toBeGreaterThan(-6)
  })

  test('no night within a day (Svalbard in June, the midnight sun): none, not the instant', () => {
    expect(nightStart(78.22, 15.65, new Date('2026-06-01T12:00:00Z'))).toBeNull()
    // The same place in December: dark at noon.
    const winter = new Date('2026-12-01T12:00:00Z')
    expect(nightStart(78.22, 15.65, winter)).toEqual(winter)
  })
})
