/**
 * The engine's scan of the interpolated satellites: sorted once per table
 * interval into bands of geocentric radius and, in each, cells of declination
 * and right ascension (TEME), so that a request interpolates only the
 * satellites its sky can reach, in a tight loop over flat arrays. It keeps
 * every satellite the exact look angles would list (the engine's tests compare
 * it with the reference loop at the poles, the equator, the highest and lowest
 * observers and the edge of each band's reach, north, south, east and west).
 */
import type { PositionTable } from './position-table.ts'

const RAD_TO_DEG = 180 / Math.PI

/** What the whole-catalogue scan needs to know about one request. */
export interface Scan {
  /** Hermite weights (see `hermiteWeights`). */
  weights: Float64Array
  /** cos and sin of the sidereal time (TEME → Earth-fixed). */
  cosG: number
  sinG: number
  /** The observer, Earth-fixed, km. */
  ox: number
  oy: number
  oz: number
  /** The observer's geodetic vertical, a unit vector. */
  ux: number
  uy: number
  uz: number
  /** sin² of the elevation threshold, with a hair of slack. */
  sinMin2: number
}

/**
 * The hot loop, kept in a small top-level function so the JIT compiles it
 * well: interpolates the position of each satellite in `members[from..to)` and
 * appends the indices of those above the threshold (the same geometry as the
 * exact look angles) to `found`, from `count` on; returns the new count.
 * Every input is a plain number read from a property: array destructuring
 * (`const [x, y] = …`) here made JavaScriptCore run the loop four times slower.
 */
function scanAbove(a: PositionTable, b: PositionTable, members: Int32Array, from: number, to: number, scan: Scan, found: Int32Array, count: number): number {
  const w = scan.weights
  const wp0 = w[0]!
  const wv0 = w[1]!
  const wp1 = w[2]!
  const wv1 = w[3]!
  const { cosG, sinG, ox, oy, oz, ux, uy, uz, sinMin2 } = scan
  const ap = a.positionKm
  const av = a.velocityKmS
  const bp = b.positionKm
  const bv = b.velocityKmS
  for (let k = from; k < to; k++) {
    const i = members[k]!
    const j = 3 * i
    const px = wp0 * ap[j]! + wv0 * av[j]! + wp1 * bp[j]! + wv1 * bv[j]!
    const py = wp0 * ap[j + 1]! + wv0 * av[j + 1]! + wp1 * bp[j + 1]! + wv1 * bv[j + 1]!
    const pz = wp0 * ap[j + 2]! + wv0 * av[j + 2]! + wp1 * bp[j + 2]! + wv1 * bv[j + 2]!
    const dx = px * cosG + py * sinG - ox
    const dy = -px * sinG + py * cosG - oy
    const dz = pz - oz
    const up = ux * dx + uy * dy + uz * dz
    if (up <= 0 || up * up < sinMin2 * (dx * dx + dy * dy + dz * dz)) continue
    found[count++] = i
  }
  return count
}

/**
 * The interpolated satellites of one radius class, by declination and right
 * ascension: a satellite at geocentric radius r is at or above geocentric
 * elevation e only within the Earth-central angle γ = arccos(ρ·cos e / r) − e
 * of the observer (ρ: the observer's geocentric radius), and γ bounds the
 * difference of their geocentric latitudes (declinations; TEME and Earth-fixed
 * share the z axis) and, when the cap of radius γ around the observer holds no
 * pole, that of their right ascensions by arcsin(sin γ / cos δ) (δ: the
 * observer's declination). So a request scans only the cells within those of
 * the observer.
 */
export interface Band {
  /** The largest geocentric radius of any member at either end of the interval, km. */
  radiusKm: number
  /** The largest half-difference of a member's declinations at the two ends, degrees. */
  spreadDeg: number
  /** The largest half-difference of a member's right ascensions at the two ends, degrees (members outside the polar rows). */
  raSpreadDeg: number
  /** Satellite indices, by cell (declination row × RA_CELLS + right ascension column): cell c holds members[start[c] .. start[c + 1]). */
  members: Int32Array
  start: Int32Array
}

/** Upper radius bounds (km) of the bands: thin where satellites crowd (LEO) and γ changes fastest. */
const BAND_RADII_KM = [6678, 6778, 6878, 6978, 7128, 7378, 7878, 8878, 12_378, 20_378, 30_378, 46_378, Number.POSITIVE_INFINITY] as const
/** Declination rows of ROW_DEG degrees, from -90°. */
const ROW_DEG = 2
const CELLS = 180 / ROW_DEG
/** Right ascension columns per row, from 0° (TEME), of RA_CELL_DEG each. */
const RA_CELLS = 36
const RA_CELL_DEG = 360 / RA_CELLS
/**
 * Rows beyond this declination (in degrees, either side) are always scanned
 * whole: near a pole right ascension changes fast along a path and says little.
 */
const POLAR_DEG = 80
const FIRST_POLAR_ROW = (90 + POLAR_DEG) / ROW_DEG
const LAST_SOUTH_POLAR_ROW = (90 - POLAR_DEG) / ROW_DEG - 1
/**
 * Widening of a band's reach: the arc between the two ends can bulge beyond
 * their declinations and radii (by ~0.002° and metres for the fastest
 * satellites over 10 s); this covers that many times over.
 */
export const BAND_SLACK_DEG = 0.05
const BAND_RADIUS_SLACK_KM = 10
/**
 * Widening of the right ascension reach, degrees: the arc between the two
 * ends can bulge beyond their right ascensions by the declination's bulge
 * (BAND_SLACK_DEG) over the cosine of the declination, ~0.3° at the polar rows' edge.
 */
const RA_SLACK_DEG = 0.5

/** The right ascension of a TEME position, degrees in [0, 360). */
function rightAscensionDeg(x: number, y: number): number {
  const ra = Math.atan2(y, x) * RAD_TO_DEG
  return ra < 0 ? ra + 360 : ra
}

/** Sorts the interpolated satellites (`smooth[i] === 1`) into bands by their radius, and cells by their declination and right ascension over the interval. */
export function bandsOf(a: PositionTable, b: PositionTable, smooth: Uint8Array): Band[] {
  const n = smooth.length
  const cells = CELLS * RA_CELLS
  const bandOf = new Int8Array(n)
  const cellOf = new Int32Array(n)
  const radiusKm = new Float64Array(BAND_RADII_KM.length)
  const spreadDeg = new Float64Array(BAND_RADII_KM.length)
  const raSpreadDeg = new Float64Array(BAND_RADII_KM.length)
  const counts = BAND_RADII_KM.map(() => new Int32Array(cells + 1))
  const declinationDeg = (t: PositionTable, i: number, r: number) => Math.asin(Math.max(-1, Math.min(1, t.positionKm[3 * i + 2]! / r))) * RAD_TO_DEG
  for (let i = 0; i < n; i++) {
    if (smooth[i] === 0) continue
    const rA = Math.hypot(a.positionKm[3 * i]!, a.positionKm[3 * i + 1]!, a.positionKm[3 * i + 2]!)
    const rB = Math.hypot(b.positionKm[3 * i]!, b.positionKm[3 * i + 1]!, b.positionKm[3 * i + 2]!)
    const r = Math.max(rA, rB)
    let band = 0
    while (r > BAND_RADII_KM[band]!) band++
    const decA = declinationDeg(a, i, rA)
    const decB = declinationDeg(b, i, rB)
    const row = Math.min(CELLS - 1, Math.floor(((decA + decB) / 2 + 90) / ROW_DEG))
    // The right ascensions of the two ends, and their middle (the shorter way round).
    const raA = rightAscensionDeg(a.positionKm[3 * i]!, a.positionKm[3 * i + 1]!)
    let turn = rightAscensionDeg(b.positionKm[3 * i]!, b.positionKm[3 * i + 1]!) - raA
    if (turn > 180) turn -= 360
    else if (turn < -180) turn += 360
    let middle = raA + turn / 2
    if (middle >= 360) middle -= 360
    else if (middle < 0) middle += 360
    const column = Math.min(RA_CELLS - 1, Math.floor(middle / RA_CELL_DEG))
    bandOf[i] = band
    cellOf[i] = row * RA_CELLS + column
    radiusKm[band] = Math.max(radiusKm[band]!, r)
    spreadDeg[band] = Math.max(spreadDeg[band]!, Math.abs(decA - decB) / 2)
    if (row > LAST_SOUTH_POLAR_ROW && row < FIRST_POLAR_ROW) raSpreadDeg[band] = Math.max(raSpreadDeg[band]!, Math.abs(turn) / 2)
    counts[band]![cellOf[i]! + 1]!++
  }
  const bands: Band[] = []
  for (let band = 0; band < BAND_RADII_KM.length; band++) {
    const start = counts[band]!
    for (let c = 1; c <= cells; c++) start[c]! += start[c - 1]!
    if (start[cells] === 0) continue
    const members = new Int32Array(start[cells]!)
    const next = start.slice(0, cells)
    for (let i = 0; i < n; i++) if (smooth[i] === 1 && bandOf[i] === band) members[next[cellOf[i]!]!++] = i
    bands.push({ radiusKm: radiusKm[band]!, spreadDeg: spreadDeg[band]!, raSpreadDeg: raSpreadDeg[band]!, members, start })
  }
  return bands
}

/** Where the observer's sky reaches: its geocentric radius (km) and latitude, and the lowest geocentric elevation the threshold allows. */
export interface SkyReach {
  rhoKm: number
  geocentricLatDeg: number
  minGeocentricDeg: number
}

/**
 * Scans the cells of every band within reach of the observer's sky, writing
 * the indices of the satellites above the threshold into `found`; returns how
 * many. A row is scanned whole when the cap holds a pole, when the reach in
 * right ascension is half the sky or more, and for the polar rows; otherwise
 * only its columns within reach (one run, or two across 0°).
 */
export function scanBands(bands: readonly Band[], a: PositionTable, b: PositionTable, scan: Scan, sky: SkyReach, found: Int32Array): number {
  let count = 0
  // The observer's right ascension (TEME): its Earth-fixed position turned back by the sidereal time.
  const observerRaDeg = rightAscensionDeg(scan.ox * scan.cosG - scan.oy * scan.sinG, scan.ox * scan.sinG + scan.oy * scan.cosG)
  const cosDeclination = Math.cos(sky.geocentricLatDeg / RAD_TO_DEG)
  for (const band of bands) {
    const reach = (sky.rhoKm * Math.cos(sky.minGeocentricDeg / RAD_TO_DEG)) / (band.radiusKm + BAND_RADIUS_SLACK_KM)
    if (reach >= 1) continue // the whole band is below the threshold
    const capDeg = Math.acos(reach) * RAD_TO_DEG - sky.minGeocentricDeg
    const gammaDeg = capDeg + band.spreadDeg + BAND_SLACK_DEG
    const first = Math.max(0, Math.floor((sky.geocentricLatDeg - gammaDeg + 90) / ROW_DEG))
    const last = Math.min(CELLS - 1, Math.floor((sky.geocentricLatDeg + gammaDeg + 90) / ROW_DEG))
    if (first > last) continue
    // The cap's reach in right ascension (none when it holds a pole), and the members' own spread.
    const sinRatio = Math.sin(Math.max(0, capDeg) / RAD_TO_DEG) / cosDeclination
    const halfWidthDeg = Math.abs(sky.geocentricLatDeg) + capDeg < 90 && sinRatio < 1 ? Math.asin(sinRatio) * RAD_TO_DEG + band.raSpreadDeg + RA_SLACK_DEG : 180
    if (halfWidthDeg >= 180 - RA_CELL_DEG) {
      count = scanAbove(a, b, band.members, band.start[first * RA_CELLS]!, band.start[(last + 1) * RA_CELLS]!, scan, found, count)
      continue
    }
    // Columns from `west` to `east`, wrapping through 0° when west > east.
    const west = Math.floor((observerRaDeg - halfWidthDeg + 360) / RA_CELL_DEG) % RA_CELLS
    const east = Math.floor((observerRaDeg + halfWidthDeg) / RA_CELL_DEG) % RA_CELLS
    for (let row = first; row <= last; row++) {
      const base = row * RA_CELLS
      if (row <= LAST_SOUTH_POLAR_ROW || row >= FIRST_POLAR_ROW) {
        count = scanAbove(a, b, band.members, band.start[base]!, band.start[base + RA_CELLS]!, scan, found, count)
      } else if (west <= east) {
        count = scanAbove(a, b, band.members, band.start[base + west]!, band.start[base + east + 1]!, scan, found, count)
      } else {
        count = scanAbove(a, b, band.members, band.start[base]!, band.start[base + east + 1]!, scan, found, count)
        count = scanAbove(a, b, band.members, band.start[base + west]!, band.start[base + RA_CELLS]!, scan, found, count)
      }
    }
  }
  return count
}
