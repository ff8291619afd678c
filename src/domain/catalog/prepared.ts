/**
 * Prepared snapshots: a snapshot parsed, validated and made into its catalogue
 * at build time, so the executable starts without parsing and validating
 * ~12,000 TLEs or choosing each satellite's set (most of its start-up time
 * otherwise). The file holds the catalogue the snapshot's groups make by
 * themselves (the overlay of the base alone): every satellite once, ordered by
 * catalog number, with the set chosen for it and the groups it is in. Read
 * back, it is the same groups (groups.ts, already read) and, in `sorted`, that
 * catalogue's satellites, which the start uses as they are when no cache group
 * competes (startup.ts).
 *
 * Binary, so that reading it is a few typed-array views and one string split
 * instead of a JSON parse of ~400,000 values (~30 ms at start-up):
 *
 *     MAGIC                                   ASCII, ends with a newline
 *     header length                           uint32, little-endian
 *     header                                  JSON (UTF-8): kind, stamp, source, groups, count, numeric, strings, read
 *     (zeros to a multiple of 8)
 *     numeric columns                         float64 LE, column by column (`numeric` order); NaN: absent
 *     group lists                             uint32 × (count + 1): where each satellite's list starts in the next
 *     group indices                           uint16 each: the indices in `groups` of each satellite's groups
 *     (zeros to a multiple of 8)
 *     TLE lines                               ASCII, 2 × 69 characters per satellite; SOH × 138: no TLE
 *     strings                                 UTF-8, `strings` fields satellite by satellite, each ended by NUL; SOH alone: absent
 */
import type { SortedSatellite } from './catalog.ts'
import type { ElementSet } from './elements.ts'
import { type GroupSet, readGroups } from './groups.ts'
import { catalogOf, overlay } from './overlay.ts'

export const PREPARED_KIND = 'sattrack-prepared-snapshot/2'
const MAGIC = `${PREPARED_KIND}\n`

/** The element-set fields held as float64 columns, in file order. */
const NUMERIC = [
  'noradId', 'epochMs', 'epochUs', 'meanMotionDot', 'meanMotionDdot', 'bstar', 'ephemerisType', 'elementSetNo',
  'inclinationDeg', 'raanDeg', 'eccentricity', 'argOfPericenterDeg', 'meanAnomalyDeg', 'meanMotionRevPerDay', 'revAtEpoch',
] as const satisfies readonly (keyof ElementSet)[]

/** The text fields, in file order. */
const STRINGS = ['name', 'intlDesignator', 'classification', 'sourceFormat'] as const
/** A TLE line's length: the lines are held at fixed places, read without searching. */
const LINE = 69

/** Ends each string; may not occur in one. */
const END = '\u0000'
/** Stands for an absent string (undefined, or no TLE); may not occur in one. */
const ABSENT = '\u0001'
/** Group indices are 16-bit. */
const MAX_GROUPS = 65_536

interface Header {
  kind: string
  stamp: string
  source: string
  /** The snapshot's groups, in its order (those holding no valid set too). */
  groups: string[]
  count: number
  numeric: string[]
  strings: string[]
  read: NonNullable<GroupSet['read']>
}

const align8 = (n: number) => (n + 7) & ~7

/** Parses and validates every group of `snapshot` (the one reading step), makes its catalogue, and gives the prepared file's bytes. */
export function preparedBytes(snapshot: GroupSet): Uint8Array {
  const read = readGroups(snapshot)
  const names = snapshot.groups.map((g) => g.group)
  if (names.length > MAX_GROUPS) throw new Error(`a prepared snapshot holds at most ${MAX_GROUPS} groups, not ${names.length}`)
  const catalog = catalogOf(overlay([{ source: snapshot.source, groups: snapshot.groups.filter((g) => (g.elements?.length ?? 0) > 0) }]), snapshot.obtainedAtMs)
  const satellites = catalog.satellites
  const count = satellites.length
  const header: Header = { kind: PREPARED_KIND, stamp: new Date(snapshot.obtainedAtMs).toISOString(), source: snapshot.description, groups: names, count, numeric: [...NUMERIC], strings: [...STRINGS], read }
  const headerBytes = new TextEncoder().encode(JSON.stringify(header))
  const magicBytes = new TextEncoder().encode(MAGIC)
  const numericAt = align8(magicBytes.length + 4 + headerBytes.length)
  const starts = new Uint32Array(count + 1)
  satellites.forEach((s, i) => (starts[i + 1] = starts[i]! + s.groups.length))
  const listsAt = numericAt + NUMERIC.length * count * 8
  const indicesAt = listsAt + (count + 1) * 4
  const linesAt = align8(indicesAt + starts[count]! * 2)
  const stringsAt = linesAt + count * 2 * LINE

  const texts: string[] = []
  const lines: string[] = []
  const numeric = new Float64Array(NUMERIC.length * count)
  const indices: number[] = []
  satellites.forEach((s, i) => {
    const e = s.elements
    NUMERIC.forEach((field, c) => {
      const value = e[field]
      // Only the epoch in µs may be absent (NaN in the file): every other field is a number.
      if (typeof value !== 'number' ? !(value === undefined && field === 'epochUs') : Number.isNaN(value)) throw new Error(`satellite ${e.noradId}: ${field} is ${value}`)
      numeric[c * count + i] = value ?? Number.NaN
    })
    for (const g of s.groups) indices.push(names.indexOf(g))
    if (typeof e.name !== 'string' || typeof e.classification !== 'string') throw new Error(`satellite ${e.noradId}: no name or classification`)
    for (const text of [e.name, e.intlDesignator, e.classification, e.sourceFormat]) {
      if (text !== undefined && (text.includes(END) || text.includes(ABSENT))) throw new Error(`satellite ${e.noradId}: a text field holds a control character`)
      texts.push(text ?? ABSENT, END)
    }
    const tle = e.tle ? e.tle.line1 + e.tle.line2 : ABSENT.repeat(2 * LINE)
    if (!/^[\x20-\x7e]*$/.test(e.tle ? tle : '') || tle.length !== 2 * LINE) throw new Error(`satellite ${e.noradId}: TLE lines that are not two of ${LINE} printable ASCII characters`)
    lines.push(tle)
  })
  const stringBytes = new TextEncoder().encode(texts.join(''))
  const bytes = new Uint8Array(stringsAt + stringBytes.length)
  const view = new DataView(bytes.buffer)
  bytes.set(magicBytes, 0)
  view.setUint32(magicBytes.length, headerBytes.length, true)
  bytes.set(headerBytes, magicBytes.length + 4)
  for (let k = 0; k < numeric.length; k++) view.setFloat64(numericAt + k * 8, numeric[k]!, true)
  for (let i = 0; i <= count; i++) view.setUint32(listsAt + i * 4, starts[i]!, true)
  indices.forEach((g, k) => view.setUint16(indicesAt + k * 2, g, true))
  bytes.set(new TextEncoder().encode(lines.join('')), linesAt)
  bytes.set(stringBytes, stringsAt)
  return bytes
}

/** The snapshot a prepared file describes, already read (no `text` to read again), with its catalogue's satellites in `sorted`. */
export function snapshotFromPrepared(bytes: Uint8Array, where: string): GroupSet {
  const refuse = () => new Error(`${where} is not a prepared snapshot (${PREPARED_KIND}); rebuild it with make build`)
  const magic = new TextEncoder().encode(MAGIC)
  if (bytes.length < magic.length + 4 || magic.some((b, i) => bytes[i] !== b)) throw refuse()
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const headerLength = view.getUint32(magic.length, true)
  let header: Header
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(magic.length + 4, magic.length + 4 + headerLength)))
  } catch {
    throw refuse()
  }
  if (header?.kind !== PREPARED_KIND || !Array.isArray(header.groups) || !Array.isArray(header.numeric) || !Array.isArray(header.strings) || header.numeric.join() !== NUMERIC.join() || header.strings.join() !== STRINGS.join()) throw refuse()
  const { count, groups: names } = header
  const numericAt = align8(magic.length + 4 + headerLength)
  const listsAt = numericAt + NUMERIC.length * count * 8
  const indicesAt = listsAt + (count + 1) * 4
  if (bytes.length < indicesAt) throw refuse()
  const starts = Array.from({ length: count + 1 }, (_, i) => view.getUint32(listsAt + i * 4, true))
  const linesAt = align8(indicesAt + starts[count]! * 2)
  const stringsAt = linesAt + count * 2 * LINE
  if (bytes.length < stringsAt) throw refuse()
  // Little-endian machines (every target) read the columns in place; others copy them through the view.
  const inPlace = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 && bytes.byteOffset % 8 === 0
  const column = (c: number): Float64Array => {
    const at = numericAt + c * count * 8
    return inPlace ? new Float64Array(bytes.buffer, bytes.byteOffset + at, count) : Float64Array.from({ length: count }, (_, i) => view.getFloat64(at + i * 8, true))
  }
  const groupIndex = (k: number) => view.getUint16(indicesAt + k * 2, true)
  const columns = NUMERIC.map((_, c) => column(c))
  const [noradId, epochMs, epochUs, meanMotionDot, meanMotionDdot, bstar, ephemerisType, elementSetNo, inclinationDeg, raanDeg, eccentricity, argOfPericenterDeg, meanAnomalyDeg, meanMotionRevPerDay, revAtEpoch] =
    columns
  const lines = new TextDecoder().decode(bytes.subarray(linesAt, stringsAt))
  const texts = new TextDecoder().decode(bytes.subarray(stringsAt)).split(END)
  if (texts.length !== count * STRINGS.length + 1) throw refuse()
  // Absent values: undefined (a NaN number, the ABSENT text); the rows were checked to hold no NaN and no ABSENT text otherwise.

  // Satellites in the same groups share one list of them (sorted), as in every catalogue.
  const shared = new Map<number | string, string[]>()
  const members: ElementSet[][] = names.map(() => [])
  const sorted: SortedSatellite[] = new Array(count)
  for (let i = 0; i < count; i++) {
    const k = i * STRINGS.length
    const at = i * 2 * LINE
    const intlDesignator = texts[k + 1]!
    const sourceFormat = texts[k + 3]!
    const us = epochUs![i]!
    // The same literal, in the same order, for every set (and as transfer.ts makes them): one shape.
    const elements: ElementSet = {
      noradId: noradId![i]!,
      name: texts[k]!,
      intlDesignator: intlDesignator === ABSENT ? (undefined as unknown as string) : intlDesignator,
      classification: texts[k + 2]!,
      epochMs: epochMs![i]!,
      meanMotionDot: meanMotionDot![i]!,
      meanMotionDdot: meanMotionDdot![i]!,
      bstar: bstar![i]!,
      ephemerisType: ephemerisType![i]!,
      elementSetNo: elementSetNo![i]!,
      inclinationDeg: inclinationDeg![i]!,
      raanDeg: raanDeg![i]!,
      eccentricity: eccentricity![i]!,
      argOfPericenterDeg: argOfPericenterDeg![i]!,
      meanAnomalyDeg: meanAnomalyDeg![i]!,
      meanMotionRevPerDay: meanMotionRevPerDay![i]!,
      revAtEpoch: revAtEpoch![i]!,
      tle: lines[at] === ABSENT ? null : { line1: lines.slice(at, at + LINE), line2: lines.slice(at + LINE, at + 2 * LINE) },
      epochUs: us !== us ? undefined : us,
      sourceFormat: sourceFormat === ABSENT ? undefined : (sourceFormat as ElementSet['sourceFormat']),
    }
    const first = starts[i]!
    const end = starts[i + 1]!
    const own: number[] = []
    for (let k = first; k < end; k++) {
      const g = groupIndex(k)
      if (g >= names.length) throw refuse()
      members[g]!.push(elements)
      own.push(g)
    }
    // Most satellites are in one group: its index is the key.
    const key = own.length === 1 ? own[0]! : own.join()
    let groups = shared.get(key)
    if (!groups) shared.set(key, (groups = own.map((g) => names[g]!).sort()))
    sorted[i] = { elements, groups }
  }
  const obtainedAtMs = Date.parse(header.stamp)
  return {
    source: 'embedded',
    obtainedAtMs,
    datedBy: 'stamp',
    description: header.source,
    groups: names.map((group, g) => ({ group, source: 'embedded' as const, obtainedAtMs, elements: members[g]! })),
    read: header.read,
    sorted,
  }
}
