/** The search numerics (src/domain/search): Brent's root and maximum, bisection of a change, against functions with known answers. */
import { describe, expect, test } from 'bun:test'
import { bisectChange } from '../../../src/domain/search/bisect.ts'
import { brentMaximum } from '../../../src/domain/search/brent-maximum.ts'
import { brentRoot } from '../../../src/domain/search/brent-root.ts'

describe('brentRoot', () => {
  test('finds a root to the tolerance, from either side', () => {
    const f = (x: number) => Math.cos(x / 1000) - 0.3
    const exact = 1000 * Math.acos(0.3)
    expect(Math.abs(brentRoot(f, 0, 2000, f(0), f(2000), 1e-3) - exact)).toBeLessThan(1e-3)
    expect(Math.abs(brentRoot((x) => -f(x), 0, 2000, -f(0), -f(2000), 1e-3) - exact)).toBeLessThan(1e-3)
  })

  test('a root at an end is that end', () => {
    const f = (x: number) => x - 10
    expect(brentRoot(f, 0, 10, f(0), f(10), 1e-6)).toBe(10)
  })
})

describe('brentMaximum', () => {
  test('finds an interior maximum, and approaches an end where the function is monotonic', () => {
    const top = brentMaximum((t) => 5 - ((t - 1234.5) / 100) ** 2, 0, 5000, 2)
    expect(Math.abs(top.t - 1234.5)).toBeLessThan(2)
    expect(top.value).toBeCloseTo(5, 6)
    const edge = brentMaximum((t) => -t, 100, 200, 2)
    expect(edge.t - 100).toBeLessThan(5)
  })
})

describe('bisectChange', () => {
  test('brackets the change of a predicate to within the tolerance, on whole numbers', () => {
    for (const change of [1, 17, 500, 999]) {
      const { lastBefore, firstAfter } = bisectChange((t) => t < change, 0, 1000, 4)
      expect(lastBefore).toBeLessThan(change)
      expect(firstAfter).toBeGreaterThanOrEqual(change)
      expect(firstAfter - lastBefore).toBeLessThanOrEqual(4)
      expect(Number.isInteger(lastBefore) && Number.isInteger(firstAfter)).toBe(true)
    }
  })
})
