/**
 * The /nearby answer written as JSON bytes without building it as objects
 * first: the same text as JSON.stringify of nearbyAnswerObject (index.ts)
 * with its entries as nearbyEntryJson makes them (model.ts), same keys in the
 * same order, numbers to the same decimals (precision.ts);
 * test/http/routes/nearby-writer.test.ts holds them equal.
 *
 * An answer at "now" lists ~330 satellites, and building an object for each
 * and JSON.stringify of them cost about as much as the search. Here the parts
 * of an entry that do not change (catalog number, name, labels, epoch) are
 * written once per satellite and catalogue, as bytes, and copied; the keys
 * between values are fixed pieces; the numbers are written digit by digit.
 */
import type { Catalog } from '../../../domain/catalog/catalog.ts'
import type { OrbitalParams } from '../../../domain/catalog/elements.ts'
import { dopplerShiftHz } from '../../../domain/orbit/radio.ts'
import { DECIMAL_MAX_BYTES, type Piece, piece, putCopy, putDecimal, putPiece, putText, Scratch, utf8 } from '../../representations/json-bytes.ts'
import { daysBetween, ELEMENT_AGE_DECIMALS } from '../satellites/model.ts'
import type { NearbyFound } from './model.ts'
import { NEARBY_DECIMALS as D, scaled, scaledAzimuth } from './precision.ts'

/** The fixed pieces between an entry's values, in nearbyEntryJson's order. */
const PIECE = {
  velocityKmHs: piece(',"velocityKmHs":'),
  elevation: piece(',"elevation":'),
  azimuth: piece(',"azimuth":'),
  range: piece(',"range":'),
  rangeRate: piece(',"rangeRate":'),
  dopplerShiftHz: piece(',"dopplerShiftHz":'),
  magnitude: piece(',"magnitude":'),
  null: piece('null'),
  latitude: piece(',"geoposition":{"latitude":'),
  longitude: piece(',"longitude":'),
  orbitalParams: piece('},"orbitalParams":'),
  close: piece('}'),
  comma: piece(','),
  metadata: piece('{"metadata":'),
  observer: piece(',"observer":'),
  satellites: piece(',"satellites":['),
  end: piece(']}'),
} as const

/** visible, observerDaytime and satelliteSunlit, up to the epoch's key: one piece for each of their 8 combinations (flagsIndex). */
const FLAGS: readonly Piece[] = Array.from({ length: 8 }, (_, index) =>
  piece(`,"visible":${(index & 4) !== 0},"observerDaytime":${(index & 2) !== 0},"satelliteSunlit":${(index & 1) !== 0},"epoch":`),
)
const flagsIndex = (visible: boolean, observerDaytime: boolean, sunlit: boolean) => (visible ? 4 : 0) + (observerDaytime ? 2 : 0) + (sunlit ? 1 : 0)

/**
 * The most an entry takes besides its satellite's row and its orbital
 * parameters: every piece, 11 numbers (altitude, speed, elevation, azimuth,
 * range, range rate, Doppler shift, magnitude, element age, latitude,
 * longitude), padding.
 */
const ENTRY_MAX_BYTES = Object.values(PIECE).reduce((sum, p) => sum + p.length, 0) + Math.max(...FLAGS.map((p) => p.length)) + 11 * DECIMAL_MAX_BYTES + 8
/** The most an entry's orbital parameters take: their JSON with every number at JSON.stringify's longest. */
const ORBITAL_MAX_BYTES = JSON.stringify({
  inclination: 0,
  eccentricity: 0,
  meanMotion: 0,
  orbitalPeriod: 0,
  perigeeHeight: 0,
  apogeeHeight: 0,
  semiMajorAxis: 0,
} satisfies OrbitalParams).replaceAll('0', 'x'.repeat(DECIMAL_MAX_BYTES)).length

/**
 * Each satellite's fixed parts of an entry as bytes, made the first time it
 * is listed: its head, `{"noradId":…,"name":…,"labels":[…],"altitude":`, and
 * its tail, the epoch's value and `,"elementAgeDays":`.
 */
class Rows {
  private bytes = new Uint8Array(256 * 1024)
  view = new DataView(this.bytes.buffer)
  private used = 0
  /** Where satellite i's row starts; -1 until it is made. */
  readonly start: Int32Array
  readonly headLength: Uint32Array
  readonly tailLength: Uint32Array
  /** Satellite i's epoch, ms since 1970 (here, not read from the satellite: one memory access less per entry). */
  readonly epochMs: Float64Array

  constructor(readonly catalog: Catalog) {
    this.start = new Int32Array(catalog.size).fill(-1)
    this.headLength = new Uint32Array(catalog.size)
    this.tailLength = new Uint32Array(catalog.size)
    this.epochMs = new Float64Array(catalog.size)
  }

  /** Makes satellite `index`'s row if not made yet; returns its length in bytes. */
  made(index: number): number {
    if (this.start[index]! < 0) {
      const { noradId, name, labels, epoch, epochMs } = this.catalog.satellites[index]!
      const head = utf8(`{"noradId":${JSON.stringify(noradId)},"name":${JSON.stringify(name)},"labels":${JSON.stringify(labels)},"altitude":`)
      const tail = utf8(`${JSON.stringify(epoch)},"elementAgeDays":`)
      // 4 bytes spare past the last row: putCopy reads up to 3 past what it copies.
      const needed = this.used + head.length + tail.length + 4
      if (needed > this.bytes.length) {
        const larger = new Uint8Array(Math.max(needed, this.bytes.length * 2))
        larger.set(this.bytes.subarray(0, this.used))
        this.bytes = larger
        this.view = new DataView(larger.buffer)
      }
      this.bytes.set(head, this.used)
      this.bytes.set(tail, this.used + head.length)
      this.start[index] = this.used
      this.headLength[index] = head.length
      this.tailLength[index] = tail.length
      this.epochMs[index] = epochMs
      this.used += head.length + tail.length
    }
    return this.headLength[index]! + this.tailLength[index]!
  }
}

/** Writes /nearby answers; keeps, per catalogue, the rows of the satellites listed so far (~130 bytes each for a name of 20 characters), and one buffer. */
export class NearbyAnswerWriter {
  private readonly rows = new WeakMap<Catalog, Rows>()
  private readonly scratch = new Scratch()

  /** The answer's JSON as UTF-8 bytes: a view of the writer's buffer, good until it writes again. */
  write({ head, catalog, entries, observerDaytime, extended, instantMs, frequencyMHz }: NearbyFound): Uint8Array<ArrayBuffer> {
    let rows = this.rows.get(catalog)
    if (rows === undefined) {
      rows = new Rows(catalog)
      this.rows.set(catalog, rows)
    }
    const metadata = JSON.stringify(head.metadata)
    const observer = JSON.stringify(head.observer)
    // Room for all of it: UTF-8 takes at most 3 bytes per UTF-16 unit.
    let size = 64 + 3 * (metadata.length + observer.length)
    for (let i = 0; i < entries.length; i++) size += rows.made(entries[i]!.index) + ENTRY_MAX_BYTES + (extended ? ORBITAL_MAX_BYTES : 0)
    this.scratch.ensure(size)
    const { bytes, view } = this.scratch
    const from = rows.view
    let at = putPiece(view, 0, PIECE.metadata)
    at = putText(bytes, at, metadata)
    at = putPiece(view, at, PIECE.observer)
    at = putText(bytes, at, observer)
    at = putPiece(view, at, PIECE.satellites)
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!
      const start = rows.start[entry.index]!
      const headLength = rows.headLength[entry.index]!
      if (i > 0) at = putPiece(view, at, PIECE.comma)
      at = putCopy(view, at, from, start, headLength)
      at = putDecimal(view, at, scaled(entry.altitudeKm, D.km), D.km)
      at = putPiece(view, at, PIECE.velocityKmHs)
      at = putDecimal(view, at, scaled(entry.speedKmH, D.kmPerHour), D.kmPerHour)
      at = putPiece(view, at, PIECE.elevation)
      at = putDecimal(view, at, scaled(entry.elevationDeg, D.degrees), D.degrees)
      at = putPiece(view, at, PIECE.azimuth)
      at = putDecimal(view, at, scaledAzimuth(entry.azimuthDeg), D.degrees)
      at = putPiece(view, at, PIECE.range)
      at = putDecimal(view, at, scaled(entry.rangeKm, D.km), D.km)
      at = putPiece(view, at, PIECE.rangeRate)
      at = putDecimal(view, at, scaled(entry.rangeRateKmS, D.kmPerSecond), D.kmPerSecond)
      if (frequencyMHz !== undefined) {
        at = putPiece(view, at, PIECE.dopplerShiftHz)
        at = putDecimal(view, at, scaled(dopplerShiftHz(frequencyMHz * 1e6, entry.rangeRateKmS), D.hertz), D.hertz)
      }
      at = putPiece(view, at, PIECE.magnitude)
      at = entry.magnitude === null ? putPiece(view, at, PIECE.null) : putDecimal(view, at, scaled(entry.magnitude, D.magnitude), D.magnitude)
      at = putPiece(view, at, FLAGS[flagsIndex(entry.visible, observerDaytime, entry.sunlit)]!)
      at = putCopy(view, at, from, start + headLength, rows.tailLength[entry.index]!)
      at = putDecimal(view, at, scaled(daysBetween(rows.epochMs[entry.index]!, instantMs), ELEMENT_AGE_DECIMALS), ELEMENT_AGE_DECIMALS)
      if (extended) {
        at = putPiece(view, at, PIECE.latitude)
        at = putDecimal(view, at, scaled(entry.latitudeDeg!, D.degrees), D.degrees)
        at = putPiece(view, at, PIECE.longitude)
        at = putDecimal(view, at, scaled(entry.longitudeDeg!, D.degrees), D.degrees)
        at = putPiece(view, at, PIECE.orbitalParams)
        at = putText(bytes, at, JSON.stringify(entry.satellite.orbitalParams))
      }
      at = putPiece(view, at, PIECE.close)
    }
    at = putPiece(view, at, PIECE.end)
    // The room reckoned above is an upper bound (nearby-writer.test.ts writes entries at their longest): past it, text would have been cut short.
    if (at > size) throw new Error(`the /nearby answer took ${at} bytes, more than the ${size} reckoned`)
    return bytes.subarray(0, at)
  }
}
