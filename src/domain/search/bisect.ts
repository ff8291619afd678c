/** Bisection of a change: where a predicate stops holding between two instants. */

/**
 * Where a predicate true at `a` (whole ms) stops being true before `b`, where
 * it is false: the last instant found true and the first found false, at most
 * `tol` apart (bisection on whole numbers: instants in ms).
 */
export function bisectChange(sameAsStart: (t: number) => boolean, a: number, b: number, tol: number): { lastBefore: number; firstAfter: number } {
  let lo = a
  let hi = b
  while (hi - lo > tol) {
    const mid = Math.round((lo + hi) / 2)
    if (sameAsStart(mid)) lo = mid
    else hi = mid
  }
  return { lastBefore: lo, firstAfter: hi }
}
