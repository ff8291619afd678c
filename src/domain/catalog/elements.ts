/** Element sets: TLE/3LE parsing with full validation, orbital parameters and labels (OMM is in omm.ts). */
import { constants } from 'satellite.js'

/** Two lines of a TLE, exactly as published (69 characters each). */
export interface TleLines {
  line1: string
  line2: string
}

/**
 * One validated set of mean orbital elements (the fields shared by TLE and OMM).
 * Angles in degrees, mean motion in revolutions per day, epoch in ms since 1970 UTC.
 */
export interface ElementSet {
  noradId: number
  name: string
  /** International designator in TLE form, e.g. `98067A` (may be empty). */
  intlDesignator: string
  classification: string
  epochMs: number
  /** First derivative of mean motion / 2, rev/day² (the TLE field as written). */
  meanMotionDot: number
  /** Second derivative of mean motion / 6, rev/day³. */
  meanMotionDdot: number
  bstar: number
  ephemerisType: number
  elementSetNo: number
  inclinationDeg: number
  raanDeg: number
  eccentricity: number
  argOfPericenterDeg: number
  meanAnomalyDeg: number
  meanMotionRevPerDay: number
  revAtEpoch: number
  /** The two-line form, or null when the element set has none (OMM past the 5-digit range). */
  tle: TleLines | null
  /**
   * The epoch in µs since 1970 UTC: OMM publishes microseconds, a TLE day
   * fraction resolves 0.864 ms. `epochMs` is this rounded to the millisecond.
   */
  epochUs?: number
  /** The form the element set was read from: `tle` (TLE/3LE text) or `omm` (JSON or CSV). */
  sourceFormat?: 'tle' | 'omm'
}

export type ParseResult = { ok: true; elements: ElementSet } | { ok: false; reason: string }

const TLE_LINE_LENGTH = 69
const ALPHA5_LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ' // I and O are not used

/** The TLE checksum of a line: digits summed, each '-' counts 1, modulo 10. */
export function tleChecksum(line: string): number {
  let sum = 0
  for (let i = 0; i < 68; i++) {
    const c = line.charCodeAt(i)
    if (c >= 48 && c <= 57) sum += c - 48
    else if (c === 45) sum += 1
  }
  return sum % 10
}

/** A 5-character catalog number field, plain digits or Alpha-5 (`A0001` = 100001). */
export function parseCatalogNumber(field: string): number | null {
  const text = field.trim()
  if (/^\d{1,5}$/.test(text)) return Number(text)
  if (field.length === 5 && /^[A-HJ-NP-Z]\d{4}$/.test(field)) {
    return (ALPHA5_LETTERS.indexOf(field[0]!) + 10) * 10000 + Number(field.slice(1))
  }
  return null
}

/** The 5-character catalog field for a number, Alpha-5 above 99999, or null past Z9999. */
export function formatCatalogNumber(noradId: number): string | null {
  if (noradId < 100000) return String(noradId).padStart(5, '0')
  const letterIndex = Math.floor(noradId / 10000) - 10
  if (letterIndex >= ALPHA5_LETTERS.length) return null
  return ALPHA5_LETTERS[letterIndex] + String(noradId % 10000).padStart(4, '0')
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)$/
/** TLE "assumed decimal point" notation: ` 21767-3` = 0.21767e-3. */
const ASSUMED_DECIMAL = /^([+-]?)(\d{1,5})([+-]\d)$/

function decimalField(text: string): number | null {
  const t = text.trim()
  return DECIMAL.test(t) ? Number(t) : null
}

function assumedDecimalField(text: string): number | null {
  const t = text.trim()
  if (/^[+-]?0+$/.test(t)) return 0
  const m = ASSUMED_DECIMAL.exec(t)
  if (!m) return null
  return Number(`${m[1]}0.${m[2]}e${m[3]}`)
}

function integerField(text: string, blankAs: number | null = null): number | null {
  const t = text.trim()
  if (t === '') return blankAs
  return /^\d+$/.test(t) ? Number(t) : null
}

/** Two-digit TLE year (of an epoch, or of an international designator): 57..99 → 1957..1999, 00..56 → 2000..2056. */
export function tleYear(yy: number): number {
  return yy < 57 ? 2000 + yy : 1900 + yy
}

/** Days in a Gregorian year: 365 or 366. */
export function daysInYear(year: number): number {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 366 : 365
}

function epochMsFromTle(yy: number, dayOfYear: number): number | null {
  const year = tleYear(yy)
  if (!(dayOfYear >= 1 && dayOfYear < daysInYear(year) + 1)) return null
  return Math.round(Date.UTC(year, 0, 1) + (dayOfYear - 1) * 86_400_000)
}

/** The TLE epoch in µs since 1970 (8 decimals of a day are multiples of 864 µs). */
function epochUsFromTle(yy: number, dayOfYear: number): number {
  return Math.round(Date.UTC(tleYear(yy), 0, 1) * 1000 + (dayOfYear - 1) * 86_400_000_000)
}

function inRange(value: number | null, min: number, max: number): value is number {
  return value !== null && Number.isFinite(value) && value >= min && value <= max
}

/** The bounds of the six mean elements, checked in this order whatever the format (TLE, OMM). */
const MEAN_ELEMENT_BOUNDS = {
  inclinationDeg: [0, 180, 'is not a number in 0..180'],
  raanDeg: [0, 360, 'is not a number in 0..360'],
  eccentricity: [0, 0.9999999, 'is not a number in 0..1'],
  argOfPericenterDeg: [0, 360, 'is not a number in 0..360'],
  meanAnomalyDeg: [0, 360, 'is not a number in 0..360'],
  meanMotionRevPerDay: [1e-8, 20, 'is not a positive number up to 20 rev/day'],
} as const

export type MeanElementName = keyof typeof MEAN_ELEMENT_BOUNDS
export type MeanElements = Record<MeanElementName, number>

/** The six mean elements if every one is within its bounds, else the first one broken, named by `labels`. */
export function checkMeanElements(
  values: Record<MeanElementName, number | null | undefined>,
  labels: Record<MeanElementName, string>,
): { ok: true; values: MeanElements } | { ok: false; reason: string } {
  for (const name of Object.keys(MEAN_ELEMENT_BOUNDS) as MeanElementName[]) {
    const [min, max, rule] = MEAN_ELEMENT_BOUNDS[name]
    if (!inRange(values[name] ?? null, min, max)) return { ok: false, reason: `${labels[name]} ${rule}` }
  }
  return { ok: true, values: values as MeanElements }
}

const TLE_LABELS: Record<MeanElementName, string> = {
  inclinationDeg: 'inclination',
  raanDeg: 'right ascension of the node',
  eccentricity: 'eccentricity',
  argOfPericenterDeg: 'argument of perigee',
  meanAnomalyDeg: 'mean anomaly',
  meanMotionRevPerDay: 'mean motion',
}

/**
 * Parses and validates a TLE: line lengths, line numbers, matching catalog
 * numbers, checksums, a parseable epoch and every numeric field in range.
 * Never throws; a failure names the first rule broken.
 */
export function parseTle(name: string, rawLine1: string, rawLine2: string): ParseResult {
  const line1 = rawLine1.trimEnd()
  const line2 = rawLine2.trimEnd()
  const fail = (reason: string): ParseResult => ({ ok: false, reason })
  if (line1.length !== TLE_LINE_LENGTH) return fail(`line 1 has ${line1.length} characters, not 69`)
  if (line2.length !== TLE_LINE_LENGTH) return fail(`line 2 has ${line2.length} characters, not 69`)
  if (!line1.startsWith('1 ')) return fail('line 1 does not start with "1 "')
  if (!line2.startsWith('2 ')) return fail('line 2 does not start with "2 "')
  const noradId = parseCatalogNumber(line1.slice(2, 7))
  if (noradId === null || noradId < 1) return fail('line 1 has no valid catalog number')
  if (line2.slice(2, 7) !== line1.slice(2, 7)) return fail('catalog numbers of lines 1 and 2 differ')
  if (tleChecksum(line1) !== Number(line1[68])) return fail('line 1 checksum mismatch')
  if (tleChecksum(line2) !== Number(line2[68])) return fail('line 2 checksum mismatch')

  const yy = integerField(line1.slice(18, 20))
  const dayOfYear = decimalField(line1.slice(20, 32))
  if (yy === null || dayOfYear === null) return fail('epoch is not parseable')
  const epochMs = epochMsFromTle(yy, dayOfYear)
  if (epochMs === null) return fail('epoch day is out of range')

  const meanMotionDot = decimalField(line1.slice(33, 43))
  const meanMotionDdot = assumedDecimalField(line1.slice(44, 52))
  const bstar = assumedDecimalField(line1.slice(53, 61))
  const ephemerisType = integerField(line1.slice(62, 63), 0)
  const elementSetNo = integerField(line1.slice(64, 68), 0)
  if (meanMotionDot === null) return fail('mean motion derivative is not parseable')
  if (meanMotionDdot === null) return fail('mean motion second derivative is not parseable')
  if (bstar === null) return fail('B* is not parseable')
  if (ephemerisType === null || elementSetNo === null) return fail('element set number is not parseable')

  const eccDigits = line2.slice(26, 33)
  const mean = checkMeanElements(
    {
      inclinationDeg: decimalField(line2.slice(8, 16)),
      raanDeg: decimalField(line2.slice(17, 25)),
      eccentricity: /^\d{7}$/.test(eccDigits) ? Number(`0.${eccDigits}`) : null,
      argOfPericenterDeg: decimalField(line2.slice(34, 42)),
      meanAnomalyDeg: decimalField(line2.slice(43, 51)),
      meanMotionRevPerDay: decimalField(line2.slice(52, 63)),
    },
    TLE_LABELS,
  )
  if (!mean.ok) return fail(mean.reason)
  const revAtEpoch = integerField(line2.slice(63, 68), 0)
  if (revAtEpoch === null) return fail('revolution number is not parseable')

  return {
    ok: true,
    elements: {
      noradId,
      name: cleanName(name) || String(noradId),
      intlDesignator: line1.slice(9, 17).trim(),
      classification: line1[7] === ' ' ? 'U' : line1[7]!,
      epochMs,
      meanMotionDot,
      meanMotionDdot,
      bstar,
      ephemerisType,
      elementSetNo,
      ...mean.values,
      revAtEpoch,
      tle: { line1, line2 },
      epochUs: epochUsFromTle(yy, dayOfYear),
      sourceFormat: 'tle',
    },
  }
}

/** A 3LE name line without its optional `0 ` prefix and padding. */
function cleanName(line: string): string {
  const t = line.trim()
  return t.startsWith('0 ') ? t.slice(2).trim() : t
}

/** An element set that could not be read: where it started (1-based line; for OMM JSON the record number), why, and whose it is when that could be read. */
export interface InvalidSet {
  line: number
  reason: string
  /** The catalog number it names, when one could be read (a set that fails its checksum still says whose it is). */
  noradId?: number
}

export interface TextParseResult {
  /** One set per satellite: a satellite given several times keeps its newest set (see supersedes), where it first appeared. */
  elements: ElementSet[]
  /** One entry per rejected element set. */
  invalid: InvalidSet[]
  /** Sets dropped because a newer (or the same) set of their satellite was in the text too. */
  duplicates: number
  /** Reading stopped at a set of one satellite more than the limit it was given (the rest is not read). */
  overLimit?: boolean
}

/** A set named after its catalog number only (2LE files have no names). */
const unnamed = (e: ElementSet) => e.name === String(e.noradId)

/**
 * Whether `candidate` replaces `held` for the same satellite: a later epoch
 * wins; on the same epoch a real name beats one made from the catalog number.
 * The one rule wherever two sets of a satellite meet (a text, a catalogue's
 * groups, the sources of the overlay): an older set never replaces a newer one.
 */
export function supersedes(candidate: ElementSet, held: ElementSet): boolean {
  return candidate.epochMs > held.epochMs || (candidate.epochMs === held.epochMs && unnamed(held) && !unnamed(candidate))
}

/**
 * Collects the sets of a text one per satellite as they are read, so a text
 * repeating a satellite costs one set, not one per repeat.
 */
export class OnePerSatellite {
  readonly elements: ElementSet[] = []
  readonly #at = new Map<number, number>()
  duplicates = 0
  /** A set of one satellite more than `maxSatellites` came: reading should stop. */
  overLimit = false

  constructor(readonly maxSatellites = Number.POSITIVE_INFINITY) {}

  /** Adds a set; false when it would be one satellite more than the limit (it is not added). */
  add(e: ElementSet): boolean {
    const i = this.#at.get(e.noradId)
    if (i === undefined) {
      if (this.elements.length >= this.maxSatellites) {
        this.overLimit = true
        return false
      }
      this.#at.set(e.noradId, this.elements.length)
      this.elements.push(e)
      return true
    }
    this.duplicates += 1
    if (supersedes(e, this.elements[i]!)) this.elements[i] = e
    return true
  }

  result(invalid: InvalidSet[]): TextParseResult {
    return { elements: this.elements, invalid, duplicates: this.duplicates, ...(this.overLimit ? { overLimit: true } : {}) }
  }

  get size(): number {
    return this.elements.length
  }
}

/** The catalog number of a TLE line's columns 3-7, or undefined. */
function lineNoradId(line: string): number | undefined {
  const id = parseCatalogNumber(line.slice(2, 7))
  return id !== null && id > 0 ? id : undefined
}

/**
 * Reads TLE or 3LE text (CRLF or LF, names optional). A name line is any line
 * that is not a `1 `/`2 ` element line; an element set that fails validation is
 * reported (with its catalog number when its lines agree on one) and skipped,
 * and reading goes on with the next line. Reading stops at a set of one
 * satellite more than `maxSatellites` (see `overLimit`).
 */
export function parseTleText(text: string, maxSatellites?: number): TextParseResult {
  const lines = text.split(/\r?\n/)
  const sets = new OnePerSatellite(maxSatellites)
  const invalid: InvalidSet[] = []
  const bad = (line: number, reason: string, noradId: number | undefined) => invalid.push(noradId === undefined ? { line, reason } : { line, reason, noradId })
  let name = ''
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line.trim() === '') continue
    if (line.startsWith('1 ')) {
      const next = lines[i + 1] ?? ''
      if (!next.startsWith('2 ')) {
        bad(i + 1, 'line 1 is not followed by a line 2', lineNoradId(line))
        name = ''
        continue
      }
      const parsed = parseTle(name, line, next)
      if (parsed.ok) {
        if (!sets.add(parsed.elements)) break
      } else {
        const id1 = lineNoradId(line)
        const id2 = lineNoradId(next)
        // Whose set it is, when the lines do not contradict each other.
        bad(i + 1, parsed.reason, id1 === undefined ? id2 : id2 === undefined || id2 === id1 ? id1 : undefined)
      }
      name = ''
      i++
    } else if (line.startsWith('2 ')) {
      bad(i + 1, 'line 2 without a line 1', lineNoradId(line))
      name = ''
    } else {
      name = line
    }
  }
  return sets.result(invalid)
}

/** Orbital parameters as the API defines them (km, degrees, minutes, rev/day). */
export interface OrbitalParams {
  inclination: number
  eccentricity: number
  meanMotion: number
  orbitalPeriod: number
  perigeeHeight: number
  apogeeHeight: number
  semiMajorAxis: number
}

/** Gravitational parameter of the Earth the API uses for the semi-major axis, km³/s². */
export const EARTH_MU_KM3_S2 = 398600.4418
/** WGS84 equatorial radius, km: the reference for perigee and apogee heights. */
export const EARTH_RADIUS_KM = 6378.137

/**
 * SGP4's recovered (Brouwer, "un-Kozai'd") mean motion in rad/min: the same
 * formula as SGP4's initialisation (Vallado's `initl`), WGS72 constants.
 */
export function brouwerMeanMotionRadPerMin(elements: ElementSet): number {
  const kozai = (elements.meanMotionRevPerDay * 2 * Math.PI) / 1440
  const e = elements.eccentricity
  const cosi = Math.cos(elements.inclinationDeg * (Math.PI / 180))
  const omeosq = 1 - e * e
  const ak = (constants.xke / kozai) ** (2 / 3)
  const d1 = (0.75 * constants.j2 * (3 * cosi * cosi - 1)) / (Math.sqrt(omeosq) * omeosq)
  let del = d1 / (ak * ak)
  const adel = ak * (1 - del * del - del * (1 / 3 + (134 * del * del) / 81))
  del = d1 / (adel * adel)
  return kozai / (1 + del)
}

export function orbitalParams(elements: ElementSet): OrbitalParams {
  const nRadPerSec = brouwerMeanMotionRadPerMin(elements) / 60
  const semiMajorAxis = Math.cbrt(EARTH_MU_KM3_S2 / (nRadPerSec * nRadPerSec))
  const e = elements.eccentricity
  return {
    inclination: elements.inclinationDeg,
    eccentricity: e,
    meanMotion: elements.meanMotionRevPerDay,
    orbitalPeriod: 1440 / elements.meanMotionRevPerDay,
    perigeeHeight: semiMajorAxis * (1 - e) - EARTH_RADIUS_KM,
    apogeeHeight: semiMajorAxis * (1 + e) - EARTH_RADIUS_KM,
    semiMajorAxis,
  }
}

export type OrbitClass = 'LEO' | 'MEO' | 'GEO' | 'HEO'

const GEO_HEIGHT_KM = 35786

/** Exactly one orbit class, tested in the API's order: LEO, GEO, HEO, otherwise MEO. */
export function orbitClass(params: OrbitalParams): OrbitClass {
  if (params.apogeeHeight < 2000) return 'LEO'
  if (Math.abs(params.perigeeHeight - GEO_HEIGHT_KM) <= 200 && Math.abs(params.apogeeHeight - GEO_HEIGHT_KM) <= 200) {
    return 'GEO'
  }
  if (params.eccentricity >= 0.25) return 'HEO'
  return 'MEO'
}
