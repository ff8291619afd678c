/**
 * The catalogue to start from: the newest of the embedded snapshot, --snapshot
 * and the data-dir cache, by when their data was obtained (a snapshot's stamp,
 * the cache's fetch time). Equal times go to the cache, then to --snapshot.
 */
import type { CatalogOrigin } from './catalog.ts'
import { catalogFromSnapshot, type LoadReport, type SnapshotData } from './snapshot.ts'

export type StartSource = Exclude<CatalogOrigin['source'], 'refresh'>

export interface StartCandidate {
  source: StartSource
  snapshot: SnapshotData
}

export interface StartChoice {
  candidate: StartCandidate
  report: LoadReport
  /** Newer candidates that could not be used, with the reason (logged by the caller). */
  rejected: { source: StartSource; description: string; reason: string }[]
}

const TIE_ORDER: Record<StartSource, number> = { cache: 0, snapshot: 1, embedded: 2 }

/** Newest first; on equal stamps the cache, then --snapshot, then the embedded snapshot. */
export function rankCandidates(candidates: readonly StartCandidate[]): StartCandidate[] {
  return [...candidates].sort((a, b) => b.snapshot.stampMs - a.snapshot.stampMs || TIE_ORDER[a.source] - TIE_ORDER[b.source])
}

/**
 * Builds the catalogue of the best candidate that yields one. A cache must be
 * whole (every payload readable in its recorded format) or it is passed over;
 * a snapshot must hold at least one valid element set.
 */
export function chooseStartCatalog(candidates: readonly StartCandidate[], nowMs: number): StartChoice | null {
  const rejected: StartChoice['rejected'] = []
  for (const candidate of rankCandidates(candidates)) {
    const report = catalogFromSnapshot(candidate.snapshot, candidate.source, nowMs)
    const unreadable = Object.entries(report.unreadableGroups)
    let reason: string | null = null
    if (candidate.source === 'cache' && unreadable.length > 0) reason = `group ${unreadable[0]![0]}: ${unreadable[0]![1]}`
    else if (report.catalog.size === 0) reason = 'no valid element sets'
    if (reason === null) return { candidate, report, rejected }
    rejected.push({ source: candidate.source, description: candidate.snapshot.description, reason })
  }
  return null
}
