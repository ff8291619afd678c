/** How old a catalogue's data is at an instant, and what that means for its answers: one text for the status, the start log and the page. */
import type { Catalog } from '../catalog/catalog.ts'
import { describeLimit } from './validity.ts'

const DAY_MS = 86_400_000
/** With no age limit, data older than this counts as stale all the same. */
const STALE_WITHOUT_LIMIT_MS = 30 * DAY_MS

export interface Freshness {
  /** When the data was obtained upstream, ISO 8601. */
  obtainedAt: string
  /** Days from then to the instant. */
  dataAgeDays: number
  /** The age limit, days; null: none. */
  maxElementAgeDays: number | null
  /** Satellites whose elements are within the age limit at the instant. */
  withinAgeLimit: number
  /** Fewer than half the satellites can be given a position by age (or, with no limit, the data is over 30 days old). */
  stale: boolean
  /** One sentence: the data's date and age, and what it means. */
  summary: string
  /** When stale: how to get newer data, or look at the data's own time; else null. */
  advice: string | null
}

export function freshness(catalog: Catalog, nowMs: number): Freshness {
  const obtainedMs = catalog.origin.obtainedAtMs
  const ageMs = nowMs - obtainedMs
  const limitMs = catalog.validity.policy.maxElementAgeMs
  let within = 0
  for (let i = 0; i < catalog.size; i++) if (catalog.validity.inAgeWindow(i, nowMs)) within++
  const stale = limitMs === null ? ageMs > STALE_WITHOUT_LIMIT_MS : within * 2 < catalog.size
  const date = new Date(obtainedMs).toISOString().slice(0, 10)
  const days = Math.floor(ageMs / DAY_MS)
  const limit = limitMs === null ? 'no age limit (--max-element-age off)' : `positions are given within ${describeLimit(limitMs)} of each element set's epoch`
  const summary =
    `Data of ${date}, ${days} day${days === 1 ? '' : 's'} old: ${within} of ${catalog.size} satellites have elements that can give a position now ` + `(${limit}).`
  const advice = stale
    ? 'Positions from elements this old would be fiction (SGP4 errors grow by kilometres a day). Load newer data: --refresh-url to keep it fresh from ' +
      'CelesTrak, --snapshot FILE (a TLE/OMM file or folder, read again on SIGHUP), or rebuild with make snapshot; or look at the sky at the data\'s own time ' +
      `(time=${new Date(obtainedMs).toISOString()}).`
    : null
  return {
    obtainedAt: new Date(obtainedMs).toISOString(),
    dataAgeDays: Math.round((ageMs / DAY_MS) * 1000) / 1000,
    maxElementAgeDays: limitMs === null ? null : limitMs / DAY_MS,
    withinAgeLimit: within,
    stale,
    summary,
    advice,
  }
}
