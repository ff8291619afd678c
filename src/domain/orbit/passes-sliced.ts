/**
 * findPasses in slices: the same search cut at instants where no pass can be,
 * so that a long search (days of a low orbit: ~100-170 ms in one piece) can
 * give way to other requests between slices. Pure: a generator that yields
 * between slices and returns the PassSearch; the caller decides when to go on.
 *
 * Equal to the plain search (test/domain/orbit/passes-sliced.test.ts compares them):
 * a slice boundary is a point of the plain search's own grid (startMs + k·step)
 * at which the satellite has a position and is below the threshold, and where
 * the sampled elevation falls through it (the samples before and after, also
 * with positions, are higher and lower). No pass, no gap in positions and no
 * local extremum of the samples is then at or across the boundary, so every
 * slice sees exactly the samples the plain search sees around what it finds.
 * (The one difference: at a slice's first sample the plain search's test for
 * a pass hidden between two samples also runs, on [t, t + step]; it can only
 * find a pass the plain search would miss, and no run has found one.)
 */
import type { Catalog } from '../catalog/catalog.ts'
import { findPasses, type PassQuery, type PassSearch, scanStepMs } from './passes.ts'
import { positionAt, siderealTimeRad } from './position.ts'
import { lookAngles } from './sky.ts'

/** Grid steps per slice, at least: about 75 minutes of a low orbit (~0.5-3 ms of work). */
export const SLICE_STEPS = 120

/** Yields between slices; returns what findPasses(catalog, index, query) returns. */
export function* findPassesSliced(catalog: Catalog, index: number, query: PassQuery, sliceSteps = SLICE_STEPS): Generator<void, PassSearch> {
  const satrec = catalog.satrecAt(index)
  const startMs = Math.round(query.startMs)
  const endMs = Math.max(startMs, Math.round(query.endMs))
  const stepMs = scanStepMs(satrec)
  const elevation = (t: number): number | null => {
    const instant = new Date(t)
    const gmstRad = siderealTimeRad(instant)
    const position = positionAt(catalog, index, instant, gmstRad, satrec)
    return position.ok ? lookAngles(query.observer, position.state.eciKm, gmstRad).elevationDeg - query.minElevationDeg : null
  }
  /** Whether the grid point `t` may end one slice and start the next. */
  const isBoundary = (t: number): boolean => {
    const here = elevation(t)
    if (here === null || here >= 0) return false
    const before = elevation(t - stepMs)
    const after = elevation(t + stepMs)
    return before !== null && after !== null && before > here && here > after
  }

  if (startMs === endMs) return findPasses(catalog, index, query)
  const result: PassSearch = { passes: [], noPosition: [], anyPosition: false, stepMs }
  let from = startMs
  while (from < endMs) {
    // The next boundary: the first suitable grid point from `sliceSteps` steps on (none: the search's end).
    let to = endMs
    let looked = 0
    for (let t = from + sliceSteps * stepMs; t + stepMs < endMs; t += stepMs) {
      if (isBoundary(t)) {
        to = t
        break
      }
      // A long stretch without a boundary (a high orbit above the threshold) is looked through a slice at a time.
      if (++looked % sliceSteps === 0) yield
    }
    const slice = findPasses(catalog, index, { ...query, startMs: from, endMs: to })
    result.passes.push(...slice.passes)
    result.noPosition.push(...slice.noPosition)
    result.anyPosition ||= slice.anyPosition
    from = to
    if (from < endMs) yield
  }
  return result
}
