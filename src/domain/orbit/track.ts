/** Ground tracks: a satellite's sub-satellite points over an interval, and the track cut into lines a flat map can draw. */
import type { Catalog } from '../catalog/catalog.ts'
import { positionAt, siderealTimeRad } from './position.ts'

/** One sampled instant of a track: degrees (WGS84 geodetic), km above the ellipsoid. */
export interface TrackPoint {
  instantMs: number
  latitudeDeg: number
  longitudeDeg: number
  altitudeKm: number
}

export interface GroundTrack {
  /** The instants with a position, in time order. */
  points: TrackPoint[]
  /** Sampled instants without a position (see positionAt), left out of `points`. */
  omitted: number
  /** Why the first omitted instant has no position, or null. */
  firstOmissionReason: string | null
  /** The sampling step, ms: consecutive points further apart than this had an omitted instant between them. */
  stepMs: number
}

/** How many instants `from, from + step, …` up to and including `to` holds. */
export function sampleCount(fromMs: number, toMs: number, stepMs: number): number {
  return toMs < fromMs ? 0 : Math.floor((toMs - fromMs) / stepMs) + 1
}

/** Samples the sub-satellite point at `from, from + step, …, ≤ to`; instants without a position are left out and counted. */
export function groundTrack(catalog: Catalog, index: number, fromMs: number, toMs: number, stepMs: number): GroundTrack {
  return { ...trackSamples(catalog, index, fromMs, stepMs, 0, sampleCount(fromMs, toMs, stepMs)), stepMs }
}

/** The instants `from + i·step` for `start ≤ i < end` (a piece of a ground track, for answers written a piece at a time). */
export function trackSamples(catalog: Catalog, index: number, fromMs: number, stepMs: number, start: number, end: number): Omit<GroundTrack, 'stepMs'> {
  const satrec = catalog.satrecAt(index)
  const points: TrackPoint[] = []
  let omitted = 0
  let firstOmissionReason: string | null = null
  for (let i = start; i < end; i++) {
    const instant = new Date(fromMs + i * stepMs)
    const result = positionAt(catalog, index, instant, siderealTimeRad(instant), satrec)
    if (!result.ok) {
      omitted++
      firstOmissionReason ??= result.reason
      continue
    }
    const { latitudeDeg, longitudeDeg, altitudeKm } = result.state
    points.push({ instantMs: instant.getTime(), latitudeDeg, longitudeDeg, altitudeKm })
  }
  return { points, omitted, firstOmissionReason }
}

/** A drawable piece of a track: `[longitude, latitude]` pairs (GeoJSON order) and the instants they stand for. */
export interface TrackLine {
  coordinates: [number, number][]
  instantsMs: number[]
}

/**
 * Cuts a track into lines that never jump across the map: at every crossing of
 * the antimeridian (consecutive longitudes more than 180° apart, i.e. the short
 * way round is through ±180°) a line ends on ±180° at the latitude and instant
 * interpolated there and the next begins on the opposite edge; at a gap (an
 * omitted instant) a line ends and the next begins at the following point.
 */
export function trackLines(track: GroundTrack): TrackLine[] {
  const lines: TrackLine[] = []
  let current: TrackLine | null = null
  let previous: TrackPoint | null = null
  for (const point of track.points) {
    const gap = previous !== null && point.instantMs - previous.instantMs > track.stepMs
    if (current === null || previous === null || gap) {
      current = { coordinates: [[point.longitudeDeg, point.latitudeDeg]], instantsMs: [point.instantMs] }
      lines.push(current)
      previous = point
      continue
    }
    const delta = point.longitudeDeg - previous.longitudeDeg
    if (Math.abs(delta) > 180) {
      // Going east over +180 (delta < 0, e.g. 179 → -179) or west over -180 (delta > 0).
      const edge = delta < 0 ? 180 : -180
      const unwrapped = point.longitudeDeg + (delta < 0 ? 360 : -360)
      const fraction = (edge - previous.longitudeDeg) / (unwrapped - previous.longitudeDeg)
      const latitude = previous.latitudeDeg + fraction * (point.latitudeDeg - previous.latitudeDeg)
      const instantMs = previous.instantMs + fraction * (point.instantMs - previous.instantMs)
      current.coordinates.push([edge, latitude])
      current.instantsMs.push(instantMs)
      current = { coordinates: [[-edge, latitude]], instantsMs: [instantMs] }
      lines.push(current)
    }
    current.coordinates.push([point.longitudeDeg, point.latitudeDeg])
    current.instantsMs.push(point.instantMs)
    previous = point
  }
  return lines
}
