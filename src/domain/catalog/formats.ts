/** Element-set payloads: which format a text is (TLE, OMM JSON, OMM CSV) and reading it as one. */
import type { InvalidSet, TextParseResult } from './elements.ts'
import { parseTleText } from './elements.ts'
import { parseOmmCsv, parseOmmJson } from './omm.ts'

/** The formats read from snapshots and upstream; the names are CelesTrak's FORMAT values. */
export type ElementFormat = 'tle' | 'json' | 'csv'

export const ELEMENT_FORMATS: readonly ElementFormat[] = ['json', 'csv', 'tle']

export type PayloadResult =
  | ({ ok: true; format: ElementFormat } & TextParseResult)
  /** `wrongFormat`: the text is not the format asked for (or none at all); otherwise it is that format but cannot be read. */
  | { ok: false; reason: string; wrongFormat?: boolean }

/** How a format is called in messages. */
export function formatName(format: ElementFormat): string {
  return format === 'tle' ? 'TLE text' : format === 'json' ? 'OMM JSON' : 'OMM CSV'
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/** The format a text looks like from its first characters, or null when it is none of them. */
export function sniffFormat(text: string): ElementFormat | null {
  const head = stripBom(text).trimStart()
  if (head.startsWith('[') || head.startsWith('{')) return 'json'
  const firstLine = head.slice(0, head.search(/\r?\n|$/))
  if (/\bNORAD_CAT_ID\b/i.test(firstLine) && firstLine.includes(',')) return 'csv'
  if (/^1 .*\r?\n2 /m.test(head)) return 'tle'
  return null
}

/**
 * Whether text decoded as UTF-8 came from bytes that are not text (a compressed
 * body, an image): a NUL, or over a quarter of it bytes that are not UTF-8
 * (decoded as U+FFFD; random bytes give about half). Text in another charset (a
 * Latin-1 error page) has a few.
 */
function looksBinary(text: string): boolean {
  if (text.includes('\u0000')) return true
  let invalid = 0
  for (const c of text) if (c === '\ufffd') invalid++
  return invalid > text.length / 4
}

/**
 * A few words on what a text is, for messages: `an HTML page`, `binary data`, `text
 * starting "No GP data found"`; without `preview`, plain `text` (what an
 * upstream sent is never echoed).
 */
export function describeContent(text: string, preview = true): string {
  const head = stripBom(text).trimStart()
  if (head === '') return 'an empty body'
  if (/^<!doctype html|^<html|^<head|^<body/i.test(head)) return 'an HTML page'
  if (head.startsWith('<?xml') || head.startsWith('<')) return 'XML or markup'
  if (looksBinary(head.slice(0, 1024))) return 'binary data'
  const format = sniffFormat(head)
  if (format) return formatName(format)
  if (!preview) return 'text'
  return `text starting "${head.slice(0, 40).replace(/[^\x20-\x7e]/g, '?')}"`
}

/**
 * Reads a payload that must be `format`: anything else (an HTML error page, the
 * other formats, garbage) is refused with a reason. Invalid element sets inside
 * a well-formed payload are listed, not fatal; judging them is the caller's call.
 * A satellite given several times keeps its newest set; reading stops past
 * `maxSatellites` satellites (`overLimit`).
 */
export function parseElements(text: string, format: ElementFormat, maxSatellites?: number): PayloadResult {
  const found = sniffFormat(text)
  if (found !== format) return { ok: false, reason: `expected ${formatName(format)}, got ${describeContent(text)}`, wrongFormat: true }
  const body = stripBom(text)
  if (format === 'tle') return { ok: true, format, ...parseTleText(body, maxSatellites) }
  const parsed = format === 'json' ? parseOmmJson(body, maxSatellites) : parseOmmCsv(body, maxSatellites)
  if (!parsed.ok) return { ok: false, reason: `${formatName(format)}: ${parsed.reason}` }
  return { ok: true, format, ...parsed.result }
}

/** Reads a payload of any supported format (snapshot files), recognised by its content. */
export function parseAnyElements(text: string, maxSatellites?: number): PayloadResult {
  const format = sniffFormat(text)
  if (!format) return { ok: false, reason: `not TLE, OMM JSON or OMM CSV: ${describeContent(text)}`, wrongFormat: true }
  return parseElements(text, format, maxSatellites)
}

/** The format a file name implies (`.tle`, `.3le`, `.txt`, `.json`, `.csv`), or null. */
export function formatOfFileName(name: string): ElementFormat | null {
  const lower = name.toLowerCase()
  if (lower.endsWith('.json')) return 'json'
  if (lower.endsWith('.csv')) return 'csv'
  if (lower.endsWith('.tle') || lower.endsWith('.3le') || lower.endsWith('.txt')) return 'tle'
  return null
}

/**
 * Whether a payload ends inside an element set: its last TLE set or CSV row is
 * invalid, or a TLE text ends on a name line. A body cut short in transit looks
 * like this (a JSON body cut short does not parse at all).
 */
export function endsInsideElementSet(text: string, format: ElementFormat, invalid: readonly Pick<InvalidSet, 'line'>[]): boolean {
  if (format === 'json') return false
  const lines = text.split(/\r?\n/)
  let last = lines.length
  while (last > 0 && lines[last - 1]!.trim() === '') last--
  if (last === 0) return false
  if (format === 'tle') {
    const lastLine = lines[last - 1]!
    if (!lastLine.startsWith('1 ') && !lastLine.startsWith('2 ')) return true
    return invalid.some((bad) => bad.line >= last - 1)
  }
  return invalid.some((bad) => bad.line >= last)
}
