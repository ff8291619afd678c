/**
 * The /nearby answer as NearbyAnswerWriter writes it (answer-writer.ts, json-bytes.ts) is, in
 * UTF-8, JSON.stringify of the answer object, character for character: for real answers of the engine
 * in every mode, and for made-up entries at the edges of the number writer and of the rows.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { buildCatalog, type Catalog } from '../../../src/domain/catalog/catalog.ts'
import { NearbyEngine } from '../../../src/domain/nearby/engine.ts'
import type { NearbyEntry } from '../../../src/domain/nearby/selection.ts'
import { NO_AGE_LIMIT } from '../../../src/domain/orbit/validity.ts'
import { piece, putAscii, putCopy, putDecimal, putPiece } from '../../../src/http/representations/json-bytes.ts'
import { NearbyAnswerWriter } from '../../../src/http/routes/nearby/answer-writer.ts'
import { parseParams } from '../../../src/http/plugins/params.ts'
import { nearbyAnswerObject, nearbyFound, nearbyParams, type NearbyParams } from '../../../src/http/routes/nearby/index.ts'
import type { NearbyFound } from '../../../src/http/routes/nearby/model.ts'
import { elementsOf, syntheticGroup } from '../../fixtures/synthetic.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'
import { random } from '../../helpers/nearby.ts'

/** UTF-8 bytes as text. */
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

/** What `write` puts at index 0 of a fresh buffer, as text. */
function written(write: (view: DataView) => number): string {
  const bytes = new Uint8Array(64)
  return new TextDecoder().decode(bytes.subarray(0, write(new DataView(bytes.buffer))))
}

describe('JSON bytes', () => {
  test('putDecimal: the digits over 10^decimals as JSON.stringify writes that number, at every size and at the edges', () => {
    const next = random(7)
    const digits = [0, -0, 1, -1, 5, 10, 50, 500, 1000, 123_000, 999_999, 1_000_000, 1_000_001, 2 ** 31 - 1, -(2 ** 31) + 1, 2 ** 31, -(2 ** 31), 2 ** 40 + 7, 2 ** 53, -(2 ** 60), 1e300, NaN, Infinity, -Infinity]
    for (let i = 0; i < 20_000; i++) {
      const magnitude = 10 ** Math.floor(next() * 11)
      digits.push(Math.round((next() - 0.5) * 2 * magnitude))
    }
    for (let decimals = 0; decimals <= 6; decimals++) {
      const scale = 10 ** decimals
      const wrong = digits.filter((n) => written((view) => putDecimal(view, 0, n, decimals)) !== JSON.stringify(n / scale))
      expect({ decimals, wrong: wrong.slice(0, 5) }).toEqual({ decimals, wrong: [] })
    }
  })

  test('pieces, copies and ASCII text of every length land whole, padding written over by what follows', () => {
    for (const text of ['', ',', '{"a":', ',"velocityKmHs":', '],"altitude":', 'x'.repeat(13)]) {
      expect(written((view) => putAscii(view, putPiece(view, 0, piece(text)), '!'))).toBe(`${text}!`)
      const from = new TextEncoder().encode(`${text}....`)
      expect(written((view) => putAscii(view, putCopy(view, 0, new DataView(from.buffer), 0, text.length), '!'))).toBe(`${text}!`)
    }
    expect(() => piece('°')).toThrow('not ASCII')
  })
})

describe('NearbyAnswerWriter', () => {
  let catalog: Catalog
  beforeAll(async () => {
    catalog = (await embeddedCatalog()).withPolicy(NO_AGE_LIMIT)
  })

  /** The parameters of a request for this observer, parsed by the route's own rules (its defaults), with `more` over them. */
  const params = (latitude: number, longitude: number, more: Partial<NearbyParams> = {}): NearbyParams => {
    const query = new URLSearchParams({ latitude: String(latitude), longitude: String(longitude) })
    return { ...parseParams(nearbyParams, (name) => query.getAll(name)), ...more }
  }

  test('real answers of the engine: basic, extended, with a frequency, visible-only, windows and thresholds, near the epoch and half a year on, empty ones', () => {
    const engine = new NearbyEngine({ defer: (piece) => piece(() => false) })
    const find = engine.find.bind(engine)
    const writer = new NearbyAnswerWriter()
    const next = random(11)
    const variants: Partial<NearbyParams>[] = [
      {},
      { mode: 'extended' },
      { frequency: 437.8 },
      { frequency: 300_000, mode: 'extended' },
      { 'visible-only': true },
      { 'azimuth-range-from': 300, 'azimuth-range-to': 20, 'elevation-threshold': 30 },
      { 'elevation-threshold': 90 },
      { altitude: 4000, 'magnitude-limit': 8 },
    ]
    const epochMs = Date.UTC(2026, 4, 30, 12)
    let entries = 0
    for (let i = 0; i < 80; i++) {
      const latitude = Number(((Math.asin(2 * next() - 1) * 180) / Math.PI).toFixed(4))
      const longitude = Number((next() * 360 - 180).toFixed(4))
      const instant = new Date(epochMs + Math.floor((next() - 0.3) * 200 * 86_400_000))
      const found = nearbyFound(find, catalog, params(latitude, longitude, variants[i % variants.length]), instant)
      entries += found.entries.length
      expect(text(writer.write(found))).toBe(JSON.stringify(nearbyAnswerObject(found)))
    }
    expect(entries).toBeGreaterThan(5000)
  })

  test('made-up entries: names beyond ASCII and with escapes, numbers past an int32, negative and -0, NaN, no magnitude; rows outgrowing their first buffer; an empty answer', () => {
    const groups = [
      { group: 'a', elements: syntheticGroup(70001, 3, { namePrefix: 'ÉTOILE ÅÄÖ' }).map(elementsOf) },
      { group: 'b', elements: syntheticGroup(70004, 3, { namePrefix: '衛星 🛰 "\\"\n' }).map(elementsOf) },
      { group: 'c', elements: syntheticGroup(70007, 3, { namePrefix: 'LONG'.repeat(30_000) }).map(elementsOf) },
    ]
    const synthetic = buildCatalog(groups, { source: 'snapshot', obtainedAtMs: 0 }, 0)
    const base = { altitudeKm: 420.1234567, speedKmH: 27_600.0004999, azimuthDeg: 359.9999996, elevationDeg: -0.0000004, rangeKm: 3e9, sunlit: true, visible: true, latitudeDeg: -0, longitudeDeg: NaN }
    const entries: NearbyEntry[] = synthetic.satellites.map((satellite, index) => ({
      ...base,
      satellite,
      index,
      magnitude: index % 2 ? null : -0.005,
      rangeRateKmS: index * -1e-7,
      altitudeKm: base.altitudeKm * 10 ** index,
      sunlit: index % 3 === 0,
      visible: index % 4 === 0,
    }))
    const head = nearbyFound(() => ({ sky: { observerDaytime: false } as never, entries }), synthetic, params(0, 0, { frequency: 0.001 }), new Date(Date.UTC(2026, 4, 31))).head
    const writer = new NearbyAnswerWriter()
    for (const extended of [false, true]) {
      for (const frequencyMHz of [undefined, 0.001, 145.8]) {
        for (const list of [entries, entries.slice(0, 2), []]) {
          const found: NearbyFound = { head, catalog: synthetic, entries: list, observerDaytime: extended, extended, instantMs: Date.UTC(2026, 4, 31, 0, 0, 0, 1), frequencyMHz }
          expect(text(writer.write(found))).toBe(JSON.stringify(nearbyAnswerObject(found)))
        }
      }
    }
  })

  test('entries at their longest: every number and orbital parameter as long as JSON.stringify writes one, in an answer sized by its own reckoning', () => {
    const groups = [{ group: 'a', elements: syntheticGroup(71001, 40, { namePrefix: '衛'.repeat(80) }).map(elementsOf) }]
    const synthetic = buildCatalog(groups, { source: 'snapshot', obtainedAtMs: 0 }, 0)
    // Numbers of 17 significant digits and a three-digit exponent (JSON.stringify's longest), whatever the scale.
    const longest = -1.2345678901234567e299
    const orbitalParams = { inclination: longest, eccentricity: longest, meanMotion: longest, orbitalPeriod: longest, perigeeHeight: longest, apogeeHeight: longest, semiMajorAxis: longest }
    const entries: NearbyEntry[] = synthetic.satellites.map((satellite, index) => ({
      // The satellite with other orbital parameters (its own are read through getters: copied one by one).
      satellite: { noradId: satellite.noradId, name: satellite.name, groups: satellite.groups, elements: satellite.elements, epochMs: satellite.epochMs, epoch: satellite.epoch, labels: satellite.labels, orbitalParams },
      index,
      latitudeDeg: longest,
      longitudeDeg: longest,
      altitudeKm: longest,
      speedKmH: longest,
      azimuthDeg: longest,
      elevationDeg: longest,
      rangeKm: longest,
      rangeRateKmS: longest,
      sunlit: true,
      magnitude: longest,
      visible: false,
    }))
    const head = nearbyFound(() => ({ sky: { observerDaytime: true } as never, entries }), synthetic, params(0, 0, { frequency: 300_000, mode: 'extended' }), new Date(Date.UTC(2026, 4, 31))).head
    const found: NearbyFound = { head, catalog: synthetic, entries, observerDaytime: true, extended: true, instantMs: Date.UTC(2099, 11, 31, 23, 59, 59, 999), frequencyMHz: 300_000 }
    const expected = JSON.stringify(nearbyAnswerObject(found))
    expect(expected).toContain('"altitude":-1.2345678901234567e+299,')
    expect(text(new NearbyAnswerWriter().write(found))).toBe(expected)
  })
})
