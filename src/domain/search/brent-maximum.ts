/** Brent's minimiser, turned to find a maximum: golden section with parabolic steps. */

const GOLDEN_SECTION = (3 - Math.sqrt(5)) / 2

/**
 * The maximum of `f` on [a, b] away from its ends, to within `tol`
 * (Brent 1973: golden section with parabolic steps; after Numerical Recipes'
 * `brent`). Worked in time relative to `a`, so the tolerance is absolute.
 */
export function brentMaximum(f: (t: number) => number, a: number, b: number, tol: number): { t: number; value: number } {
  const g = (u: number) => -f(a + u)
  let lo = 0
  let hi = b - a
  let x = GOLDEN_SECTION * hi
  let w = x
  let v = x
  let fx = g(x)
  let fw = fx
  let fv = fx
  let d = 0
  let e = 0
  for (let iteration = 0; iteration < 200; iteration++) {
    const xm = 0.5 * (lo + hi)
    const tol1 = tol
    const tol2 = 2 * tol1
    if (Math.abs(x - xm) <= tol2 - 0.5 * (hi - lo)) break
    let golden = true
    if (Math.abs(e) > tol1) {
      let r = (x - w) * (fx - fv)
      let q = (x - v) * (fx - fw)
      let p = (x - v) * q - (x - w) * r
      q = 2 * (q - r)
      if (q > 0) p = -p
      q = Math.abs(q)
      const previousStep = e
      e = d
      if (!(Math.abs(p) >= Math.abs(0.5 * q * previousStep) || p <= q * (lo - x) || p >= q * (hi - x))) {
        d = p / q
        const u = x + d
        if (u - lo < tol2 || hi - u < tol2) d = xm - x >= 0 ? tol1 : -tol1
        golden = false
      }
    }
    if (golden) {
      e = (x >= xm ? lo : hi) - x
      d = GOLDEN_SECTION * e
    }
    const u = Math.abs(d) >= tol1 ? x + d : x + (d >= 0 ? tol1 : -tol1)
    const fu = g(u)
    if (fu <= fx) {
      if (u >= x) lo = x
      else hi = x
      v = w
      fv = fw
      w = x
      fw = fx
      x = u
      fx = fu
    } else {
      if (u < x) lo = u
      else hi = u
      if (fu <= fw || w === x) {
        v = w
        fv = fw
        w = u
        fw = fu
      } else if (fu <= fv || v === x || v === w) {
        v = u
        fv = fu
      }
    }
  }
  return { t: a + x, value: -fx }
}
