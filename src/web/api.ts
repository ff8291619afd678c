/**
 * The service's API as the page uses it. Every URL is relative to the page,
 * so the page also works behind a reverse proxy that mounts the service under
 * a prefix (`https://host/sattrack/` → `https://host/sattrack/api/v1/...`).
 * Every answer also tells the page the service's clock (clock.ts).
 */
import { noteDateHeader, noteServiceInstant } from './clock.ts'

export interface Observer {
  /** degrees, north positive */
  latitude: number
  /** degrees, east positive */
  longitude: number
}

/** One entry of GET /api/v1/satellites/nearby (basic mode). */
export interface SkySatellite {
  noradId: number
  name: string
  labels: string[]
  /** km */
  altitude: number
  /** degrees above the horizon */
  elevation: number
  /** degrees, 0 = north, 90 = east */
  azimuth: number
  /** km */
  range: number
  /** estimated apparent visual magnitude (smaller is brighter); null in the Earth's shadow */
  magnitude: number | null
  visible: boolean
  observerDaytime: boolean
  satelliteSunlit: boolean
  /** days from the element set's epoch to the instant (negative before it) */
  elementAgeDays: number
}

export interface NearbyAnswer {
  metadata: { total: number; magnitudeLimit: number; leftOut?: { elementAge: number; decayed: number }; notice?: string }
  observer: { latitude: number; longitude: number; altitude: number; datetime: string }
  satellites: SkySatellite[]
}

export interface Geoposition {
  noradId: number
  name: string
  latitude: number
  longitude: number
  /** km */
  altitude: number
  datetime: string
  /** days from the element set's epoch to the instant */
  elementAgeDays: number
}

export interface TrackPoint {
  datetime: string
  latitude: number
  longitude: number
  altitude: number
}

export interface PassPoint {
  datetime: string
  azimuth: number
  elevation: number
}

export interface TimeSpan {
  from: string
  to: string
}

/** One pass of GET /api/v1/satellites/:noradId/passes. */
export interface Pass {
  /** null: already above the threshold when the search starts, or where the satellite's positions begin (see positionsEdge) */
  rise: PassPoint | null
  culmination: PassPoint & { range: number; magnitude: number | null }
  /** the brightest moment sunlit in a dark sky; null when there is none */
  brightest: (PassPoint & { range: number; magnitude: number }) | null
  /** null: still above the threshold when the search ends, or where the satellite's positions end */
  set: PassPoint | null
  /** seconds above the threshold */
  duration: number
  visible: boolean
  /** the first stretch of the pass in which it is visible to the naked eye */
  visibleWindow: TimeSpan | null
}

/** A stretch of the searched time in which a satellite has no position (stale or decayed elements): no pass is looked for there. */
export interface NoPositionSpan extends TimeSpan {
  reason: string
}

export interface PassesAnswer {
  data: Pass[]
  metadata: {
    total: number
    noradId: number
    name: string
    from: string
    to: string
    days: number
    elevationThreshold: number
    magnitudeLimit: number
    noPosition: NoPositionSpan[]
    /** days from the element set's epoch to the start of the search */
    elementAgeDays: number
  }
}

/** Satellite numbers by group, from the web module (ids sorted, delta-encoded). */
export interface GroupsAnswer {
  groups: Record<string, number[]>
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** `noteSentAt` hears when the request was sent (browser clock), for an answer whose instant is the service's now. */
async function getJson<T>(url: string, signal?: AbortSignal, noteSentAt?: (sentMs: number, answer: T) => void): Promise<T> {
  let response: Response
  const sent = Date.now()
  try {
    response = await fetch(url, { signal, headers: { accept: 'application/json' } })
  } catch (error) {
    if (signal?.aborted) throw error
    throw new ApiFailure(0, 'the service did not answer')
  }
  noteDateHeader(response.headers.get('date'), sent, Date.now())
  const body = await response.json().catch(() => undefined)
  if (!response.ok) throw new ApiFailure(response.status, body?.message ?? `HTTP ${response.status}`)
  noteSentAt?.(sent, body as T)
  return body as T
}

function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v))
  return q.toString()
}

/** Decimal notation the API accepts (never exponent form). */
const coordinate = (deg: number) => deg.toFixed(5).replace(/\.?0+$/, '')

export function fetchNearby(observer: Observer, time: string | undefined, signal?: AbortSignal) {
  return getJson<NearbyAnswer>(
    `api/v1/satellites/nearby?${query({ latitude: coordinate(observer.latitude), longitude: coordinate(observer.longitude), time })}`,
    signal,
    time === undefined ? (sent, answer) => noteServiceInstant(answer.observer.datetime, sent) : undefined,
  )
}

export function fetchSatellite(noradId: number, signal?: AbortSignal) {
  return getJson<{ data: { noradId: number; name: string } }>(`api/v1/satellites/${noradId}`, signal)
}

export function fetchGeoposition(noradId: number, time: string | undefined, signal?: AbortSignal) {
  return getJson<Geoposition>(
    `api/v1/satellites/${noradId}/geoposition?${query({ time })}`,
    signal,
    time === undefined ? (sent, answer) => noteServiceInstant(answer.datetime, sent) : undefined,
  )
}

/** GET /api/v1/satellites/:noradId/positions: instants without a position are left out (counted in `metadata.omitted`). */
export interface TrackAnswer {
  data: TrackPoint[]
  metadata: { noradId: number; name: string; from: string; to: string; step: number; total: number; omitted: number }
}

export function fetchTrack(noradId: number, from: Date, to: Date, stepSeconds: number, signal?: AbortSignal) {
  return getJson<TrackAnswer>(
    `api/v1/satellites/${noradId}/positions?${query({ from: from.toISOString(), to: to.toISOString(), step: stepSeconds })}`,
    signal,
  )
}

export function fetchPasses(noradId: number, observer: Observer, time: string | undefined, days: number, signal?: AbortSignal) {
  return getJson<PassesAnswer>(
    `api/v1/satellites/${noradId}/passes?${query({
      latitude: coordinate(observer.latitude),
      longitude: coordinate(observer.longitude),
      time,
      days,
    })}`,
    signal,
  )
}

/** The data's age and what it means (GET /api/v1/service/status, catalog.freshness). */
export interface Freshness {
  obtainedAt: string
  /** The data's own time: the median of its element sets' epochs. */
  dataTime: string
  dataAgeDays: number
  stale: boolean
  summary: string
  advice: string | null
}

export async function fetchFreshness(signal?: AbortSignal): Promise<Freshness> {
  return (await getJson<{ catalog: { freshness: Freshness } }>('api/v1/service/status', signal)).catalog.freshness
}

/** Group name → the set of satellite numbers in it. */
export async function fetchGroups(signal?: AbortSignal): Promise<Map<string, Set<number>>> {
  const answer = await getJson<GroupsAnswer>('app/groups.json', signal)
  const groups = new Map<string, Set<number>>()
  for (const [name, deltas] of Object.entries(answer.groups)) {
    let id = 0
    groups.set(name, new Set(deltas.map((d) => (id += d))))
  }
  return groups
}

/** One pass of GET /api/v1/passes: a pass of /passes plus the satellite. */
export interface SkyPass extends Pass {
  noradId: number
  name: string
  elementAgeDays: number
  /** the brightest magnitude while sunlit in a dark sky; null when never */
  magnitude: number | null
}

export interface SkyPassesAnswer {
  data: SkyPass[]
  metadata: {
    total: number
    from: string
    to: string
    hours: number
    elevationThreshold: number
    magnitudeLimit: number
    satellites: number
    leftOut: { elementAge: number; decayed: number }
    notice?: string
    noPosition: (NoPositionSpan & { noradId: number })[]
  }
}

/** The query of a catalogue-wide visible-passes search (the same for the JSON and the calendar). */
export function skyPassesQuery(observer: Observer, from: Date, hours: number): string {
  return query({ latitude: coordinate(observer.latitude), longitude: coordinate(observer.longitude), time: from.toISOString(), hours, 'visible-only': 'true' })
}

export function fetchSkyPasses(observer: Observer, from: Date, hours: number, signal?: AbortSignal) {
  return getJson<SkyPassesAnswer>(`api/v1/passes?${skyPassesQuery(observer, from, hours)}`, signal)
}

/** The same passes as an iCalendar file: a link a calendar opens (or subscribes to). */
export function skyPassesCalendarUrl(observer: Observer, from: Date, hours: number): string {
  return `api/v1/passes?${skyPassesQuery(observer, from, hours)}&format=ics`
}

/** A match of the page's search (GET /app/find.json). */
export interface FoundSatellite {
  noradId: number
  name: string
  /** international designator, e.g. 1998-067A */
  designator: string
  match: 'number' | 'designator' | 'common name' | 'name'
  commonName?: string
}

export async function findSatellites(text: string, signal?: AbortSignal): Promise<FoundSatellite[]> {
  return (await getJson<{ data: FoundSatellite[] }>(`app/find.json?${query({ q: text })}`, signal)).data
}
