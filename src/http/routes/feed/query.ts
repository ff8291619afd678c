/**
 * CelesTrak's GP query (`gp.php?GROUP=stations&FORMAT=tle`) read the way
 * CelesTrak reads it: parameter names and FORMAT values in any case, exactly one
 * selector (CATNR, INTDES, GROUP or NAME), FORMAT defaulting to TLE. A query
 * that breaks a rule gets a plain-text message, not the API's JSON error.
 */
import { shown } from '../../plugins/edge.ts'
import { characterCount, formDecoded, shownValues } from '../../plugins/params.ts'

export const FEED_FORMATS = ['tle', '3le', '2le', 'json', 'json-pretty', 'csv'] as const
export type FeedFormat = (typeof FEED_FORMATS)[number]

export const FEED_SELECTORS = ['CATNR', 'INTDES', 'GROUP', 'NAME'] as const

export type FeedSelector =
  | { kind: 'CATNR'; noradId: number }
  /** A launch `1998-067` or a piece `1998-067A`, upper case. */
  | { kind: 'INTDES'; launch: string }
  /** Lower case: groups are matched without regard to case. */
  | { kind: 'GROUP'; group: string }
  /** Lower case: a part of the name, matched without regard to case. */
  | { kind: 'NAME'; text: string }

export type FeedQuery = { ok: true; selector: FeedSelector; format: FeedFormat } | { ok: false; message: string }

const MAX_TEXT = 100
/** The parameters read; others are ignored. */
const KNOWN: ReadonlySet<string> = new Set([...FEED_SELECTORS, 'FORMAT'])

const invalid = (why: string): FeedQuery => ({ ok: false, message: `Invalid query: ${why}` })

/**
 * The CelesTrak query of a URL's query string (as sent, without `?`); unknown
 * parameters are ignored, as CelesTrak does. A name, or the value of a known
 * parameter, that is not valid percent-encoding is invalid (URLSearchParams
 * would keep `%ZZ` as it is, and NAME would search for it).
 */
export function parseFeedQuery(rawQuery: string): FeedQuery {
  const values = new Map<string, string[]>()
  for (const pair of rawQuery === '' ? [] : rawQuery.split('&')) {
    const eq = pair.indexOf('=')
    const rawName = eq < 0 ? pair : pair.slice(0, eq)
    const name = formDecoded(rawName)
    if (name === null) return invalid(`a parameter name is not valid percent-encoding (got "${shown(rawName)}")`)
    const key = name.toUpperCase()
    if (!KNOWN.has(key)) continue
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1)
    const value = formDecoded(rawValue)
    if (value === null) return invalid(`${key} is not valid percent-encoding (got "${shown(rawValue)}")`)
    values.set(key, [...(values.get(key) ?? []), value])
  }
  for (const name of [...FEED_SELECTORS, 'FORMAT']) {
    const repeated = values.get(name) ?? []
    if (repeated.length > 1) return invalid(`${name} is given more than once (got ${shownValues(repeated)})`)
  }
  const given = FEED_SELECTORS.filter((name) => values.has(name))
  if (given.length === 0) return invalid(`give one of ${FEED_SELECTORS.join(', ')} (e.g. GROUP=stations&FORMAT=TLE)`)
  if (given.length > 1) return invalid(`give only one of ${FEED_SELECTORS.join(', ')} (got ${given.join(' and ')})`)

  const rawFormat = values.get('FORMAT')?.[0] ?? 'tle'
  const format = FEED_FORMATS.find((f) => f === rawFormat.toLowerCase())
  if (!format) return invalid(`FORMAT must be one of ${FEED_FORMATS.map((f) => f.toUpperCase()).join(', ')} (XML and KVN are not offered) (got "${shown(rawFormat)}")`)

  const kind = given[0]!
  const raw = values.get(kind)![0]!
  switch (kind) {
    case 'CATNR': {
      if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) return invalid(`CATNR must be a catalog number from 1 to 999999999 (1 to 9 digits) (got "${shown(raw)}")`)
      return { ok: true, selector: { kind, noradId: Number(raw) }, format }
    }
    case 'INTDES': {
      if (!/^\d{4}-\d{3}[A-Za-z]{0,3}$/.test(raw)) return invalid(`INTDES must be a launch (yyyy-nnn) or one of its pieces (yyyy-nnnA) (got "${shown(raw)}")`)
      return { ok: true, selector: { kind, launch: raw.toUpperCase() }, format }
    }
    case 'GROUP': {
      if (!/^[A-Za-z0-9_-]+$/.test(raw) || raw.length > MAX_TEXT) {
        return invalid(`GROUP must be a group name of 1 to ${MAX_TEXT} letters, digits, - or _ (got "${shown(raw)}")`)
      }
      return { ok: true, selector: { kind, group: raw.toLowerCase() }, format }
    }
    case 'NAME': {
      if (raw.length === 0 || characterCount(raw, MAX_TEXT) > MAX_TEXT) return invalid(`NAME must be 1 to ${MAX_TEXT} characters (got "${shown(raw)}")`)
      return { ok: true, selector: { kind, text: raw.toLowerCase() }, format }
    }
  }
}

/** One key per distinct answer (selector values are already case-folded). */
export function feedKey(selector: FeedSelector, format: FeedFormat): string {
  const value = selector.kind === 'CATNR' ? selector.noradId : selector.kind === 'INTDES' ? selector.launch : selector.kind === 'GROUP' ? selector.group : selector.text
  return `gp?${selector.kind}=${encodeURIComponent(String(value))}&FORMAT=${format}`
}
