/** Element-set parsing and validation, orbital parameters and labels. */
import { describe, expect, test } from 'bun:test'
import { buildCatalog, createSatrec } from '../../../src/domain/catalog/catalog.ts'
import {
  EARTH_MU_KM3_S2,
  formatCatalogNumber,
  orbitClass,
  orbitalParams,
  parseCatalogNumber,
  parseTle,
  parseTleText,
  tleChecksum,
} from '../../../src/domain/catalog/elements.ts'
import { makeTle, threeLineText, withChecksum } from '../../helpers/tle.ts'

const ORIGIN = { source: 'snapshot' as const, obtainedAtMs: 0 }

function parseOk(set = makeTle()) {
  const result = parseTle(set.name, set.line1, set.line2)
  if (!result.ok) throw new Error(result.reason)
  return result.elements
}

function reason(line1: string, line2: string): string {
  const result = parseTle('X', line1, line2)
  expect(result.ok).toBe(false)
  return result.ok ? '' : result.reason
}

describe('parseTle', () => {
  test('reads every field of a valid element set', () => {
    const e = parseOk(makeTle({ noradId: 25544, name: 'ISS (ZARYA)', eccentricity: 0.0007245, meanMotionRevPerDay: 15.49496548 }))
    expect(e.noradId).toBe(25544)
    expect(e.name).toBe('ISS (ZARYA)')
    expect(e.intlDesignator).toBe('98067A')
    expect(e.epochMs).toBe(Date.UTC(2026, 4, 30, 12))
    expect(e.inclinationDeg).toBe(51.6)
    expect(e.eccentricity).toBe(0.0007245)
    expect(e.meanMotionRevPerDay).toBe(15.49496548)
    expect(e.bstar).toBeCloseTo(0.21767e-3, 12)
    expect(e.meanMotionDot).toBe(0.00011776)
    expect(e.revAtEpoch).toBe(12345)
    expect(e.tle?.line1).toHaveLength(69)
  })

  test('rejects a wrong checksum on either line', () => {
    const { line1, line2 } = makeTle()
    const bump = (l: string) => l.slice(0, 68) + String((Number(l[68]) + 1) % 10)
    expect(reason(bump(line1), line2)).toBe('line 1 checksum mismatch')
    expect(reason(line1, bump(line2))).toBe('line 2 checksum mismatch')
  })

  test('rejects short and long lines', () => {
    const { line1, line2 } = makeTle()
    expect(reason(line1.slice(0, 60), line2)).toBe('line 1 has 60 characters, not 69')
    expect(reason(line1, `${line2}0`)).toBe('line 2 has 70 characters, not 69')
  })

  test('rejects swapped line numbers and mismatched catalog numbers', () => {
    const a = makeTle({ noradId: 11111 })
    const b = makeTle({ noradId: 22222 })
    expect(reason(a.line2, a.line1)).toBe('line 1 does not start with "1 "')
    expect(reason(a.line1, b.line2)).toBe('catalog numbers of lines 1 and 2 differ')
  })

  test('rejects an impossible epoch and unparseable fields, even with valid checksums', () => {
    const { line1, line2 } = makeTle()
    expect(reason(withChecksum(`${line1.slice(0, 20)}400.50000000${line1.slice(32)}`), line2)).toBe('epoch day is out of range')
    expect(reason(withChecksum(`${line1.slice(0, 18)}xx${line1.slice(20)}`), line2)).toBe('epoch is not parseable')
    expect(reason(line1, withChecksum(`${line2.slice(0, 8)}  51.x00${line2.slice(16)}`))).toBe('inclination is not a number in 0..180')
    expect(reason(line1, withChecksum(`${line2.slice(0, 8)} 181.0000${line2.slice(16)}`))).toBe('inclination is not a number in 0..180')
    expect(reason(line1, withChecksum(`${line2.slice(0, 26)}00a0000${line2.slice(33)}`))).toBe('eccentricity is not a number in 0..1')
    expect(reason(line1, withChecksum(`${line2.slice(0, 52)} 0.00000000${line2.slice(63)}`))).toBe(
      'mean motion is not a positive number up to 20 rev/day',
    )
    expect(reason(withChecksum(`${line1.slice(0, 53)} 2a767-3${line1.slice(61)}`), line2)).toBe('B* is not parseable')
  })

  test('two-digit years: 57..99 are 1957..1999, 00..56 are 2000..2056', () => {
    const { line1, line2 } = makeTle()
    const at = (yy: string) => parseTle('X', withChecksum(`${line1.slice(0, 18)}${yy}${line1.slice(20)}`), line2)
    const y57 = at('57')
    const y56 = at('56')
    expect(y57.ok && new Date(y57.elements.epochMs).getUTCFullYear()).toBe(1957)
    expect(y56.ok && new Date(y56.elements.epochMs).getUTCFullYear()).toBe(2056)
  })

  test('Alpha-5 catalog numbers', () => {
    expect(parseCatalogNumber('A0001')).toBe(100001)
    expect(parseCatalogNumber('Z9999')).toBe(339999)
    expect(parseCatalogNumber('I0001')).toBeNull()
    expect(formatCatalogNumber(100001)).toBe('A0001')
    expect(formatCatalogNumber(340000)).toBeNull()
    expect(parseOk(makeTle({ noradId: 123456 })).noradId).toBe(123456)
  })

  test('checksum counts digits and minus signs', () => {
    expect(tleChecksum(`${'-'.repeat(10)}${'9'.repeat(58)}`)).toBe((10 + 9 * 58) % 10)
  })
})

describe('parseTleText', () => {
  const sets = [makeTle({ noradId: 1001, name: 'ONE' }), makeTle({ noradId: 1002, name: 'TWO' })]

  test('reads 3LE with CRLF and LF alike', () => {
    for (const eol of ['\r\n', '\n']) {
      const { elements, invalid } = parseTleText(threeLineText(sets, eol))
      expect(invalid).toEqual([])
      expect(elements.map((e) => [e.noradId, e.name])).toEqual([
        [1001, 'ONE'],
        [1002, 'TWO'],
      ])
    }
  })

  test('reads 2LE (no names) and the "0 " name prefix', () => {
    const twoLine = sets.map((s) => `${s.line1}\n${s.line2}`).join('\n')
    expect(parseTleText(twoLine).elements.map((e) => e.name)).toEqual(['1001', '1002'])
    const prefixed = `0 ONE  \n${sets[0]!.line1}\n${sets[0]!.line2}\n`
    expect(parseTleText(prefixed).elements[0]!.name).toBe('ONE')
  })

  test('skips and reports invalid sets without losing the rest', () => {
    const bad = { ...makeTle({ noradId: 1003, name: 'BAD' }) }
    bad.line2 = bad.line2.slice(0, 68) + String((Number(bad.line2[68]) + 1) % 10)
    const text = threeLineText([sets[0]!, bad, sets[1]!]) + 'ORPHAN\n1 99999U\n'
    const { elements, invalid } = parseTleText(text)
    expect(elements.map((e) => e.noradId)).toEqual([1001, 1002])
    // Each names its satellite when its lines say whose it is (so the set held for it can be kept).
    expect(invalid).toEqual([
      { line: 5, reason: 'line 2 checksum mismatch', noradId: 1003 },
      { line: 11, reason: 'line 1 is not followed by a line 2', noradId: 99999 },
    ])
    // Lines that disagree on the catalog number name nobody.
    const mixed = `${sets[0]!.line1}\n${sets[1]!.line2}\n`
    expect(parseTleText(mixed).invalid).toEqual([{ line: 1, reason: 'catalog numbers of lines 1 and 2 differ' }])
  })

  test('a satellite given several times costs one set: its newest (a real name on a tie), where it first appeared', () => {
    const older = makeTle({ noradId: 1001, name: 'ONE OLD', epochMs: Date.UTC(2026, 4, 20) })
    const newer = makeTle({ noradId: 1001, name: 'ONE NEW', epochMs: Date.UTC(2026, 4, 21) })
    const text = threeLineText([older, sets[1]!, newer, older, ...Array.from({ length: 500 }, () => older)])
    const parsed = parseTleText(text)
    expect(parsed.elements.map((e) => [e.noradId, e.name])).toEqual([
      [1001, 'ONE NEW'],
      [1002, 'TWO'],
    ])
    expect(parsed.duplicates).toBe(502)
    expect(parsed.overLimit).toBeUndefined()
  })

  test('reading stops at one satellite more than the limit (repeats do not count)', () => {
    const many = Array.from({ length: 5 }, (_, i) => makeTle({ noradId: 2001 + i, name: `N${i}` }))
    const text = threeLineText([many[0]!, many[0]!, many[1]!, many[2]!, many[3]!, many[4]!])
    expect(parseTleText(text, 5)).toMatchObject({ duplicates: 1 })
    expect(parseTleText(text, 5).overLimit).toBeUndefined()
    const cut = parseTleText(text, 3)
    expect(cut.overLimit).toBe(true)
    expect(cut.elements.map((e) => e.noradId)).toEqual([2001, 2002, 2003])
  })

  test('garbage text yields nothing and never throws', () => {
    expect(parseTleText('<html>nope</html>\n\u0000\u0001').elements).toEqual([])
    expect(parseTleText('').elements).toEqual([])
  })
})

describe('buildCatalog', () => {
  test('one entry per satellite, carrying all its groups; the newest epoch wins', () => {
    const older = parseOk(makeTle({ noradId: 5, name: 'OLD NAME', epochMs: Date.UTC(2026, 4, 1) }))
    const newer = parseOk(makeTle({ noradId: 5, name: 'NEW NAME', epochMs: Date.UTC(2026, 4, 2) }))
    const other = parseOk(makeTle({ noradId: 3 }))
    const catalog = buildCatalog(
      [
        { group: 'weather', elements: [older, other] },
        { group: 'stations', elements: [newer] },
        { group: 'weather', elements: [] },
      ],
      ORIGIN,
      0,
    )
    expect(catalog.satellites.map((s) => s.noradId)).toEqual([3, 5])
    const five = catalog.get(5)!
    expect(five.groups).toEqual(['stations', 'weather'])
    expect(five.name).toBe('NEW NAME')
    expect(five.elements.epochMs).toBe(Date.UTC(2026, 4, 2))
    expect(catalog.groupCounts).toEqual({ stations: 1, weather: 2 })
  })

  test('on equal epochs a named element set beats one named after its number (2LE)', () => {
    const unnamed = parseOk(makeTle({ noradId: 7, name: '' }))
    const named = parseOk(makeTle({ noradId: 7, name: 'SEVEN' }))
    expect(unnamed.name).toBe('7')
    const catalog = buildCatalog([{ group: 'a', elements: [unnamed] }, { group: 'b', elements: [named] }], ORIGIN, 0)
    expect(catalog.get(7)!.name).toBe('SEVEN')
    expect(catalog.get(7)!.groups).toEqual(['a', 'b'])
  })

  test('a different catalogue has a different version; the same content the same one', () => {
    const a = buildCatalog([{ group: 'g', elements: [parseOk(makeTle({ noradId: 1 }))] }], ORIGIN, 0)
    const b = buildCatalog([{ group: 'g', elements: [parseOk(makeTle({ noradId: 1 }))] }], ORIGIN, 5)
    const c = buildCatalog([{ group: 'g', elements: [parseOk(makeTle({ noradId: 2 }))] }], ORIGIN, 0)
    expect(a.version).toBe(b.version)
    expect(a.version).not.toBe(c.version)
  })
})

describe('orbital parameters and labels', () => {
  test("semi-major axis from SGP4's recovered mean motion with μ = 398600.4418", () => {
    const elements = parseOk(makeTle({ eccentricity: 0.01, meanMotionRevPerDay: 14.2 }))
    const satrec = createSatrec(elements)
    const n = satrec.no / 60 // rad/s, SGP4's un-Kozai'd mean motion
    const expected = Math.cbrt(EARTH_MU_KM3_S2 / (n * n))
    const params = orbitalParams(elements)
    expect(params.semiMajorAxis).toBeCloseTo(expected, 6)
    expect(params.perigeeHeight).toBeCloseTo(expected * 0.99 - 6378.137, 6)
    expect(params.apogeeHeight).toBeCloseTo(expected * 1.01 - 6378.137, 6)
    expect(params.orbitalPeriod).toBeCloseTo(1440 / 14.2, 10)
  })

  test('orbit classes', () => {
    const classOf = (o: Parameters<typeof makeTle>[0]) => orbitClass(orbitalParams(parseOk(makeTle(o))))
    expect(classOf({ meanMotionRevPerDay: 15.5 })).toBe('LEO')
    expect(classOf({ meanMotionRevPerDay: 1.0027, eccentricity: 0.0002, inclinationDeg: 0.05 })).toBe('GEO')
    expect(classOf({ meanMotionRevPerDay: 2.006, eccentricity: 0.72, inclinationDeg: 63.4 })).toBe('HEO')
    expect(classOf({ meanMotionRevPerDay: 2.0056, eccentricity: 0.005, inclinationDeg: 55 })).toBe('MEO')
    // Near-geosynchronous but 500 km off: not GEO
    expect(classOf({ meanMotionRevPerDay: 0.97, eccentricity: 0.0002 })).toBe('MEO')
  })
})
