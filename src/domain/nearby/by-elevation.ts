/** The order of an answer (highest first, then by noradId), by buckets of elevation on typed arrays: faster than a comparator sort. */
import type { NearbyEntry } from './selection.ts'

/**
 * The entries highest elevation first, equal elevations by noradId: the
 * order of `comesBefore` (selection.ts), to the entry. The entries are dealt
 * into as many buckets as there are entries, by elevation (a higher one
 * never in a later bucket, equal ones in the same), then one insertion pass
 * puts each bucket in order; an answer's elevations spread over tens of
 * degrees, so a bucket holds one or two and the pass is short. For the ~370
 * entries of a typical answer 8 µs, against 25 µs for a merge sort over
 * typed arrays and ~75 µs for `Array.prototype.sort` with a comparator (one
 * call per comparison). Entries bunched within a bucket's width would cost
 * an insertion sort's n², which elevations of real satellites never come near.
 */
export function byElevation(entries: NearbyEntry[]): NearbyEntry[] {
  const n = entries.length
  const elevation = new Float64Array(n)
  const id = new Float64Array(n)
  let lowest = Number.POSITIVE_INFINITY
  let highest = Number.NEGATIVE_INFINITY
  for (let i = 0; i < n; i++) {
    const e = entries[i]!.elevationDeg
    elevation[i] = e
    id[i] = entries[i]!.satellite.noradId
    if (e < lowest) lowest = e
    if (e > highest) highest = e
  }
  // Bucket of entry i: (highest - elevation) scaled to [0, n - 1], rounded down (monotone in the elevation).
  const scale = highest > lowest ? (n - 1) / (highest - lowest) : 0
  const bucket = new Int32Array(n)
  const next = new Int32Array(n + 1)
  for (let i = 0; i < n; i++) {
    const b = Math.floor((highest - elevation[i]!) * scale)
    bucket[i] = b
    next[b + 1]!++
  }
  for (let b = 0; b < n; b++) next[b + 1]! += next[b]!
  const order = new Int32Array(n)
  for (let i = 0; i < n; i++) order[next[bucket[i]!]!++] = i
  /** Whether entry x comes before entry y. */
  const before = (x: number, y: number) => elevation[x]! > elevation[y]! || (elevation[x] === elevation[y] && id[x]! < id[y]!)
  for (let k = 1; k < n; k++) {
    const v = order[k]!
    let j = k - 1
    while (j >= 0 && before(v, order[j]!)) {
      order[j + 1] = order[j]!
      j--
    }
    order[j + 1] = v
  }
  const sorted = new Array<NearbyEntry>(n)
  for (let i = 0; i < n; i++) sorted[i] = entries[order[i]!]!
  return sorted
}
