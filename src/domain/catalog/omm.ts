/**
 * OMM, the CCSDS Orbit Mean-Elements Message as CelesTrak publishes it
 * (FORMAT=json and FORMAT=csv), to and from element sets; and the two-line
 * form generated from an element set, so that a satellite read from OMM looks
 * the same as one read from a TLE whenever its catalog number fits 5 digits.
 */
import {
  checkMeanElements,
  daysInYear,
  type ElementSet,
  type InvalidSet,
  type MeanElementName,
  OnePerSatellite,
  type ParseResult,
  type TextParseResult,
  type TleLines,
  tleChecksum,
  tleYear,
} from './elements.ts'

/** One OMM record with CelesTrak's field names; angles in degrees, mean motion in rev/day. */
export interface OmmRecord {
  OBJECT_NAME: string
  /** International designator, `1998-067A`. */
  OBJECT_ID: string
  /** UTC without a zone, microseconds: `2026-05-30T12:25:10.469664`. */
  EPOCH: string
  MEAN_MOTION: number
  ECCENTRICITY: number
  INCLINATION: number
  RA_OF_ASC_NODE: number
  ARG_OF_PERICENTER: number
  MEAN_ANOMALY: number
  EPHEMERIS_TYPE: number
  CLASSIFICATION_TYPE: string
  NORAD_CAT_ID: number
  ELEMENT_SET_NO: number
  REV_AT_EPOCH: number
  BSTAR: number
  /** rev/day² (the TLE's first derivative / 2). */
  MEAN_MOTION_DOT: number
  /** rev/day³ (the TLE's second derivative / 6). */
  MEAN_MOTION_DDOT: number
}

/** CelesTrak's CSV columns, in its order. */
export const OMM_CSV_COLUMNS = [
  'OBJECT_NAME',
  'OBJECT_ID',
  'EPOCH',
  'MEAN_MOTION',
  'ECCENTRICITY',
  'INCLINATION',
  'RA_OF_ASC_NODE',
  'ARG_OF_PERICENTER',
  'MEAN_ANOMALY',
  'EPHEMERIS_TYPE',
  'CLASSIFICATION_TYPE',
  'NORAD_CAT_ID',
  'ELEMENT_SET_NO',
  'REV_AT_EPOCH',
  'BSTAR',
  'MEAN_MOTION_DOT',
  'MEAN_MOTION_DDOT',
] as const satisfies readonly (keyof OmmRecord)[]

/** The columns without which a CSV is not OMM. */
const REQUIRED_COLUMNS = [
  'NORAD_CAT_ID',
  'EPOCH',
  'MEAN_MOTION',
  'ECCENTRICITY',
  'INCLINATION',
  'RA_OF_ASC_NODE',
  'ARG_OF_PERICENTER',
  'MEAN_ANOMALY',
] as const

/** The largest catalog number the API accepts (every route, every format). */
export const MAX_NORAD_ID = 999_999_999
/** The largest catalog number a TLE's 5-digit field holds (Alpha-5 is not generated). */
export const MAX_TLE_NORAD_ID = 99_999

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/
const OMM_EPOCH = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]00:?00)?$/

type Raw = Record<string, unknown>

/** A field as a number: JSON numbers and decimal strings; `undefined` when absent or empty. */
function numberField(raw: Raw, key: string): number | null | undefined {
  const value = raw[key]
  if (value === undefined || value === null || value === '') return undefined
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value === 'string' && NUMBER.test(value.trim())) return Number(value.trim())
  return null
}

function textField(raw: Raw, key: string): string {
  const value = raw[key]
  return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : ''
}

/** `2026-05-30T12:25:10.469664` (UTC, zone optional) → µs since 1970, or null. */
export function parseOmmEpoch(text: string): number | null {
  const m = OMM_EPOCH.exec(text.trim())
  if (!m) return null
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number]
  const ms = Date.UTC(y, mo - 1, d, h, mi, s)
  const date = new Date(ms)
  // Date.UTC rolls 2026-02-30 over to March: a component that changed was out of range.
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    return null
  }
  const fractionUs = m[7] ? Math.round(Number(`0.${m[7]}`) * 1e6) : 0
  return ms * 1000 + fractionUs
}

/** µs since 1970 → `2026-05-30T12:25:10.469664` (CelesTrak's form: UTC, no zone). */
export function formatOmmEpoch(epochUs: number): string {
  const us = Math.round(epochUs)
  const ms = Math.floor(us / 1000)
  const iso = new Date(ms).toISOString() // 2026-05-30T12:25:10.469Z
  const micro = String(us - ms * 1000).padStart(3, '0')
  return `${iso.slice(0, 23)}${micro}`
}

/** An international designator in TLE form: two-digit year, launch number, piece (`98067A`). */
const DESIGNATOR = /^\d{5}[A-Z]{1,3}$/

/** `1998-067A` → `98067A`; a designator already in TLE form is kept; anything else gives ''. */
export function tleDesignatorOf(objectId: string): string {
  const id = objectId.trim()
  const m = /^(\d{4})-(\d{3})([A-Z]{1,3})$/.exec(id)
  if (m) return `${m[1]!.slice(2)}${m[2]}${m[3]}`
  return DESIGNATOR.test(id) ? id : ''
}

/** `98067A` → `1998-067A` (two-digit years 57..99 are 1900s); anything else is returned as is. */
export function objectIdOf(tleDesignator: string): string {
  const m = /^(\d{2})(\d{3})([A-Z]{1,3})$/.exec(tleDesignator.trim())
  if (!m) return tleDesignator.trim()
  return `${tleYear(Number(m[1]))}-${m[2]}${m[3]}`
}

/** The launch year an international designator says (`98067A` → 1998), or null when it is not one. */
export function launchYearOf(tleDesignator: string): number | null {
  if (!DESIGNATOR.test(tleDesignator)) return null
  return tleYear((tleDesignator.charCodeAt(0) - 48) * 10 + tleDesignator.charCodeAt(1) - 48)
}

/** The OMM field of each mean element (also how messages name them). */
const OMM_NAMES: Record<MeanElementName, string> = {
  inclinationDeg: 'INCLINATION',
  raanDeg: 'RA_OF_ASC_NODE',
  eccentricity: 'ECCENTRICITY',
  argOfPericenterDeg: 'ARG_OF_PERICENTER',
  meanAnomalyDeg: 'MEAN_ANOMALY',
  meanMotionRevPerDay: 'MEAN_MOTION',
}

function inRange(value: number | null | undefined, min: number, max: number): value is number {
  return typeof value === 'number' && value >= min && value <= max
}

/**
 * Validates one OMM record (JSON object or CSV row; numbers may be strings) with
 * the same ranges as a TLE. A catalog number up to 99999 also gets TLE lines;
 * past it `tle` is null. Never throws; a failure names the first field broken.
 */
export function parseOmmRecord(raw: Raw): ParseResult {
  const fail = (reason: string): ParseResult => ({ ok: false, reason })
  const noradId = numberField(raw, 'NORAD_CAT_ID')
  if (!inRange(noradId, 1, MAX_NORAD_ID) || !Number.isInteger(noradId)) {
    return fail(`NORAD_CAT_ID is not an integer in 1..${MAX_NORAD_ID}`)
  }
  const epochUs = parseOmmEpoch(textField(raw, 'EPOCH'))
  if (epochUs === null) return fail('EPOCH is not a UTC date-time like 2026-05-30T12:25:10.469664')
  const year = new Date(Math.floor(epochUs / 1000)).getUTCFullYear()
  if (year < 1957 || year > 2099) return fail('EPOCH is not between 1957 and 2099')

  const mean = checkMeanElements(
    Object.fromEntries(Object.entries(OMM_NAMES).map(([name, key]) => [name, numberField(raw, key)])) as Record<MeanElementName, number | null | undefined>,
    OMM_NAMES,
  )
  if (!mean.ok) return fail(mean.reason)

  // Drag terms and bookkeeping fields: absent means 0, present must be a number.
  const optional: Record<string, number> = {}
  for (const key of ['BSTAR', 'MEAN_MOTION_DOT', 'MEAN_MOTION_DDOT', 'EPHEMERIS_TYPE', 'ELEMENT_SET_NO', 'REV_AT_EPOCH']) {
    const value = numberField(raw, key)
    if (value === null) return fail(`${key} is not a number`)
    optional[key] = value ?? 0
  }
  for (const key of ['EPHEMERIS_TYPE', 'ELEMENT_SET_NO', 'REV_AT_EPOCH']) {
    if (!Number.isInteger(optional[key]) || optional[key]! < 0) return fail(`${key} is not a whole number`)
  }
  const classification = textField(raw, 'CLASSIFICATION_TYPE').slice(0, 1) || 'U'

  const elements: ElementSet = {
    noradId,
    name: textField(raw, 'OBJECT_NAME') || String(noradId),
    intlDesignator: tleDesignatorOf(textField(raw, 'OBJECT_ID')),
    classification,
    epochMs: Math.round(epochUs / 1000),
    meanMotionDot: optional.MEAN_MOTION_DOT!,
    meanMotionDdot: optional.MEAN_MOTION_DDOT!,
    bstar: optional.BSTAR!,
    ephemerisType: optional.EPHEMERIS_TYPE!,
    elementSetNo: optional.ELEMENT_SET_NO!,
    ...mean.values,
    revAtEpoch: optional.REV_AT_EPOCH!,
    tle: null,
    epochUs,
    sourceFormat: 'omm',
  }
  elements.tle = tleLinesFor(elements)
  return { ok: true, elements }
}

/** An element set as an OMM record (the form CelesTrak's FORMAT=json and csv carry). */
export function ommRecordOf(elements: ElementSet): OmmRecord {
  return {
    OBJECT_NAME: elements.name,
    OBJECT_ID: objectIdOf(elements.intlDesignator),
    EPOCH: formatOmmEpoch(elements.epochUs ?? elements.epochMs * 1000),
    MEAN_MOTION: elements.meanMotionRevPerDay,
    ECCENTRICITY: elements.eccentricity,
    INCLINATION: elements.inclinationDeg,
    RA_OF_ASC_NODE: elements.raanDeg,
    ARG_OF_PERICENTER: elements.argOfPericenterDeg,
    MEAN_ANOMALY: elements.meanAnomalyDeg,
    EPHEMERIS_TYPE: elements.ephemerisType,
    CLASSIFICATION_TYPE: elements.classification,
    NORAD_CAT_ID: elements.noradId,
    ELEMENT_SET_NO: elements.elementSetNo,
    REV_AT_EPOCH: elements.revAtEpoch,
    BSTAR: elements.bstar,
    MEAN_MOTION_DOT: elements.meanMotionDot,
    MEAN_MOTION_DDOT: elements.meanMotionDdot,
  }
}

// ---------------------------------------------------------------------------
// TLE lines from an element set

/** `±.NNNNNNNN` (10 characters), or null when |value| ≥ 1 after rounding. */
function signedFraction(value: number): string | null {
  const text = Math.abs(value).toFixed(8)
  if (!text.startsWith('0.')) return null
  const sign = value < 0 && Number(text) !== 0 ? '-' : ' '
  return `${sign}${text.slice(1)}`
}

/** TLE "assumed decimal point" notation, 8 characters: 0.00021767 → ` 21767-3`; null past e+9. */
export function assumedDecimal(value: number): string | null {
  if (!Number.isFinite(value)) return null
  if (value === 0) return ' 00000+0'
  const [mantissa, exponentText] = Math.abs(value).toExponential(4).split('e') as [string, string]
  const exponent = Number(exponentText) + 1 // d.dddd × 10^k = 0.ddddd × 10^(k+1)
  if (exponent > 9) return null
  if (exponent < -9) return ' 00000+0' // below the field's resolution
  const sign = value < 0 ? '-' : ' '
  return `${sign}${mantissa.replace('.', '')}${exponent < 0 ? '-' : '+'}${Math.abs(exponent)}`
}

/** `YYDDD.DDDDDDDD` (14 characters) for an epoch in µs, or null outside 1957..2056. */
function tleEpochField(epochUs: number): string | null {
  let year = new Date(Math.floor(epochUs / 1000)).getUTCFullYear()
  let day = ((epochUs - Date.UTC(year, 0, 1) * 1000) / 86_400_000_000 + 1).toFixed(8)
  if (Number(day) >= daysInYear(year) + 1) {
    // The last 0.4 ms of a year round up to day 1 of the next.
    year += 1
    day = '1.00000000'
  }
  if (year < 1957 || year > 2056) return null
  return `${String(year % 100).padStart(2, '0')}${day.padStart(12, '0')}`
}

function fixed(value: number, decimals: number, width: number): string | null {
  const text = value.toFixed(decimals).padStart(width)
  return text.length === width ? text : null
}

/** An angle in [0, 360) with 4 decimals: 359.99999 rounds to 0.0000, not 360.0000. */
function angleField(deg: number): string | null {
  const text = fixed(deg, 4, 8)
  return text === '360.0000' ? '  0.0000' : text
}

function withChecksum(body: string): string {
  return body + String(tleChecksum(body))
}

/**
 * The TLE lines of an element set, each field rounded to the TLE's precision,
 * checksums computed. Null when the set has no two-line form: a catalog number
 * past 99999, an epoch outside 1957..2056 or a value too large for its field.
 */
export function tleLinesFor(elements: ElementSet): TleLines | null {
  if (!Number.isInteger(elements.noradId) || elements.noradId < 1 || elements.noradId > MAX_TLE_NORAD_ID) return null
  const id = String(elements.noradId).padStart(5, '0')
  const epoch = tleEpochField(elements.epochUs ?? elements.epochMs * 1000)
  const ndot = signedFraction(elements.meanMotionDot)
  const nddot = assumedDecimal(elements.meanMotionDdot)
  const bstar = assumedDecimal(elements.bstar)
  const eccDigits = Math.round(elements.eccentricity * 1e7)
  const inclination = fixed(elements.inclinationDeg, 4, 8)
  const raan = angleField(elements.raanDeg)
  const argp = angleField(elements.argOfPericenterDeg)
  const meanAnomaly = angleField(elements.meanAnomalyDeg)
  const meanMotion = fixed(elements.meanMotionRevPerDay, 8, 11)
  if (!epoch || !ndot || !nddot || !bstar || !inclination || !raan || !argp || !meanAnomaly || !meanMotion) return null
  if (!(eccDigits >= 0 && eccDigits < 1e7)) return null
  const classification = (elements.classification || 'U').slice(0, 1)
  const designator = elements.intlDesignator.slice(0, 8).padEnd(8)
  const ephemerisType = String(Math.abs(Math.trunc(elements.ephemerisType)) % 10)
  const elementSetNo = String(Math.abs(Math.trunc(elements.elementSetNo)) % 10_000).padStart(4)
  const revAtEpoch = String(Math.abs(Math.trunc(elements.revAtEpoch)) % 100_000).padStart(5)
  const line1 = `1 ${id}${classification} ${designator} ${epoch} ${ndot} ${nddot} ${bstar} ${ephemerisType} ${elementSetNo}`
  const line2 = `2 ${id} ${inclination} ${raan} ${String(eccDigits).padStart(7, '0')} ${argp} ${meanAnomaly} ${meanMotion}${revAtEpoch}`
  return { line1: withChecksum(line1), line2: withChecksum(line2) }
}

// ---------------------------------------------------------------------------
// JSON and CSV payloads

export type OmmTextResult = { ok: true; result: TextParseResult } | { ok: false; reason: string }

/** The catalog number a record names, when it is a valid one (also in a record that fails otherwise). */
function recordNoradId(raw: Raw): number | undefined {
  const id = numberField(raw, 'NORAD_CAT_ID')
  return inRange(id, 1, MAX_NORAD_ID) && Number.isInteger(id) ? id : undefined
}

/** One record read into `sets`, or listed in `invalid` (with its catalog number when it names a valid one). */
function readRecord(raw: Raw, line: number, sets: OnePerSatellite, invalid: InvalidSet[]): boolean {
  const parsed = parseOmmRecord(raw)
  if (parsed.ok) return sets.add(parsed.elements)
  const noradId = recordNoradId(raw)
  invalid.push(noradId === undefined ? { line, reason: parsed.reason } : { line, reason: parsed.reason, noradId })
  return true
}

function parseRecords(records: readonly unknown[], maxSatellites?: number): TextParseResult {
  const sets = new OnePerSatellite(maxSatellites)
  const invalid: InvalidSet[] = []
  for (let index = 0; index < records.length; index++) {
    const record = records[index]
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      invalid.push({ line: index + 1, reason: 'not an OMM object' })
      continue
    }
    if (!readRecord(record as Raw, index + 1, sets, invalid)) break
  }
  return sets.result(invalid)
}

/**
 * CelesTrak FORMAT=json: an array of OMM objects. In the result, `line` of an
 * invalid entry is the record's 1-based position in the array.
 */
export function parseOmmJson(text: string, maxSatellites?: number): OmmTextResult {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    return { ok: false, reason: `not valid JSON (${error instanceof Error ? error.message : String(error)})` }
  }
  if (!Array.isArray(data)) return { ok: false, reason: 'JSON is not an array of OMM records' }
  return { ok: true, result: parseRecords(data, maxSatellites) }
}

/** RFC 4180 rows (quoted fields may hold commas, quotes and newlines), each with its 1-based first line. */
export function parseCsvRows(text: string): { line: number; fields: string[] }[] {
  const rows: { line: number; fields: string[] }[] = []
  let fields: string[] = []
  let field = ''
  let quoted = false
  let line = 1
  let rowLine = 1
  let rowHasContent = false
  const endRow = () => {
    fields.push(field)
    if (rowHasContent || fields.length > 1 || field !== '') rows.push({ line: rowLine, fields })
    fields = []
    field = ''
    rowHasContent = false
  }
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i++
        } else quoted = false
      } else {
        if (c === '\n') line++
        field += c
      }
      continue
    }
    if (c === '"') {
      quoted = true
      rowHasContent = true
    } else if (c === ',') {
      fields.push(field)
      field = ''
      rowHasContent = true
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++
      endRow()
      line++
      rowLine = line
    } else field += c
  }
  if (field !== '' || fields.length > 0 || rowHasContent) endRow()
  return rows
}

/** CelesTrak FORMAT=csv: a header row naming OMM fields, then one row per element set. */
export function parseOmmCsv(text: string, maxSatellites?: number): OmmTextResult {
  const rows = parseCsvRows(text.replace(/^\uFEFF/, ''))
  const header = rows[0]?.fields.map((name) => name.trim().toUpperCase())
  if (!header) return { ok: false, reason: 'CSV is empty' }
  const missing = REQUIRED_COLUMNS.filter((column) => !header.includes(column))
  if (missing.length > 0) return { ok: false, reason: `CSV header lacks ${missing.join(', ')}` }
  const sets = new OnePerSatellite(maxSatellites)
  const invalid: InvalidSet[] = []
  for (const { line, fields } of rows.slice(1)) {
    const raw = Object.fromEntries(header.map((name, i) => [name, fields[i]]))
    if (fields.length !== header.length) {
      const noradId = recordNoradId(raw)
      const reason = `row has ${fields.length} fields, the header ${header.length}`
      invalid.push(noradId === undefined ? { line, reason } : { line, reason, noradId })
      continue
    }
    if (!readRecord(raw, line, sets, invalid)) break
  }
  return { ok: true, result: sets.result(invalid) }
}

function csvField(value: string | number): string {
  const text = String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/** OMM records as CelesTrak-style CSV (CRLF line ends, header first). */
export function formatOmmCsv(records: readonly OmmRecord[]): string {
  const lines = [OMM_CSV_COLUMNS.join(',')]
  for (const record of records) lines.push(OMM_CSV_COLUMNS.map((column) => csvField(record[column])).join(','))
  return `${lines.join('\r\n')}\r\n`
}
