/**
 * The API's rule for `time`, read by the page before it claims an instant: the
 * same pattern and range as the service's parameter check (a zone required;
 * between 1957-10-04 and 2100-01-01) and the same refusal, word for word, so a
 * link's unusable time is said as the API would say it. The page cannot import
 * the service's code; test/e2e/web.test.ts compares the two on many texts.
 */

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+\- ])(\d{2}):?(\d{2}))$/
const TIME_MIN_MS = Date.UTC(1957, 9, 4)
const TIME_MAX_MS = Date.UTC(2100, 0, 1)

/** An ISO 8601 instant with a zone, as the API reads it; null when the API would refuse it. */
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
  if (!(utc >= TIME_MIN_MS && utc <= TIME_MAX_MS)) return null
  return new Date(utc)
}

const MAX_SHOWN = 64
const PRINTABLE = /^[\x20-\x7e]$/
const utf8 = new TextEncoder()

/** A value as the API's messages quote it: printable ASCII as is, the rest percent-encoded, cut after 64 characters with `…`. */
function shown(value: string): string {
  let out = ''
  for (const char of value) {
    const piece = PRINTABLE.test(char) ? char : Array.from(utf8.encode(char), (byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')
    if (out.length + piece.length > MAX_SHOWN) return `${out}…`
    out += piece
  }
  return out
}

/** The API's refusal of `text` as `time`. */
export const instantRefusal = (text: string) =>
  `time must be an ISO 8601 instant with a zone (e.g. 2026-05-30T12:00:00Z or +02:00) between 1957-10-04 and 2100-01-01 (got "${shown(text)}")`
