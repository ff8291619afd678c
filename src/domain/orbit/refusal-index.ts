/**
 * Refusal counts from sorted instants: how many satellites of a catalogue have
 * no position at an instant because they have decayed, and how many (not
 * decayed) because of their elements' age, in O(log n), from sorted arrays of
 * the instants where each one's refusal changes (its age window's ends, its
 * decay). The speed-up beside `Validity.countRefusalsOneByOne` (validity.ts),
 * which it must equal (test/domain/orbit/validity.test.ts).
 */
import type { SatRec } from 'satellite.js'

export interface RefusalCounts {
  elementAge: number
  decayed: number
}

/** What the index is made from: each satellite's age window, and its decay (validity.ts's Validity). */
export interface RefusalSource {
  /** The stretch within the age limit of satellite `i`'s epoch, ms since 1970 (±Infinity: no limit). */
  ageWindowOf(i: number): { fromMs: number; toMs: number }
  /** When satellite `i` decays, if at or before `instantMs` and within its age limit (the decay the rules say); else null. */
  decayedWithin(i: number, satrec: SatRec, instantMs: number): number | null
}

/**
 * Sorted instants (ms) where a satellite's refusal changes, valid up to
 * `horizonMs`. At instant t a satellite is decayed when decay <= t; refused
 * by age when t < from, or t > to (afterTo <= t) and not decayed (not both
 * afterTo <= t and decay <= t: afterToAndDecay <= t).
 */
export class RefusalIndex {
  private constructor(
    /** The latest instant the counts hold for: decays after it are not looked for. */
    readonly horizonMs: number,
    private readonly from: Float64Array,
    private readonly afterTo: Float64Array,
    private readonly decay: Float64Array,
    private readonly afterToAndDecay: Float64Array,
  ) {}

  /** The index of `count` satellites, every decay up to `horizonMs` looked for. */
  static upTo(source: RefusalSource, count: number, horizonMs: number, satrecAt: (i: number) => SatRec): RefusalIndex {
    const from = new Float64Array(count)
    const afterTo = new Float64Array(count)
    const decay = new Float64Array(count)
    const afterToAndDecay = new Float64Array(count)
    for (let i = 0; i < count; i++) {
      const window = source.ageWindowOf(i)
      from[i] = window.fromMs
      afterTo[i] = nextUp(window.toMs)
      decay[i] = source.decayedWithin(i, satrecAt(i), horizonMs) ?? Number.POSITIVE_INFINITY
      afterToAndDecay[i] = Math.max(afterTo[i]!, decay[i]!)
    }
    return new RefusalIndex(horizonMs, from.sort(), afterTo.sort(), decay.sort(), afterToAndDecay.sort())
  }

  /** The counts at `instantMs` (at most `horizonMs`). */
  counts(instantMs: number): RefusalCounts {
    const t = instantMs
    return {
      elementAge: this.from.length - countAtMost(this.from, t) + countAtMost(this.afterTo, t) - countAtMost(this.afterToAndDecay, t),
      decayed: countAtMost(this.decay, t),
    }
  }
}

/** How many values of a sorted array are at most `x` (binary search). */
function countAtMost(sorted: Float64Array, x: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! <= x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The least double above `x` (x itself for ±Infinity and NaN): t > x exactly when t >= nextUp(x). */
function nextUp(x: number): number {
  if (!Number.isFinite(x)) return x
  if (x === 0) return Number.MIN_VALUE
  const bits = new BigInt64Array(Float64Array.of(x).buffer)
  bits[0] = bits[0]! + (x > 0 ? 1n : -1n)
  return new Float64Array(bits.buffer)[0]!
}
