/** Ground tracks: sampling, and cutting a track into lines at the antimeridian and at gaps. */
import { describe, expect, test } from 'bun:test'
import { type GroundTrack, sampleCount, type TrackPoint, trackLines } from '../../../src/domain/orbit/track.ts'

const STEP = 60_000
const point = (i: number, longitudeDeg: number, latitudeDeg = 0): TrackPoint => ({ instantMs: i * STEP, latitudeDeg, longitudeDeg, altitudeKm: 400 })
const track = (points: TrackPoint[]): GroundTrack => ({ points, omitted: 0, firstOmissionReason: null, stepMs: STEP })

describe('sampleCount', () => {
  test('from, from + step, … up to and including to', () => {
    expect(sampleCount(0, 0, 1000)).toBe(1)
    expect(sampleCount(0, 999, 1000)).toBe(1)
    expect(sampleCount(0, 1000, 1000)).toBe(2)
    expect(sampleCount(0, 9_999_000, 1000)).toBe(10_000)
    expect(sampleCount(1000, 0, 1000)).toBe(0)
  })
})

describe('trackLines', () => {
  test('a track that never crosses ±180° is one line', () => {
    const lines = trackLines(track([point(0, -10), point(1, 0), point(2, 10)]))
    expect(lines).toHaveLength(1)
    expect(lines[0]!.coordinates).toEqual([[-10, 0], [0, 0], [10, 0]])
  })

  test('eastward over +180°: the line ends on 180 and the next begins on -180, at the interpolated latitude and instant', () => {
    const lines = trackLines(track([point(0, 170, 10), point(1, 178, 20), point(2, -176, 50), point(3, -170, 60)]))
    expect(lines).toHaveLength(2)
    // 178 → 184 (unwrapped): 180 is a third of the way, so 20 + (50 - 20) / 3 = 30.
    expect(lines[0]!.coordinates).toEqual([[170, 10], [178, 20], [180, 30]])
    expect(lines[1]!.coordinates).toEqual([[-180, 30], [-176, 50], [-170, 60]])
    expect(lines[0]!.instantsMs.at(-1)).toBeCloseTo(STEP + STEP / 3, 6)
    expect(lines[1]!.instantsMs[0]).toBe(lines[0]!.instantsMs.at(-1)!)
  })

  test('westward over -180°', () => {
    const lines = trackLines(track([point(0, -175, 0), point(1, 175, 10)]))
    expect(lines.map((l) => l.coordinates)).toEqual([
      [[-175, 0], [-180, 5]],
      [[180, 5], [175, 10]],
    ])
  })

  test('a gap (an omitted instant) ends a line; a lone point stays a line of one', () => {
    const lines = trackLines(track([point(0, 0), point(1, 1), point(3, 3), point(5, 5), point(6, 6)]))
    expect(lines.map((l) => l.coordinates.map(([lon]) => lon))).toEqual([[0, 1], [3], [5, 6]])
  })

  test('no line ever jumps more than 180° in longitude, over many revolutions', () => {
    // A point running east 25° a step with latitude swinging: 100 crossings.
    const points = Array.from({ length: 1440 }, (_, i) => point(i, ((i * 25 + 180) % 360) - 180, 50 * Math.sin(i / 10)))
    const lines = trackLines(track(points))
    expect(lines.length).toBeGreaterThan(90)
    for (const line of lines) {
      for (let i = 1; i < line.coordinates.length; i++) {
        expect(Math.abs(line.coordinates[i]![0] - line.coordinates[i - 1]![0])).toBeLessThanOrEqual(180)
      }
    }
  })
})

describe('groundTrackSliced', () => {
  test('returns what groundTrack returns, yielding between pieces; across a decay (omitted instants) too', async () => {
    const { embeddedCatalog } = await import('../../helpers/catalog.ts')
    const { groundTrack } = await import('../../../src/domain/orbit/track.ts')
    const { groundTrackSliced } = await import('../../../src/domain/orbit/track-sliced.ts')
    const catalog = await embeddedCatalog()
    const fromMs = Date.UTC(2026, 4, 31)
    for (const [noradId, toMs, stepMs] of [
      [25544, fromMs + 9_999 * 60_000, 60_000], // the ISS, 10,000 points: past the age limit, so many omitted
      [25544, fromMs + 90 * 60_000, 1_000],
      [20580, fromMs, 1_000], // one instant
    ] as const) {
      const index = catalog.indexOf(noradId)!
      const sliced = groundTrackSliced(catalog, index, fromMs, toMs, stepMs, 700)
      let pauses = 0
      let step = sliced.next()
      while (!step.done) {
        pauses++
        step = sliced.next()
      }
      const plain = groundTrack(catalog, index, fromMs, toMs, stepMs)
      expect(step.value).toEqual(plain)
      expect(pauses).toBe(Math.max(0, Math.ceil(sampleCount(fromMs, toMs, stepMs) / 700) - 1))
    }
  })
})
