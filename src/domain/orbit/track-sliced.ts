/** Ground tracks a piece at a time: the speed-up beside `groundTrack` (track.ts), which it must equal (test/domain/orbit/track.test.ts). */
import type { Catalog } from '../catalog/catalog.ts'
import { type GroundTrack, sampleCount, trackSamples } from './track.ts'

/**
 * `groundTrack` a piece of `pieceSize` samples at a time: a generator that
 * yields between pieces and returns what groundTrack returns, so a long track
 * can give way to other work (the caller decides when to go on).
 */
export function* groundTrackSliced(catalog: Catalog, index: number, fromMs: number, toMs: number, stepMs: number, pieceSize = 500): Generator<void, GroundTrack> {
  const count = sampleCount(fromMs, toMs, stepMs)
  const track: GroundTrack = { points: [], omitted: 0, firstOmissionReason: null, stepMs }
  for (let start = 0; start < count; start += pieceSize) {
    if (start > 0) yield
    const piece = trackSamples(catalog, index, fromMs, stepMs, start, Math.min(count, start + pieceSize))
    for (const point of piece.points) track.points.push(point)
    track.omitted += piece.omitted
    track.firstOmissionReason ??= piece.firstOmissionReason
  }
  return track
}
