/** The order of an answer (highest first, then by noradId), by a merge sort on typed arrays: faster than a comparator sort. */
import type { NearbyEntry } from './selection.ts'

/**
 * The entries highest elevation first, equal elevations by noradId: a merge
 * sort over typed arrays of the two keys, about twice as fast as
 * `Array.prototype.sort` with a comparator (one call per comparison) for the
 * hundreds of entries of a typical answer (37 µs against 75 µs for the 428
 * entries over Paris at 10°). The order of `comesBefore` (selection.ts), to the entry.
 */
export function byElevation(entries: NearbyEntry[]): NearbyEntry[] {
  const n = entries.length
  const elevation = new Float64Array(n)
  const id = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    elevation[i] = entries[i]!.elevationDeg
    id[i] = entries[i]!.satellite.noradId
  }
  /** Whether entry x comes before entry y. */
  const before = (x: number, y: number) => elevation[x]! > elevation[y]! || (elevation[x] === elevation[y] && id[x]! < id[y]!)
  let order = new Int32Array(n)
  let spare = new Int32Array(n)
  for (let i = 0; i < n; i++) order[i] = i
  // Runs of RUN by insertion, then merges of doubling width.
  const RUN = 8
  for (let start = 0; start < n; start += RUN) {
    const end = Math.min(n, start + RUN)
    for (let i = start + 1; i < end; i++) {
      const v = order[i]!
      let j = i - 1
      while (j >= start && before(v, order[j]!)) {
        order[j + 1] = order[j]!
        j--
      }
      order[j + 1] = v
    }
  }
  for (let width = RUN; width < n; width *= 2) {
    for (let start = 0; start < n; start += 2 * width) {
      const mid = Math.min(n, start + width)
      const end = Math.min(n, start + 2 * width)
      let i = start
      let j = mid
      let k = start
      while (i < mid && j < end) spare[k++] = before(order[j]!, order[i]!) ? order[j++]! : order[i++]!
      while (i < mid) spare[k++] = order[i++]!
      while (j < end) spare[k++] = order[j++]!
    }
    const merged = spare
    spare = order
    order = merged
  }
  const sorted = new Array<NearbyEntry>(n)
  for (let i = 0; i < n; i++) sorted[i] = entries[order[i]!]!
  return sorted
}
