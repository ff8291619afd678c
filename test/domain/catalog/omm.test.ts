/** OMM (CelesTrak JSON and CSV) → element sets, TLE lines generated from OMM, and element sets → OMM. */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { propagate } from 'satellite.js'
import { createSatrec } from '../../../src/domain/catalog/catalog.ts'
import { parseTle } from '../../../src/domain/catalog/elements.ts'
import {
  assumedDecimal,
  formatOmmEpoch,
  objectIdOf,
  ommRecordOf,
  parseCsvRows,
  parseOmmCsv,
  parseOmmEpoch,
  parseOmmJson,
  parseOmmRecord,
  tleDesignatorOf,
  tleLinesFor,
} from '../../../src/domain/catalog/omm.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'
import { makeTle } from '../../helpers/tle.ts'
import { elementsOf, ommRecord } from '../../fixtures/synthetic.ts'

const FIXTURES = `${import.meta.dir}/../../fixtures/elements`

function reasonOf(overrides: Record<string, unknown>): string {
  const result = parseOmmRecord({ ...ommRecord(), ...overrides })
  expect(result.ok).toBe(false)
  return result.ok ? '' : result.reason
}

describe('parseOmmRecord', () => {
  test('reads every field of a CelesTrak JSON record', () => {
    const e = elementsOf(ommRecord({ NORAD_CAT_ID: 25544, OBJECT_NAME: 'ISS (ZARYA)', OBJECT_ID: '1998-067A' }))
    expect(e.noradId).toBe(25544)
    expect(e.name).toBe('ISS (ZARYA)')
    expect(e.intlDesignator).toBe('98067A')
    expect(e.classification).toBe('U')
    expect(e.epochUs).toBe(Date.UTC(2026, 4, 30, 12) * 1000)
    expect(e.epochMs).toBe(Date.UTC(2026, 4, 30, 12))
    expect(e.meanMotionRevPerDay).toBe(15.5)
    expect(e.eccentricity).toBe(0.0007)
    expect(e.inclinationDeg).toBe(51.6)
    expect(e.raanDeg).toBe(27.5)
    expect(e.argOfPericenterDeg).toBe(114.7)
    expect(e.meanAnomalyDeg).toBe(245.5)
    expect(e.bstar).toBe(0.00021767)
    expect(e.meanMotionDot).toBe(0.00011776)
    expect(e.meanMotionDdot).toBe(0)
    expect(e.elementSetNo).toBe(999)
    expect(e.revAtEpoch).toBe(12345)
    expect(e.sourceFormat).toBe('omm')
  })

  test('reads numbers given as strings (CSV) the same as JSON numbers', () => {
    const record = ommRecord()
    const asStrings = Object.fromEntries(Object.entries(record).map(([k, v]) => [k, String(v)]))
    const fromStrings = parseOmmRecord(asStrings)
    expect(fromStrings.ok && fromStrings.elements).toEqual(elementsOf(record))
  })

  test('keeps the epoch to the microsecond; epochMs rounds like a TLE epoch does', () => {
    const e = elementsOf(ommRecord({ EPOCH: '2026-05-30T12:25:10.469664' }))
    expect(e.epochUs).toBe(Date.UTC(2026, 4, 30, 12, 25, 10) * 1000 + 469_664)
    expect(e.epochMs).toBe(Date.UTC(2026, 4, 30, 12, 25, 10, 470))
    // An explicit UTC zone is accepted too.
    expect(elementsOf(ommRecord({ EPOCH: '2026-05-30T12:25:10.469664Z' })).epochUs).toBe(e.epochUs!)
  })

  test('a catalog number past 99999 is a normal element set without a TLE form', () => {
    const e = elementsOf(ommRecord({ NORAD_CAT_ID: 270001 }))
    expect(e.noradId).toBe(270001)
    expect(e.tle).toBeNull()
    expect(e.epochMs).toBe(Date.UTC(2026, 4, 30, 12))
  })

  test('defaults: missing drag terms are 0, a missing name is the catalog number', () => {
    const { BSTAR, MEAN_MOTION_DOT, MEAN_MOTION_DDOT, OBJECT_NAME, ...rest } = ommRecord({ NORAD_CAT_ID: 4242 })
    const parsed = parseOmmRecord(rest)
    expect(parsed.ok).toBe(true)
    if (!parsed.ok) return
    expect([parsed.elements.bstar, parsed.elements.meanMotionDot, parsed.elements.meanMotionDdot]).toEqual([0, 0, 0])
    expect(parsed.elements.name).toBe('4242')
  })

  test('rejects out-of-range and unparseable fields, naming the field', () => {
    expect(reasonOf({ NORAD_CAT_ID: 0 })).toStartWith('NORAD_CAT_ID')
    expect(reasonOf({ NORAD_CAT_ID: 12.5 })).toStartWith('NORAD_CAT_ID')
    expect(reasonOf({ NORAD_CAT_ID: undefined })).toStartWith('NORAD_CAT_ID')
    expect(reasonOf({ EPOCH: '2026-02-30T00:00:00' })).toStartWith('EPOCH')
    expect(reasonOf({ EPOCH: 'yesterday' })).toStartWith('EPOCH')
    expect(reasonOf({ EPOCH: '1950-01-01T00:00:00' })).toBe('EPOCH is not between 1957 and 2099')
    expect(reasonOf({ ECCENTRICITY: 1 })).toBe('ECCENTRICITY is not a number in 0..1')
    expect(reasonOf({ INCLINATION: 181 })).toBe('INCLINATION is not a number in 0..180')
    expect(reasonOf({ MEAN_MOTION: 0 })).toBe('MEAN_MOTION is not a positive number up to 20 rev/day')
    expect(reasonOf({ MEAN_MOTION: '15.5x' })).toBe('MEAN_MOTION is not a positive number up to 20 rev/day')
    expect(reasonOf({ RA_OF_ASC_NODE: -1 })).toBe('RA_OF_ASC_NODE is not a number in 0..360')
    expect(reasonOf({ BSTAR: 'abc' })).toBe('BSTAR is not a number')
    expect(reasonOf({ REV_AT_EPOCH: 1.5 })).toBe('REV_AT_EPOCH is not a whole number')
  })
})

describe('OMM epochs and designators', () => {
  test('epoch text ↔ µs', () => {
    expect(parseOmmEpoch('2026-05-30T12:25:10')).toBe(Date.UTC(2026, 4, 30, 12, 25, 10) * 1000)
    expect(parseOmmEpoch('2026-05-30T12:25:10.5')).toBe(Date.UTC(2026, 4, 30, 12, 25, 10, 500) * 1000)
    expect(parseOmmEpoch('2026-05-30T24:00:00')).toBeNull()
    expect(formatOmmEpoch(Date.UTC(2026, 4, 30, 12, 25, 10) * 1000 + 469_664)).toBe('2026-05-30T12:25:10.469664')
    expect(formatOmmEpoch(Date.UTC(2026, 0, 1) * 1000 + 5)).toBe('2026-01-01T00:00:00.000005')
  })

  test('international designators in both forms', () => {
    expect(tleDesignatorOf('1998-067A')).toBe('98067A')
    expect(tleDesignatorOf('2026-123ABC')).toBe('26123ABC')
    expect(tleDesignatorOf('98067A')).toBe('98067A')
    expect(tleDesignatorOf('UNKNOWN')).toBe('')
    expect(objectIdOf('98067A')).toBe('1998-067A')
    expect(objectIdOf('26123AB')).toBe('2026-123AB')
    expect(objectIdOf('')).toBe('')
  })
})

describe('TLE lines generated from OMM', () => {
  test('equal the lines an independent formatter writes for the same values', () => {
    // makeTle (test/helpers/tle.ts) fixes ndot .00011776, nddot 0, element set 999, rev 12345, designator 98067A.
    const values = { noradId: 25544, epochMs: Date.UTC(2026, 4, 30, 12, 25, 10, 469), inclinationDeg: 51.6337, raanDeg: 27.5746 }
    const expected = makeTle({ ...values, eccentricity: 0.0007245, argOfPericenterDeg: 114.708, meanAnomalyDeg: 245.4664, meanMotionRevPerDay: 15.49496548 })
    const e = elementsOf(
      ommRecord({
        NORAD_CAT_ID: 25544,
        OBJECT_ID: '1998-067A',
        EPOCH: '2026-05-30T12:25:10.469000',
        INCLINATION: 51.6337,
        RA_OF_ASC_NODE: 27.5746,
        ECCENTRICITY: 0.0007245,
        ARG_OF_PERICENTER: 114.708,
        MEAN_ANOMALY: 245.4664,
        MEAN_MOTION: 15.49496548,
      }),
    )
    expect(e.tle).toEqual({ line1: expected.line1, line2: expected.line2 })
  })

  test('are valid TLEs whose fields equal the OMM values within the format precision', () => {
    const records = JSON.parse(readFileSync(`${FIXTURES}/stations.json`, 'utf8'))
    for (const record of records) {
      const e = elementsOf(record)
      if (record.NORAD_CAT_ID > 99999) {
        expect(e.tle).toBeNull()
        continue
      }
      const back = parseTle(e.name, e.tle!.line1, e.tle!.line2)
      if (!back.ok) throw new Error(back.reason)
      const t = back.elements
      expect(t.noradId).toBe(record.NORAD_CAT_ID)
      expect(Math.abs(t.epochMs - e.epochMs)).toBeLessThanOrEqual(1) // 1e-8 day = 0.864 ms
      expect(Math.abs(t.inclinationDeg - record.INCLINATION)).toBeLessThanOrEqual(0.00005)
      expect(Math.abs(t.raanDeg - record.RA_OF_ASC_NODE)).toBeLessThanOrEqual(0.00005)
      expect(Math.abs(t.argOfPericenterDeg - record.ARG_OF_PERICENTER)).toBeLessThanOrEqual(0.00005)
      expect(Math.abs(t.meanAnomalyDeg - record.MEAN_ANOMALY)).toBeLessThanOrEqual(0.00005)
      expect(Math.abs(t.eccentricity - record.ECCENTRICITY)).toBeLessThanOrEqual(0.00000005)
      expect(Math.abs(t.meanMotionRevPerDay - record.MEAN_MOTION)).toBeLessThanOrEqual(0.000000005)
      expect(Math.abs(t.meanMotionDot - record.MEAN_MOTION_DOT)).toBeLessThanOrEqual(0.000000005)
      expect(Math.abs(t.bstar - record.BSTAR)).toBeLessThanOrEqual(Math.abs(record.BSTAR) * 1e-4 + 1e-12)
      expect(Math.abs(t.meanMotionDdot - record.MEAN_MOTION_DDOT)).toBeLessThanOrEqual(Math.abs(record.MEAN_MOTION_DDOT) * 1e-4 + 1e-12)
      expect(t.elementSetNo).toBe(record.ELEMENT_SET_NO)
      expect(t.revAtEpoch).toBe(record.REV_AT_EPOCH)
      expect(t.intlDesignator).toBe(tleDesignatorOf(record.OBJECT_ID))
    }
  })

  test('the TLE → OMM → TLE round trip reproduces every line of the embedded snapshot', async () => {
    const catalog = await embeddedCatalog()
    const mismatches: string[] = []
    for (const { elements } of catalog.satellites) {
      const again = parseOmmRecord(ommRecordOf(elements) as unknown as Record<string, unknown>)
      if (!again.ok) mismatches.push(`${elements.noradId}: ${again.reason}`)
      else if (again.elements.tle?.line1 !== elements.tle?.line1 || again.elements.tle?.line2 !== elements.tle?.line2) {
        mismatches.push(`${elements.noradId}:\n${elements.tle?.line1}\n${again.elements.tle?.line1}\n${elements.tle?.line2}\n${again.elements.tle?.line2}`)
      }
    }
    expect(mismatches.slice(0, 3)).toEqual([])
    expect(catalog.size).toBeGreaterThan(1000)
  })

  test('assumed-decimal fields', () => {
    expect(assumedDecimal(0.00021767)).toBe(' 21767-3')
    expect(assumedDecimal(-0.000011606)).toBe('-11606-4')
    expect(assumedDecimal(0)).toBe(' 00000+0')
    expect(assumedDecimal(0.5)).toBe(' 50000+0')
    expect(assumedDecimal(0.0000999996)).toBe(' 10000-3') // rounding carries into the exponent
    expect(assumedDecimal(1e-12)).toBe(' 00000+0')
    expect(assumedDecimal(1e12)).toBeNull()
  })

  test('no TLE form when a value does not fit its field or the year is outside 1957..2056', () => {
    expect(elementsOf(ommRecord({ MEAN_MOTION_DOT: 1.5 })).tle).toBeNull()
    expect(elementsOf(ommRecord({ EPOCH: '2060-01-01T00:00:00' })).tle).toBeNull()
    // The last fraction of a millisecond of a year is day 1 of the next in a TLE.
    const lastInstant = elementsOf(ommRecord({ EPOCH: '2026-12-31T23:59:59.999999' }))
    expect(lastInstant.tle?.line1.slice(18, 32)).toBe('27001.00000000')
  })

  test('negative first derivative and the classification are written as published', () => {
    const e = elementsOf(ommRecord({ MEAN_MOTION_DOT: -0.00000296, CLASSIFICATION_TYPE: 'U' }))
    expect(e.tle!.line1.slice(33, 43)).toBe('-.00000296')
    expect(e.tle!.line1[7]).toBe('U')
  })
})

describe('SGP4 from OMM', () => {
  test('positions from the OMM values match those from the generated TLE lines', () => {
    const e = elementsOf(ommRecord({ EPOCH: '2026-05-30T12:25:10.469664' }))
    const fromOmm = createSatrec(e)
    const fromLines = createSatrec({ ...e, sourceFormat: 'tle' })
    const at = new Date(Date.UTC(2026, 4, 31))
    const a = propagate(fromOmm, at)!.position as { x: number; y: number; z: number }
    const b = propagate(fromLines, at)!.position as { x: number; y: number; z: number }
    // The TLE rounds the epoch to 1e-8 day (0.86 ms): metres apart at most.
    expect(Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z)).toBeLessThan(0.02)
  })

  test('the sub-millisecond part of the epoch is kept', () => {
    const whole = createSatrec(elementsOf(ommRecord({ EPOCH: '2026-05-30T12:25:10.469000' })))
    const micro = createSatrec(elementsOf(ommRecord({ EPOCH: '2026-05-30T12:25:10.469900' })))
    const deltaUs = (micro.jdsatepoch - whole.jdsatepoch) * 86_400_000_000
    expect(deltaUs).toBeGreaterThan(800)
    expect(deltaUs).toBeLessThan(1000)
  })

  test('a 6-digit OMM-only object propagates', () => {
    const satrec = createSatrec(elementsOf(ommRecord({ NORAD_CAT_ID: 270001 })))
    const pv = propagate(satrec, new Date(Date.UTC(2026, 4, 30, 13)))
    const p = pv!.position as { x: number; y: number; z: number }
    expect(Math.hypot(p.x, p.y, p.z)).toBeGreaterThan(6600)
    expect(Math.hypot(p.x, p.y, p.z)).toBeLessThan(7000)
  })
})

describe('parseOmmJson', () => {
  test('reads an array of records and reports invalid ones by position', () => {
    const parsed = parseOmmJson(JSON.stringify([ommRecord({ NORAD_CAT_ID: 1 }), 'oops', ommRecord({ NORAD_CAT_ID: 2, ECCENTRICITY: 3 }), ommRecord({ NORAD_CAT_ID: 3 })]))
    expect(parsed.ok).toBe(true)
    if (!parsed.ok) return
    expect(parsed.result.elements.map((e) => e.noradId)).toEqual([1, 3])
    expect(parsed.result.invalid).toEqual([
      { line: 2, reason: 'not an OMM object' },
      // Whose it is: the set held for satellite 2 can be kept.
      { line: 3, reason: 'ECCENTRICITY is not a number in 0..1', noradId: 2 },
    ])
  })

  test('a record repeated costs one set; reading stops past the satellite limit', () => {
    const records = [ommRecord({ NORAD_CAT_ID: 1 }), ...Array.from({ length: 300 }, () => ommRecord({ NORAD_CAT_ID: 2 })), ommRecord({ NORAD_CAT_ID: 3 })]
    const parsed = parseOmmJson(JSON.stringify(records))
    expect(parsed.ok && parsed.result).toMatchObject({ duplicates: 299 })
    expect(parsed.ok && parsed.result.elements.map((e) => e.noradId)).toEqual([1, 2, 3])
    const cut = parseOmmJson(JSON.stringify(records), 2)
    expect(cut.ok && cut.result).toMatchObject({ overLimit: true })
    expect(cut.ok && cut.result.elements.map((e) => e.noradId)).toEqual([1, 2])
  })

  test('refuses what is not a JSON array', () => {
    expect(parseOmmJson('[{"NORAD_CAT_ID": 1},').ok).toBe(false)
    expect(parseOmmJson('{"error": "no"}')).toEqual({ ok: false, reason: 'JSON is not an array of OMM records' })
    const empty = parseOmmJson('[]')
    expect(empty.ok && empty.result.elements).toEqual([])
  })
})

describe('parseOmmCsv', () => {
  test('reads the CelesTrak CSV fixture, quoted names included, like the JSON one', async () => {
    const csv = parseOmmCsv(await Bun.file(`${FIXTURES}/stations.csv`).text())
    const json = parseOmmJson(await Bun.file(`${FIXTURES}/stations.json`).text())
    expect(csv.ok && json.ok).toBe(true)
    if (!csv.ok || !json.ok) return
    expect(csv.result.invalid).toEqual([])
    expect(csv.result.elements).toEqual(json.result.elements)
    expect(csv.result.elements.map((e) => e.name)).toContain('SYNTH GEO, WEST')
  })

  test('a header without the OMM columns is refused; a short row is reported with its line', () => {
    expect(parseOmmCsv('name,value\nx,1\n')).toEqual({ ok: false, reason: expect.stringContaining('CSV header lacks NORAD_CAT_ID') })
    const text = 'OBJECT_NAME,NORAD_CAT_ID,EPOCH,MEAN_MOTION,ECCENTRICITY,INCLINATION,RA_OF_ASC_NODE,ARG_OF_PERICENTER,MEAN_ANOMALY\r\n' + 'A,5,2026-05-30T00:00:00,15,0.001,51,10,20,30\r\n' + 'B,6,2026-05-30T00:00:00,15\r\n'
    const parsed = parseOmmCsv(text)
    expect(parsed.ok && parsed.result.elements.map((e) => e.noradId)).toEqual([5])
    expect(parsed.ok && parsed.result.invalid).toEqual([{ line: 3, reason: 'row has 4 fields, the header 9', noradId: 6 }])
  })

  test('RFC 4180 rows: quotes, doubled quotes, newlines inside quotes, blank lines', () => {
    expect(parseCsvRows('a,"b,c","say ""hi"""\n\n"multi\nline",x\r\nlast')).toEqual([
      { line: 1, fields: ['a', 'b,c', 'say "hi"'] },
      { line: 3, fields: ['multi\nline', 'x'] },
      { line: 5, fields: ['last'] },
    ])
  })
})

test('angles that round up to 360 are written as 0.0000 in generated TLE lines', () => {
  const base = parseTle('X', makeTle().line1, makeTle().line2)
  if (!base.ok) throw new Error(base.reason)
  const lines = tleLinesFor({ ...base.elements, raanDeg: 359.99999, meanAnomalyDeg: 359.999999, tle: null })!
  expect(lines.line2.slice(17, 25)).toBe('  0.0000')
  expect(lines.line2.slice(43, 51)).toBe('  0.0000')
  expect(parseTle('X', lines.line1, lines.line2).ok).toBe(true)
})
