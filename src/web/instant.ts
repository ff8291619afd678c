/**
 * The API's rule for `time` and how its refusals quote a value, defined once
 * for the page and the service: the service's parameter parser and error
 * messages use these (src/http/plugins/params.ts, edge.ts), and the page reads a
 * link's `time` with them before it claims an instant, saying a refusal in the
 * API's words. Plain code with no imports, so the page's bundle can hold it.
 */

/** Earliest and latest instants the service computes for (`time`). */
export const TIME_MIN_MS = Date.UTC(1957, 9, 4)
export const TIME_MAX_MS = Date.UTC(2100, 0, 1)
/** Whether an instant (ms since 1970) is one the service answers for: TIME_MIN_MS to TIME_MAX_MS. */
export const withinTimeRange = (ms: number) => ms >= TIME_MIN_MS && ms <= TIME_MAX_MS

/** Date, time and a zone (`Z` or ±hh:mm; a space stands for a `+` that a query string decoded). */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+\- ])(\d{2}):?(\d{2}))$/

/** What a `time` must be, as the refusals say it after "time must be". */
export const INSTANT_RULE = 'an ISO 8601 instant with a zone (e.g. 2026-05-30T12:00:00Z or +02:00) between 1957-10-04 and 2100-01-01'

/** Parses an ISO 8601 instant with a zone; null when malformed, impossible or out of range. */
export function parseInstant(text: string): Date | null {
  const m = ISO_INSTANT.exec(text)
  if (!m) return null
  const [, y, mo, d, h, mi, s = '0', frac = '', z, sign, oh, om] = m
  const year = +y!
  const month = +mo!
  const day = +d!
  if (year < 1957 || year > 2100) return null
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null
  if (+h! > 23 || +mi! > 59 || +s > 59) return null
  let offsetMin = 0
  if (!z) {
    if (+oh! > 23 || +om! > 59) return null
    offsetMin = (sign === '-' ? -1 : 1) * (+oh! * 60 + +om!)
  }
  const ms = frac ? Math.round(Number(`0.${frac}`) * 1000) : 0
  const utc = Date.UTC(year, month - 1, day, +h!, +mi!, +s, ms) - offsetMin * 60_000
  if (!withinTimeRange(utc)) return null
  return new Date(utc)
}

/** The most characters of a client-sent value an error message shows. */
const MAX_SHOWN = 64
const PRINTABLE = /^[\x20-\x7e]$/
const utf8 = new TextEncoder()

/**
 * A client-sent value for an error message: printable ASCII as it is, any other
 * character percent-encoded as a client sends it (a NUL is `%00`, `é` is `%C3%A9`),
 * cut after at most 64 characters (never inside an escape) with `…`.
 */
export function shown(value: string): string {
  let out = ''
  for (const char of value) {
    const piece = PRINTABLE.test(char) ? char : Array.from(utf8.encode(char), (byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')
    if (out.length + piece.length > MAX_SHOWN) return `${out}…`
    out += piece
  }
  return out
}

/** The API's refusal of `text` as `time`. */
export const instantRefusal = (text: string) => `time must be ${INSTANT_RULE} (got "${shown(text)}")`
