/** How old a catalogue's data is at an instant, and what that means for its answers: one text for the status, the start log and the page. */
import type { Catalog } from '../catalog/catalog.ts'
import { describeLimit } from './validity.ts'

const DAY_MS = 86_400_000
const MINUTE_MS = 60_000
/** Data, or elements (their median epoch), older than this count as stale whatever the age limit lets through (the log's warnings use the same 14 days); the oldest group's age counts. */
const STALE_DATA_MS = 14 * DAY_MS

export interface Freshness {
  /** When the data was obtained upstream, ISO 8601: its oldest group, when its groups were obtained at different times. */
  obtainedAt: string
  /** When its newest group was obtained (the same as `obtainedAt` when all were obtained at once). */
  newestObtainedAt: string
  /** The groups obtained at `obtainedAt` (within a minute), when not all were: the oldest data served. */
  oldestGroups: string[]
  /** Days from `obtainedAt` to the instant: the age of the oldest data served. */
  dataAgeDays: number
  /** The age limit, days; null: none. */
  maxElementAgeDays: number | null
  /** Satellites whose elements can give a position at the instant: within the age limit and not decayed. */
  withinAgeLimit: number
  /** Satellites left out at the instant because they have decayed. */
  decayed: number
  /** The data, or its elements (their median epoch), are over 14 days old, or fewer than half the satellites can be given a position. */
  stale: boolean
  /** One sentence: the data's date and age, and what it means. */
  summary: string
  /**
   * The data's own time, ISO 8601, to the minute: the median of the element sets' epochs, where the
   * most of them are near their epoch. (Not `obtainedAt`: files are dated by their modification
   * time, which may be months after their elements were.)
   */
  dataTime: string
  /** When stale: how to get newer data, or look at the sky at `dataTime`; when the clock is before the elements: set it; else null. */
  advice: string | null
}

/** Groups obtained within this of each other count as obtained together (files written by one copy differ by milliseconds). */
const TOGETHER_MS = 60_000

/** Elements older than the data's date by more than this are said to be (files copied long after their elements). */
const OLDER_ELEMENTS_MS = 2 * DAY_MS

/** Elements whose median epoch is this far ahead of the clock say the clock is wrong (the same day as a stamp's allowed skew). */
const CLOCK_BEHIND_MS = DAY_MS

/** `N days old`, whole days. */
function daysOld(ms: number): string {
  const days = Math.floor(ms / DAY_MS)
  return `${days} day${days === 1 ? '' : 's'} old`
}

/** The data's own time (`Freshness.dataTime`), ms: the median of the element sets' epochs to the minute; the time it was obtained when it has none. */
export function dataTimeMs(catalog: Catalog): number {
  return Math.round((catalog.medianEpochMs() ?? catalog.origin.obtainedAtMs) / MINUTE_MS) * MINUTE_MS
}

/**
 * `refreshing`: the background refresh is on (the advice then points at why it brings nothing newer).
 * `countDecay`: also look for decays up to `nowMs` (the status endpoint, the OpenAPI description);
 * without it only the age limit is counted, which costs no propagation, and the sentence says so
 * (the start log, written as the service starts: finding every decay up to months past the epochs
 * takes ~0.5 s).
 */
export function freshness(catalog: Catalog, nowMs: number, { countDecay = true, refreshing = false } = {}): Freshness {
  // The oldest data served decides: a refresh that brought some groups up to date does not make the others young.
  const times = Object.entries(catalog.origin.groupsObtainedAtMs ?? {})
  const obtainedMs = times.length > 0 ? Math.min(...times.map(([, ms]) => ms)) : catalog.origin.obtainedAtMs
  const newestMs = times.length > 0 ? Math.max(...times.map(([, ms]) => ms)) : catalog.origin.obtainedAtMs
  const oldestGroups = newestMs - obtainedMs <= TOGETHER_MS ? [] : times.filter(([, ms]) => ms - obtainedMs <= TOGETHER_MS).map(([group]) => group).sort()
  const ageMs = nowMs - obtainedMs
  const limitMs = catalog.validity.policy.maxElementAgeMs
  let left = { elementAge: 0, decayed: 0 }
  if (countDecay) left = catalog.validity.countRefusals(nowMs, (i) => catalog.satrecAt(i))
  else for (let i = 0; i < catalog.size; i++) if (!catalog.validity.inAgeWindow(i, nowMs)) left.elementAge++
  const within = catalog.size - left.elementAge - left.decayed
  const dataMs = dataTimeMs(catalog)
  // Old elements obtained recently (an upstream or files that are behind) are as stale as old data: the elements' age counts too.
  const elementsOld = nowMs - dataMs > STALE_DATA_MS
  const stale = ageMs > STALE_DATA_MS || elementsOld || within * 2 < catalog.size
  const date = new Date(obtainedMs).toISOString().slice(0, 10)
  const limit = limitMs === null ? 'no age limit (--max-element-age off)' : `positions are given within ${describeLimit(limitMs)} of each element set's epoch`
  const age = daysOld(ageMs)
  // Files are dated by their modification time: a copy made long after its elements would pass for young data.
  // A clock before the elements (a board without a real-time clock boots in 1970): the data was dated by the time it was
  // read (a date in the future is not believed), so its age says nothing; its elements' median epoch says when it is from.
  const clockBehind = dataMs - nowMs > CLOCK_BEHIND_MS
  const notes = [
    ...(clockBehind ? [`this machine's clock is before its elements: median epoch ${new Date(dataMs).toISOString().slice(0, 10)}; the clock is probably wrong`] : []),
    ...(oldestGroups.length > 0 ? [`the oldest, ${oldestGroups.join(', ')}, ${age}`] : []),
    ...(obtainedMs - dataMs > OLDER_ELEMENTS_MS ? [`its elements are older: median epoch ${new Date(dataMs).toISOString().slice(0, 10)}, ${daysOld(nowMs - dataMs)}`] : []),
  ]
  const newestDate = new Date(newestMs).toISOString().slice(0, 10)
  const dates = newestDate === date ? date : `${date} to ${newestDate}`
  const dated = `Data of ${dates}${oldestGroups.length > 0 ? '' : `, ${age}`}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`
  const summary =
    `${dated}: ${within} of ${catalog.size} satellites have elements that can give a position now` +
    `${countDecay ? '' : ' by age'} ` +
    `(${limit}${left.decayed > 0 ? `; ${left.decayed} have decayed` : ''}${countDecay ? '' : '; decays are not counted here: GET /api/v1/service/status counts them'}).`
  const dataTime = new Date(dataMs).toISOString()
  const refused = catalog.size - within
  // What the age does to the answers now: "most are refused" only when most are.
  const consequence =
    refused === catalog.size
      ? `all are refused (${refused} of ${catalog.size} now)`
      : within * 2 < catalog.size
        ? `most are refused (${refused} of ${catalog.size} now)`
        : limitMs === null
          ? 'with no age limit (--max-element-age off) they are given all the same'
          : `more are refused as they age (${refused} of ${catalog.size} now)`
  // A clock before the data: setting it is the advice (the data is not old; "now" is wrong).
  const staleAdvice = stale && !clockBehind
    ? `SGP4 errors grow by kilometres a day: positions from old elements drift far from the truth, and ${consequence}. ` +
      // Obtained recently, its elements old: the source is what is behind.
      (ageMs <= STALE_DATA_MS && elementsOld ? 'It was obtained recently but its source is behind: load data from one that is up to date: ' : 'Load newer data: ') +
      // Refreshing already: what is wrong is the upstream or the way to it, which the status's refresh part says.
      (refreshing
        ? 'the refresh is on, so see why it brings nothing newer (GET /api/v1/service/status: refresh.lastError, refresh.groupErrors; the upstream --refresh-url names), or use --snapshot FILE'
        : '--refresh-url to keep it fresh from CelesTrak, --snapshot FILE (a TLE/OMM file or folder, read again on SIGHUP), or rebuild with make snapshot') +
      '; or look at the sky at the data\'s own time ' +
      `(time=${dataTime}: the median of its element sets' epochs).`
    : null
  const clockAdvice = clockBehind
    ? 'Set this machine\'s clock (NTP, timedatectl): "now" here is before the data was made, so answers for "now" are for a wrong instant and data ages cannot be told.'
    : null
  const advice = [clockAdvice, staleAdvice].filter((text) => text !== null).join(' ') || null
  return {
    obtainedAt: new Date(obtainedMs).toISOString(),
    newestObtainedAt: new Date(newestMs).toISOString(),
    oldestGroups,
    dataAgeDays: Math.round((ageMs / DAY_MS) * 1000) / 1000,
    maxElementAgeDays: limitMs === null ? null : limitMs / DAY_MS,
    withinAgeLimit: within,
    decayed: left.decayed,
    stale,
    summary,
    dataTime,
    advice,
  }
}
