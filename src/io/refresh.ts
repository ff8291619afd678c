/**
 * Background refresh from a CelesTrak-compatible GP endpoint. A round fetches
 * every group (conditional GET after a success), builds the new catalogue off
 * to the side, validates it and swaps it in one step; any failure leaves the
 * current catalogue untouched, is recorded, and backs the next attempt off
 * exponentially. Groups of the catalogue that a round does not fetch (with
 * `--refresh-groups` naming a subset) keep their element sets: a round adds to
 * what the service has, it never loses any of it. After a success the payloads
 * are written to the data dir.
 *
 * One of the modules allowed to read the clock and do I/O; the clock, fetch,
 * timers and the persistence are injected so tests can drive it.
 */
import { log as defaultLog } from './log.ts'
import { VERSION } from './version.ts'
import type { Catalog } from '../domain/catalog/catalog.ts'
import { describeRefusal, type ElementGroup, endsCutShort, type GroupSet, readGroup } from '../domain/catalog/groups.ts'
import { catalogOf, confirmedOrigin, layerOf, MAX_LOGGED_REFUSALS, overlay, type RefusedSet, refusedSets } from '../domain/catalog/overlay.ts'
import { describeContent, type ElementFormat, formatName, sniffFormat } from '../domain/catalog/formats.ts'
import type { RefreshStatus } from '../domain/catalog/refresh.ts'
import type { CatalogStore } from '../domain/catalog/store.ts'

/*
 * Memory. A service of 12k satellites holds ~80 MB at rest and is given 200 MB
 * (README, "Memory"); a round of the eight groups with every set new peaks at
 * ~155 MB (the new catalogue is built beside the old one, and SGP4 checks every
 * set). So what a round may take is bounded three ways, and the worst a
 * valid-looking upstream can do within them peaks under 180 MB (measured with
 * bench/refresh-memory.ts against the loopback stand-in; docs/operations.md has
 * the figures): each body, the payloads held (the round's and those kept from
 * earlier rounds, which the cache file holds too and a start reads back), and
 * the satellites.
 */
/**
 * Responses larger than this are refused, without reading them whole.
 * CelesTrak's largest group today, starlink, is 4.4 MB as OMM JSON (10,395
 * satellites, ~420 bytes each); this leaves room for ~19,000.
 */
export const MAX_BODY_BYTES = 8 * 1024 * 1024
/**
 * The payloads held after a round together: this round's bodies and the
 * payloads kept from earlier rounds for the groups it did not take (all of them
 * are written to the cache, and read back at start). A group whose body would
 * pass it is refused. The eight groups of the embedded snapshot as OMM JSON are
 * about 5 MB.
 */
export const MAX_ROUND_BYTES = 10 * 1024 * 1024
/**
 * The most satellites a round may leave in the catalogue (one that holds more,
 * from --snapshot, keeps what it has: a round may then not grow it). A group
 * that would pass it is refused, and reading a body stops past it. The eight
 * groups hold 11,931 today.
 */
export const MAX_SATELLITES = 20_000
/** The first wait after a failure; it doubles with each failure in a row, up to the interval. */
export const FIRST_RETRY_MS = 60_000
/** The longest wait a Retry-After is honoured for. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000
/** Redirects followed per request (same origin only). */
export const MAX_REDIRECTS = 3
/** A payload with a larger share of invalid element sets is refused as damaged. */
export const MAX_INVALID_SHARE = 0.1
/** A warning is logged when the median element age exceeds this. */
export const STALE_MEDIAN_AGE_DAYS = 14
/** setTimeout's longest delay; longer waits are taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1

export interface RefreshSettings {
  /** The GP endpoint, e.g. `https://celestrak.org/NORAD/elements/gp.php`; GROUP and FORMAT are added. */
  url: string
  /** Time between successful rounds, ms. */
  intervalMs: number
  /** The groups to fetch (CelesTrak GROUP names). */
  groups: readonly string[]
  format: ElementFormat
  /** The longest a request may take, body included, ms. */
  timeoutMs: number
  /** Largest accepted response body, bytes; MAX_BODY_BYTES unless a test needs less. */
  maxBodyBytes?: number
  /** Largest total of the payloads held after a round, bytes; MAX_ROUND_BYTES unless a test needs less. */
  maxRoundBytes?: number
  /** The most satellites a round may leave in the catalogue; MAX_SATELLITES unless a test needs less. */
  maxSatellites?: number
}

export interface Timers {
  set(callback: () => void, delayMs: number): unknown
  clear(handle: unknown): void
}

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
}

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>

export interface RefresherOptions {
  store: CatalogStore
  settings: RefreshSettings
  /** Now, ms since 1970. */
  clock?: () => number
  fetch?: FetchLike
  /** Schedules rounds (request timeouts always use real time). */
  timers?: Timers
  /** Writes the payloads of a successful round (the data-dir cache): a set of groups, each with its payload. */
  persist?: (contents: GroupSet) => Promise<unknown>
  /**
   * The payloads the current catalogue was built from (when it came from the
   * cache): the first round can then be conditional. Give nothing otherwise.
   */
  initialPayloads?: readonly ElementGroup[]
  log?: Logger
  /** Called after every swap, with the new catalogue. */
  onSwap?: (catalog: Catalog) => void
}

/**
 * A round's outcome. A round succeeds group by group: `failedGroups` names the
 * groups that failed (they keep the element sets they had) while the others
 * were taken; `failed` means no group could be taken.
 */
export type RoundOutcome =
  | { kind: 'changed'; catalog: Catalog; failedGroups?: Record<string, string> }
  | { kind: 'unchanged'; failedGroups?: Record<string, string> }
  | { kind: 'failed'; error: string }
  | { kind: 'stopped' }


interface RoundResult {
  outcome: RoundOutcome
  /** The longest Retry-After a failed group's answer asked for, ms. */
  retryAfterMs?: number
  /** What to write to the data dir after a success. */
  save?: GroupSet
}

type GroupResult =
  | { ok: true; payload: ElementGroup; changed: boolean }
  | { ok: false; error: string; retryAfterMs?: number; missing?: boolean; holdOff?: number }
  | { ok: false; stopped: true }

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** The URL of one group: the endpoint with GROUP and FORMAT set (other parameters kept). */
export function groupUrl(endpoint: string, group: string, format: ElementFormat): string {
  const url = new URL(endpoint)
  url.searchParams.set('GROUP', group)
  url.searchParams.set('FORMAT', format)
  return url.toString()
}

/**
 * The wait before the next attempt after `failures` failed rounds in a row: a
 * minute, doubling with each failure, never more than the interval (a service
 * that starts before its network is fresh within minutes); at least what the
 * upstream asked for with Retry-After (up to a day).
 */
export function backoffDelayMs(intervalMs: number, failures: number, retryAfterMs = 0): number {
  if (failures <= 0) return intervalMs
  const backoff = Math.min(intervalMs, FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 30))
  return Math.max(backoff, Math.min(MAX_RETRY_AFTER_MS, retryAfterMs))
}

/** Retry-After (seconds, or an HTTP date) as ms from `nowMs`; 0 when absent or unreadable. */
export function retryAfterMs(value: string | null, nowMs: number): number {
  if (!value) return 0
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const at = Date.parse(trimmed)
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : 0
}

/**
 * The endpoint as logs and status show it: no userinfo, and the value of every
 * query parameter replaced (they may hold keys), except GROUP and FORMAT, which
 * the service sets itself.
 */
export function redactUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return '(an invalid URL)'
  }
  if (url.username || url.password) {
    url.username = 'redacted'
    url.password = ''
  }
  const params = [...url.searchParams.keys()]
  const kept = new Set(['GROUP', 'FORMAT'])
  for (const key of new Set(params)) if (!kept.has(key)) url.searchParams.set(key, 'redacted')
  return url.toString()
}

/** What a body is, for messages: its kind and size (`bytes`, as received: not the decoded text's, where an invalid byte takes three), never its text. */
export function describeBody(text: string, bytes: number, format: ElementFormat): string {
  const kind = sniffFormat(text) === format ? `${formatName(format)} that cannot be read` : describeContent(text, false)
  return `${kind} (${bytes} bytes)`
}

/** CelesTrak's answer for a GROUP it does not have. */
function isNoSuchGroup(text: string): boolean {
  return /^\s*No GP data found\s*$/i.test(text)
}

/** `300ms`, `90s`, `30m`, `6h` for messages. */
export function formatDuration(ms: number): string {
  if (ms % 1000 !== 0) return `${ms}ms`
  const s = ms / 1000
  if (s % 3600 === 0) return `${s / 3600}h`
  if (s % 60 === 0) return `${s / 60}m`
  return `${s}s`
}

/** Logs a warning when the median element age of `catalog` exceeds 14 days; returns that age. */
export function warnIfStale(catalog: Catalog, nowMs: number, logger: Logger = defaultLog): number | null {
  const stats = catalog.epochStats(nowMs)
  if (stats && stats.medianAgeDays > STALE_MEDIAN_AGE_DAYS) {
    logger.warn('element sets are stale', {
      medianAgeDays: Math.round(stats.medianAgeDays * 10) / 10,
      limitDays: STALE_MEDIAN_AGE_DAYS,
      source: catalog.origin.source,
    })
  }
  return stats?.medianAgeDays ?? null
}

export class BodyTooLargeError extends Error {}

/** The body as text (UTF-8) and its size in bytes as received, refused as soon as it passes `maxBytes` (announced or counted): never buffered whole. */
export async function readBodyCapped(response: Response, maxBytes: number): Promise<{ text: string; bytes: number }> {
  const tooLarge = () => new BodyTooLargeError(`the body is larger than the ${maxBytes}-byte limit`)
  const declared = Number(response.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {})
    throw tooLarge()
  }
  if (!response.body) return { text: '', bytes: 0 }
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(value)
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks, total)), bytes: total }
}

/**
 * Logs the element sets a source did not take, one line each (whose, which
 * group, why, whether the satellite stays there with the set it had), the first
 * MAX_LOGGED_REFUSALS of them; the rest in one line with their count per group.
 */
export function logRefusedSets(logger: Logger, what: string, refused: readonly RefusedSet[], fields: Record<string, unknown> = {}): void {
  for (const r of refused.slice(0, MAX_LOGGED_REFUSALS)) logger.warn(`${what}: element set refused`, { ...fields, ...r })
  const rest = refused.slice(MAX_LOGGED_REFUSALS)
  if (rest.length === 0) return
  const byGroup: Record<string, number> = {}
  for (const r of rest) byGroup[r.group] = (byGroup[r.group] ?? 0) + 1
  logger.warn(`${what}: more element sets refused`, { ...fields, count: rest.length, byGroup, satellitesKept: rest.filter((r) => r.satelliteKept).length })
}

const realTimers: Timers = {
  set: (callback, delayMs) => setTimeout(callback, delayMs),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

export class Refresher {
  readonly settings: Required<RefreshSettings>
  readonly #store: CatalogStore
  readonly #clock: () => number
  readonly #fetch: FetchLike
  readonly #timers: Timers
  readonly #persist: ((contents: GroupSet) => Promise<unknown>) | undefined
  readonly #log: Logger
  readonly #onSwap: ((catalog: Catalog) => void) | undefined
  readonly #userAgent = `sattrack/${VERSION}`
  /** The payload behind each group of the current catalogue, when it came from the cache or a refresh. */
  #payloads = new Map<string, ElementGroup>()
  #timer: unknown = null
  #running: Promise<RoundOutcome> | null = null
  #abort: AbortController | null = null
  #started = false
  #stopped = false
  #lastAttemptMs: number | null = null
  #lastSuccessMs: number | null = null
  #lastError: string | null = null
  #nextAttemptMs: number | null = null
  #failures = 0
  #cacheError: string | null = null
  /** Why each group failed in the last round (missing groups are in #missing). */
  #groupErrors: Record<string, string> = {}
  /** Groups the upstream answered it does not have, in the last round. */
  #missing: string[] = []
  #roundsSucceeded = 0
  #roundsFailed = 0

  constructor(options: RefresherOptions) {
    this.settings = { maxBodyBytes: MAX_BODY_BYTES, maxRoundBytes: MAX_ROUND_BYTES, maxSatellites: MAX_SATELLITES, ...options.settings, groups: [...options.settings.groups] }
    this.#store = options.store
    this.#clock = options.clock ?? Date.now
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init))
    this.#timers = options.timers ?? realTimers
    this.#persist = options.persist
    this.#log = options.log ?? defaultLog
    this.#onSwap = options.onSwap
    for (const payload of options.initialPayloads ?? []) this.#payloads.set(payload.group, { ...payload })
  }

  /** Rounds that succeeded (a 304 for every group included) and rounds that failed, since start (for /metrics). */
  counts(): { succeeded: number; failed: number } {
    return { succeeded: this.#roundsSucceeded, failed: this.#roundsFailed }
  }

  /**
   * Schedules the first round: at once when the data of a group to refresh is
   * older than the interval, or the catalogue lacks the group, or its element
   * sets are stale whatever its date says (their median age is over 14 days: a
   * copy of old data dated by when its files were written); else when the
   * oldest of them will be an interval old.
   */
  start(): void {
    if (this.#started || this.#stopped) return
    this.#started = true
    const now = this.#clock()
    const catalog = this.#store.current
    const obtainedAt = Math.min(...this.settings.groups.map((group) => (this.#groupStale(catalog, group, now) ? -Infinity : this.#groupObtainedAt(catalog, group))))
    const dueAt = now - obtainedAt >= this.settings.intervalMs ? now : Math.min(obtainedAt + this.settings.intervalMs, now + this.settings.intervalMs)
    this.#scheduleAt(dueAt)
  }

  /** When the catalogue's data for `group` was obtained; -Infinity when it has no such group. */
  #groupObtainedAt(catalog: Catalog, group: string): number {
    if (!(group in catalog.groupCounts)) return -Infinity
    return catalog.origin.groupsObtainedAtMs?.[group] ?? catalog.origin.obtainedAtMs
  }

  /** Whether the median element age of the group's satellites exceeds STALE_MEDIAN_AGE_DAYS. */
  #groupStale(catalog: Catalog, group: string, nowMs: number): boolean {
    const epochs = catalog.satellites.flatMap((s) => (s.groups.includes(group) ? [s.elements.epochMs] : [])).sort((a, b) => a - b)
    if (epochs.length === 0) return false
    return (nowMs - epochs[epochs.length >> 1]!) / 86_400_000 > STALE_MEDIAN_AGE_DAYS
  }

  /** Cancels the schedule and any request in flight; a round cut short changes nothing. */
  stop(): void {
    this.#stopped = true
    if (this.#timer !== null) this.#timers.clear(this.#timer)
    this.#timer = null
    this.#nextAttemptMs = null
    this.#abort?.abort()
  }

  /** Runs a round now (or joins the one in progress). */
  refreshNow(): Promise<RoundOutcome> {
    if (!this.#running) {
      this.#running = this.#round().finally(() => {
        this.#running = null
      })
    }
    return this.#running
  }

  status(): RefreshStatus {
    return {
      enabled: true,
      url: redactUrl(this.settings.url),
      intervalSeconds: this.settings.intervalMs / 1000,
      format: this.settings.format,
      groups: [...this.settings.groups],
      lastAttemptAt: iso(this.#lastAttemptMs),
      lastSuccessAt: iso(this.#lastSuccessMs),
      lastError: this.#lastError,
      nextAttemptAt: iso(this.#nextAttemptMs),
      consecutiveFailures: this.#failures,
      inProgress: this.#running !== null,
      cacheError: this.#cacheError,
      groupErrors: { ...this.#groupErrors },
      missingGroups: [...this.#missing],
    }
  }

  #scheduleAt(atMs: number): void {
    if (this.#timer !== null) this.#timers.clear(this.#timer)
    this.#nextAttemptMs = atMs
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, atMs - this.#clock()))
    this.#timer = this.#timers.set(() => this.#onTimer(), delay)
  }

  #onTimer(): void {
    this.#timer = null
    if (this.#stopped || this.#nextAttemptMs === null) return
    // Waits longer than a timer holds are taken in steps.
    if (this.#clock() < this.#nextAttemptMs - 1000) return this.#scheduleAt(this.#nextAttemptMs)
    void this.refreshNow()
  }

  async #round(): Promise<RoundOutcome> {
    const startedAt = this.#clock()
    this.#lastAttemptMs = startedAt
    // The next attempt is known once this one ends (#record schedules it): until then there is none.
    if (this.#timer !== null) this.#timers.clear(this.#timer)
    this.#timer = null
    this.#nextAttemptMs = null
    const abort = new AbortController()
    this.#abort = abort
    let result: RoundResult
    try {
      result = await this.#fetchAndSwap(startedAt, abort.signal)
    } catch (error) {
      // A bug, not an upstream fault: still never fatal to the service.
      result = { outcome: { kind: 'failed', error: `internal error: ${error instanceof Error ? error.message : String(error)}` } }
    } finally {
      this.#abort = null
    }
    const { outcome } = result
    if (outcome.kind === 'stopped') return outcome
    // Recorded in the same turn as the swap: status never shows a new catalogue with an old success time.
    this.#record(outcome, result.retryAfterMs ?? 0)
    if (result.save) await this.#save(result.save)
    return outcome
  }

  #record(outcome: Exclude<RoundOutcome, { kind: 'stopped' }>, retryAfter: number): void {
    const now = this.#clock()
    // A group was taken or confirmed (a 304), even if others failed: lastSuccessAt says when the upstream last gave data.
    if (outcome.kind !== 'failed') this.#lastSuccessMs = now
    const failedGroups = outcome.kind === 'failed' ? null : (outcome.failedGroups ?? {})
    const partial = failedGroups !== null && Object.keys(failedGroups).length > 0
    if (outcome.kind === 'failed' || partial) {
      this.#failures += 1
      this.#roundsFailed += 1
      const error =
        outcome.kind === 'failed'
          ? outcome.error
          : `${Object.keys(failedGroups!).length} of ${this.settings.groups.length} groups failed and keep their element sets: ${Object.entries(failedGroups!)
              .map(([g, e]) => `${g}: ${e}`)
              .join('; ')}`
      this.#lastError = error
      const delay = backoffDelayMs(this.settings.intervalMs, this.#failures, retryAfter)
      this.#log.warn(outcome.kind === 'failed' ? 'refresh failed; the catalogue is unchanged' : 'refresh: some groups failed; they keep their element sets', {
        error,
        failuresInARow: this.#failures,
        nextAttemptAt: iso(now + delay),
      })
      if (this.#started && !this.#stopped) this.#scheduleAt(now + delay)
      else this.#nextAttemptMs = null
    } else {
      this.#failures = 0
      this.#roundsSucceeded += 1
      this.#lastError = null
      if (this.#started && !this.#stopped) this.#scheduleAt(now + this.settings.intervalMs)
      else this.#nextAttemptMs = null
    }
    warnIfStale(this.#store.current, now, this.#log)
  }

  async #fetchAndSwap(startedAt: number, signal: AbortSignal): Promise<RoundResult> {
    const current = this.#store.current
    const next: ElementGroup[] = []
    const stopped = { outcome: { kind: 'stopped' } } as const
    let notModified = 0
    const failedGroups: Record<string, string> = {}
    const missing: string[] = []
    let retryAfter = 0
    // Each group on its own: one that fails keeps its element sets and does not stop the others, unless the
    // upstream asked to be left alone (403, 429): then the remaining groups are not asked for this round.
    let holdOff: string | null = null
    // What the round may take (see MAX_ROUND_BYTES, MAX_SATELLITES): the payload held for each group after it,
    // and the satellites of each group (a group taken replaces its own).
    const heldBytes = new Map([...this.#payloads].map(([group, p]) => [group, Buffer.byteLength(p.text ?? '')]))
    const satelliteLimit = Math.max(this.settings.maxSatellites, current.size)
    const idsByGroup = new Map<string, Set<number>>(Object.keys(current.groupCounts).map((g) => [g, new Set<number>()]))
    for (const s of current.satellites) for (const g of s.groups) idsByGroup.get(g)?.add(s.noradId)
    for (const group of this.settings.groups) {
      if (signal.aborted) return stopped
      if (holdOff) {
        failedGroups[group] = `not asked: ${holdOff}`
        continue
      }
      let othersBytes = 0
      for (const [g, bytes] of heldBytes) if (g !== group) othersBytes += bytes
      const result = await this.#fetchGroup(group, signal, this.settings.maxRoundBytes - othersBytes, satelliteLimit)
      if (!result.ok) {
        if ('stopped' in result) return stopped
        if (result.missing) missing.push(group)
        else failedGroups[group] = result.error
        retryAfter = Math.max(retryAfter, result.retryAfterMs ?? 0)
        if (result.holdOff) holdOff = `${group} answered HTTP ${result.holdOff}`
        continue
      }
      const { payload } = result
      if (!result.changed) notModified += 1
      else {
        const ids = new Set(payload.elements!.map((e) => e.noradId))
        const before = current.groupCounts[group]
        if (before !== undefined && ids.size < before / 2) {
          failedGroups[group] = `${ids.size} satellites, fewer than half of the ${before} it had`
          continue
        }
        // Satellites it did not take stay in it (they keep their sets): they count too.
        const held = idsByGroup.get(group)
        for (const r of payload.refused ?? []) if (r.noradId !== null && held?.has(r.noradId)) ids.add(r.noradId)
        const all = new Set(ids)
        for (const [g, other] of idsByGroup) if (g !== group) for (const id of other) all.add(id)
        if (all.size > satelliteLimit) {
          failedGroups[group] = `taking its ${ids.size} satellites would leave ${all.size} in the catalogue, more than the limit of ${satelliteLimit}`
          continue
        }
        idsByGroup.set(group, ids)
        heldBytes.set(group, Buffer.byteLength(payload.text ?? ''))
      }
      next.push(payload)
    }
    if (signal.aborted) return stopped
    if (missing.join() !== this.#missing.join()) {
      if (missing.length > 0) this.#log.warn('refresh: the upstream does not have these groups; the others are refreshed', { groups: missing, url: redactUrl(this.settings.url) })
    }
    this.#missing = missing
    this.#groupErrors = failedGroups
    if (next.length === 0) {
      const reasons = Object.entries(failedGroups).map(([g, e]) => `${g}: ${e}`)
      const error = reasons.length > 0 ? reasons.join('; ') : `the upstream has none of the groups (${missing.join(', ')})`
      return { outcome: { kind: 'failed', error }, retryAfterMs: retryAfter }
    }

    // Groups of the catalogue that this round does not take keep their element sets: a round never loses data.
    // Those that came from upstream before (an earlier round, the cache) stay in the cache with their own fetch times.
    const fetched = new Set(next.map((p) => p.group))
    const kept = Object.keys(current.groupCounts).filter((group) => !fetched.has(group))
    const carried = kept.flatMap((group) => this.#payloads.get(group) ?? [])
    // The cache file records where the data came from, redacted like the logs: it may be readable by others.
    // With each group as read (its sets and refusals): the cache's reads file keeps them for the next start (src/io/cache.ts).
    const save = (): GroupSet => ({ source: 'refresh', description: redactUrl(this.settings.url), obtainedAtMs: startedAt, groups: [...next, ...carried] })
    if (notModified === next.length && next.every((p) => p.group in current.groupCounts)) {
      // Every group taken answered 304: the data is confirmed, the same satellites (and ETags), those groups obtained now.
      this.#payloads = new Map([...carried, ...next].map((p) => [p.group, p]))
      const held = this.#store.current
      const confirmed = held.withOrigin(confirmedOrigin(held.origin, Object.keys(held.groupCounts), [...fetched], startedAt))
      this.#store.swap(confirmed)
      this.#onSwap?.(confirmed)
      this.#log.info('refresh: upstream unchanged', { groups: next.length })
      return { outcome: { kind: 'unchanged', ...(Object.keys(failedGroups).length > 0 ? { failedGroups } : {}) }, save: save(), retryAfterMs: retryAfter }
    }

    const round: ElementGroup[] = []
    for (const payload of [...next]) {
      // A 304 confirms a payload read from the cache at start: read it (the same step as every source).
      const read = readGroup(payload)
      if (!read.ok) {
        failedGroups[payload.group] = `the payload held for it cannot be read: ${read.reason}`
        next.splice(next.indexOf(payload), 1)
        continue
      }
      next[next.indexOf(payload)] = read.group
      // The round's groups are dated by the round.
      round.push({ ...read.group, source: 'refresh', obtainedAtMs: startedAt })
    }
    const partial = Object.keys(failedGroups).length > 0 ? { failedGroups } : {}
    if (round.length === 0) return { outcome: { kind: 'failed', error: Object.entries(failedGroups).map(([g, e]) => `${g}: ${e}`).join('; ') }, retryAfterMs: retryAfter }
    // The one overlay rule: the catalogue held (now: a reload may have swapped it during the requests), then
    // this round; groups the round does not take are kept, and no satellite goes back to an older set.
    const overlaid = overlay([layerOf(this.#store.current), { source: 'refresh', groups: round }])
    const catalog = catalogOf(overlaid, this.#clock())
    if (signal.aborted) return stopped
    logRefusedSets(this.#log, 'refresh', refusedSets(round, catalog), { url: redactUrl(this.settings.url) })
    this.#store.swap(catalog)
    this.#payloads = new Map([...carried, ...next].map((p) => [p.group, p]))
    // Sets of the round older than those held (the held ones stay): upstream went back in time for these.
    const newer = Object.entries(overlaid.keptNewer).reduce((n, [g, count]) => n + (overlaid.fromLayer[g] === 1 ? count : 0), 0)
    this.#log.info('refresh: catalogue replaced', {
      satellites: catalog.size,
      before: current.size,
      groups: catalog.groupCounts,
      notModified,
      ...(kept.length > 0 ? { kept } : {}),
      ...(newer > 0 ? { olderSetsIgnored: newer } : {}),
    })
    this.#onSwap?.(catalog)
    return { outcome: { kind: 'changed', catalog, ...partial }, save: save(), retryAfterMs: retryAfter }
  }

  async #save(contents: GroupSet): Promise<void> {
    if (!this.#persist) return
    try {
      await this.#persist(contents)
      this.#cacheError = null
    } catch (error) {
      this.#cacheError = error instanceof Error ? error.message : String(error)
      this.#log.error('refresh: cannot write the cache; the next start may use older data', { error: this.#cacheError })
    }
  }

  async #fetchGroup(group: string, stopSignal: AbortSignal, roundBytesLeft: number, maxSatellites: number): Promise<GroupResult> {
    const { format, timeoutMs } = this.settings
    const maxBodyBytes = Math.max(0, Math.min(this.settings.maxBodyBytes, roundBytesLeft))
    const url = groupUrl(this.settings.url, group, format)
    // What messages show: never the userinfo or the query values of --refresh-url.
    const shown = redactUrl(url)
    const previous = this.#payloads.get(group)
    const headers: Record<string, string> = { 'user-agent': this.#userAgent, accept: '*/*' }
    if (previous && previous.format === format) {
      if (previous.etag) headers['if-none-match'] = previous.etag
      if (previous.lastModified) headers['if-modified-since'] = previous.lastModified
    }
    const conditional = 'if-none-match' in headers || 'if-modified-since' in headers
    const timeout = new AbortController()
    const timer = setTimeout(() => timeout.abort(), timeoutMs)
    const signal = AbortSignal.any([stopSignal, timeout.signal])
    const fail = (error: string, extra: { retryAfterMs?: number; missing?: boolean; holdOff?: number } = {}): GroupResult => ({ ok: false, error, ...extra })
    try {
      // Redirects are followed by hand: only to the same origin, at most MAX_REDIRECTS times.
      let target = url
      let response: Response
      for (let hops = 0; ; hops++) {
        response = await this.#fetch(target, { headers, signal, redirect: 'manual' })
        if (response.status < 300 || response.status > 399 || response.status === 304) break
        await response.body?.cancel().catch(() => {})
        const location = response.headers.get('location')
        if (!location) return fail(`HTTP ${response.status} without a Location (${shown})`)
        let next: URL
        try {
          next = new URL(location, target)
        } catch {
          return fail(`HTTP ${response.status} to an invalid Location (${shown})`)
        }
        if (next.origin !== new URL(url).origin) return fail(`HTTP ${response.status} to another origin (${next.origin}), not followed (${shown})`)
        if (hops + 1 > MAX_REDIRECTS) return fail(`more than ${MAX_REDIRECTS} redirects (${shown})`)
        target = next.toString()
      }
      const fetchedAtMs = this.#clock()
      if (response.status === 304) {
        await response.body?.cancel().catch(() => {})
        if (!conditional || !previous) return fail(`HTTP 304 to a request that was not conditional (${shown})`)
        return { ok: true, changed: false, payload: { ...previous, obtainedAtMs: fetchedAtMs } }
      }
      if (response.status !== 200) {
        const wait = response.status === 429 || response.status === 503 ? retryAfterMs(response.headers.get('retry-after'), fetchedAtMs) : 0
        const body = await readBodyCapped(response, 64 * 1024).catch(() => null)
        // CelesTrak says "No GP data found" with a 200; a sattrack's own feed (an upstream it may be) with a 404.
        if (response.status === 404 && body !== null && isNoSuchGroup(body.text)) return fail(`the upstream has no group ${group} (${shown})`, { missing: true })
        const bytes = body?.bytes
        // The status line only: an upstream's reason phrase and body are its text, not ours to show.
        return fail(`HTTP ${response.status}${bytes ? ` (${bytes} bytes)` : ''}${wait > 0 ? `, retry after ${formatDuration(Math.ceil(wait / 1000) * 1000)}` : ''} from ${shown}`, {
          retryAfterMs: wait,
          ...(response.status === 403 || response.status === 429 ? { holdOff: response.status } : {}),
        })
      }
      const { text, bytes } = await readBodyCapped(response, maxBodyBytes)
      if (isNoSuchGroup(text)) return fail(`the upstream has no group ${group} (${shown})`, { missing: true })
      // The one reading step: one set per satellite as it is read (a body repeating a satellite costs one set),
      // reading stopped past the satellite limit; then sets SGP4 cannot use, dated more than a day after this
      // fetch, or with unprintable names, are refused.
      const read = readGroup(
        { group, source: 'refresh', format, text, obtainedAtMs: fetchedAtMs, etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified') },
        { maxSatellites },
      )
      if (!read.ok) {
        return fail(read.overLimit ? `more than ${maxSatellites} satellites, the limit (the rest of the body was not read)` : `expected ${formatName(format)}, got ${describeBody(text, bytes, format)}`)
      }
      const { elements = [], refused = [] } = read.group
      const firstInvalid = refused[0] ? ` (first: ${describeRefusal(group, refused[0]).slice(group.length + 1)})` : ''
      if (elements.length === 0) {
        return fail(refused.length > 0 ? `no valid element sets, ${refused.length} invalid${firstInvalid}` : `${formatName(format)} with no element sets`)
      }
      if (endsCutShort(read.group)) {
        return fail(`the body ends inside an element set (cut short?)${firstInvalid}`)
      }
      if (refused.length > MAX_INVALID_SHARE * (elements.length + refused.length)) {
        return fail(`${refused.length} of ${elements.length + refused.length} element sets are invalid${firstInvalid}`)
      }
      return { ok: true, changed: true, payload: read.group }
    } catch (error) {
      if (stopSignal.aborted) return { ok: false, stopped: true }
      if (timeout.signal.aborted) return fail(`no complete answer within ${formatDuration(timeoutMs)} (${shown})`)
      if (error instanceof BodyTooLargeError) {
        const shared = maxBodyBytes < this.settings.maxBodyBytes ? `: what is left of the ${this.settings.maxRoundBytes} bytes the payloads held may take` : ''
        return fail(`${error.message}${shared} (${shown})`)
      }
      // The runtime's message may quote the URL it was given: redact it there too.
      const reason = (error instanceof Error ? error.message : String(error)).split(url).join(shown).split(this.settings.url).join(redactUrl(this.settings.url))
      return fail(`request failed: ${reason} (${shown})`)
    } finally {
      clearTimeout(timer)
    }
  }
}
