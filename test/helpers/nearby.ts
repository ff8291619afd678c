/** Test helpers for /nearby's engines: reproducible randomness, queries, and observers at the edge of a satellite's reach. */
import type { Catalog } from '../../src/domain/catalog/catalog.ts'
import type { NearbyQuery } from '../../src/domain/nearby/selection.ts'
import { positionAt, siderealTimeRad } from '../../src/domain/orbit/position.ts'
import { lookAngles } from '../../src/domain/orbit/sky.ts'

/** A reproducible pseudo-random sequence (mulberry32). */
export function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const DEG = Math.PI / 180

/**
 * The point `distanceDeg` (an angle at the Earth's centre, on a sphere) from a
 * latitude and longitude at `bearingDeg` (0 north, 90 east), as an observer at
 * sea level. Due north or south it keeps the longitude and moves the latitude
 * by the distance exactly (past a pole, a latitude beyond ±90°: no observer).
 */
function destination(latitudeDeg: number, longitudeDeg: number, bearingDeg: number, distanceDeg: number): NearbyQuery['observer'] {
  if (bearingDeg === 0 || bearingDeg === 180) return { latitudeDeg: latitudeDeg + (bearingDeg === 0 ? distanceDeg : -distanceDeg), longitudeDeg, altitudeM: 0 }
  const [phi, d, theta] = [latitudeDeg * DEG, distanceDeg * DEG, bearingDeg * DEG]
  const lat = Math.asin(Math.sin(phi) * Math.cos(d) + Math.cos(phi) * Math.sin(d) * Math.cos(theta))
  const lon = longitudeDeg * DEG + Math.atan2(Math.sin(theta) * Math.sin(d) * Math.cos(phi), Math.cos(d) - Math.sin(phi) * Math.sin(lat))
  const wrapped = ((((lon / DEG + 180) % 360) + 360) % 360) - 180
  return { latitudeDeg: lat / DEG, longitudeDeg: wrapped, altitudeM: 0 }
}

/** A query over the whole sky from 10° up, with `more` on top. */
export function nearbyQuery(observer: NearbyQuery['observer'], instant: Date, more: Partial<NearbyQuery> = {}): NearbyQuery {
  return { observer, instant, minElevationDeg: 10, azimuthFromDeg: 0, azimuthToDeg: 360, visibleOnly: false, ...more }
}

/**
 * Queries at the extremes a prefilter must survive: each of `latitudesDeg` at
 * `longitudeDeg`, from the lowest and the highest observer (10° up), at ground
 * level just above 10°, and 2 km up with a steep 75° threshold.
 */
export function extremeQueries(latitudesDeg: readonly number[], longitudeDeg: number, instant: Date): NearbyQuery[] {
  const cases = [
    [-1000, 10],
    [100_000, 10],
    [0, 10.0001],
    [2000, 75],
  ] as const
  return latitudesDeg.flatMap((latitudeDeg) =>
    cases.map(([altitudeM, minElevationDeg]) => nearbyQuery({ latitudeDeg, longitudeDeg, altitudeM }, instant, { minElevationDeg })),
  )
}

/**
 * Observers due north or south of a satellite (or at other `bearingsDeg` from
 * the point below it, along a great circle), as far away as a threshold (10°
 * or 60°) allows with the satellite still `marginDeg` above it: the edge of any
 * prefilter's reach. A few satellites per 500 km of height, so LEO, MEO, GEO
 * and HEO all take part. `bands`: how many heights took part.
 */
export function edgeQueries(
  catalog: Catalog,
  instant: Date,
  marginDeg: number,
  bearingsDeg: readonly number[] = [0, 180],
): { bands: number; cases: { query: NearbyQuery; noradId: number }[] } {
  const gmst = siderealTimeRad(instant)
  const byBand = new Map<number, number>()
  const cases: { query: NearbyQuery; noradId: number }[] = []
  for (let i = 0; i < catalog.size; i++) {
    const position = positionAt(catalog, i, instant, gmst)
    if (!position.ok) continue
    const band = Math.floor(position.state.altitudeKm / 500)
    if ((byBand.get(band) ?? 0) >= 3) continue
    byBand.set(band, (byBand.get(band) ?? 0) + 1)
    for (const minElevationDeg of [10, 60]) {
      for (const bearingDeg of bearingsDeg) {
        const at = (offsetDeg: number) => destination(position.state.latitudeDeg, position.state.longitudeDeg, bearingDeg, offsetDeg)
        // Elevation falls as the observer moves away: bisect to just above the threshold.
        let [near, far] = [0, 90]
        for (let k = 0; k < 60; k++) {
          const mid = (near + far) / 2
          const o = at(mid)
          if (Math.abs(o.latitudeDeg) <= 90 && lookAngles(o, position.state.eciKm, gmst).elevationDeg >= minElevationDeg + marginDeg) near = mid
          else far = mid
        }
        const observer = at(near)
        if (near === 0 || lookAngles(observer, position.state.eciKm, gmst).elevationDeg < minElevationDeg) continue
        cases.push({ query: nearbyQuery(observer, instant, { minElevationDeg }), noradId: catalog.satellites[i]!.noradId })
      }
    }
  }
  return { bands: byBand.size, cases }
}
