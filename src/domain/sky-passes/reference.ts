/**
 * Passes of many satellites over one observer (GET /api/v1/passes): the
 * specification, as a plain loop. Every selected satellite is searched over
 * the whole window with `findPasses` (the per-satellite search behind
 * /satellites/:noradId/passes), visible-only keeps the passes with a visible
 * stretch, and the passes are ordered by their start. The engine (engine.ts)
 * answers the same, far faster; the tests compare the two.
 */
import type { Catalog } from '../catalog/catalog.ts'
import { standardMagnitudes } from '../orbit/magnitude.ts'
import { findPasses, type NoPositionSpan, type Pass } from '../orbit/passes.ts'
import type { Observer } from '../orbit/sky.ts'

export interface SkyPassesQuery {
  observer: Observer
  /** Start and end of the searched time, ms since 1970. */
  startMs: number
  endMs: number
  /** The elevation a pass is above, degrees. */
  minElevationDeg: number
  /** Only passes visible to the naked eye at some moment. */
  visibleOnly: boolean
  /** The faintest magnitude counted as visible. */
  magnitudeLimit: number
  /** The satellites to search: indices in `catalog.satellites`, ascending. */
  indices: readonly number[]
}

/** A pass of the satellite at `index` in the catalogue. */
export interface SkyPass {
  index: number
  pass: Pass
}

export interface SkyPassesResult {
  /** By start, then by catalogue order (catalog number). */
  passes: SkyPass[]
  /** Satellites searched that have no position anywhere in the searched time (indices, ascending). */
  withoutPosition: number[]
  /** Satellites with a position somewhere in the searched time but not everywhere: where they have none (ascending index). */
  noPosition: { index: number; spans: NoPositionSpan[] }[]
}

/** Passes in the answer's order: by start, equal starts by catalogue order. */
export function byStart(a: SkyPass, b: SkyPass): number {
  return a.pass.startMs - b.pass.startMs || a.index - b.index
}

/** The plain loop: yields after each satellite; returns every pass of the selection, in order. */
export function* findSkyPassesPlain(catalog: Catalog, query: SkyPassesQuery): Generator<void, SkyPassesResult> {
  const standards = standardMagnitudes(catalog)
  const result: SkyPassesResult = { passes: [], withoutPosition: [], noPosition: [] }
  for (const index of query.indices) {
    const search = findPasses(catalog, index, {
      observer: query.observer,
      startMs: query.startMs,
      endMs: query.endMs,
      minElevationDeg: query.minElevationDeg,
      brightness: { standardMagnitude: standards[index]!, magnitudeLimit: query.magnitudeLimit },
    })
    if (!search.anyPosition) result.withoutPosition.push(index)
    else if (search.noPosition.length > 0) result.noPosition.push({ index, spans: search.noPosition })
    for (const pass of search.passes) if (!query.visibleOnly || pass.visible.length > 0) result.passes.push({ index, pass })
    yield
  }
  result.passes.sort(byStart)
  return result
}
