/** Recognising and reading element-set payloads: TLE text, OMM JSON, OMM CSV. */
import { describe, expect, test } from 'bun:test'
import {
  describeContent,
  endsInsideElementSet,
  formatOfFileName,
  parseAnyElements,
  parseElements,
  sniffFormat,
} from '../../../src/domain/catalog/formats.ts'
import { ommCsv, ommJson, syntheticGroup, tleText } from '../../fixtures/synthetic.ts'

const records = syntheticGroup(91000, 5)
const TEXTS = { json: ommJson(records), csv: ommCsv(records), tle: tleText(records) }

describe('sniffFormat and describeContent', () => {
  test('recognise each format from its first characters', () => {
    expect(sniffFormat(TEXTS.json)).toBe('json')
    expect(sniffFormat(TEXTS.csv)).toBe('csv')
    expect(sniffFormat(TEXTS.tle)).toBe('tle')
    expect(sniffFormat(`\uFEFF${TEXTS.csv}`)).toBe('csv')
    expect(sniffFormat(TEXTS.tle.split('\r\n').slice(1).join('\n'))).toBe('tle') // 2LE, LF
  })

  test('say what something else is', () => {
    expect(describeContent('<!DOCTYPE html><html><body>Maintenance</body></html>')).toBe('an HTML page')
    expect(describeContent('')).toBe('an empty body')
    expect(describeContent('No GP data found')).toBe('text starting "No GP data found"')
    expect(describeContent('<?xml version="1.0"?><ndm/>')).toBe('XML or markup')
    // A gzip body served without its Content-Encoding, decoded as UTF-8.
    expect(describeContent(new TextDecoder().decode(Bun.gzipSync('[{"OBJECT_NAME":"ISS (ZARYA)"}]')))).toBe('binary data')
    expect(describeContent('x7#\u0001 garbage')).toBe('text starting "x7#? garbage"')
    // Bytes with no NUL but mostly not UTF-8 (an image, a compressed body past its header): binary too.
    let seed = 7
    const noise = Uint8Array.from({ length: 512 }, () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) >> 16) % 255 + 1)
    expect(describeContent(new TextDecoder().decode(noise))).toBe('binary data')
    // Text in another charset (Latin-1 bytes decoded as UTF-8) is not binary.
    const latin1 = (text: string) => new TextDecoder().decode(Uint8Array.from(text, (c) => c.charCodeAt(0)))
    expect(describeContent(latin1('<html><body>Accès refusé</body></html>'))).toBe('an HTML page')
    expect(describeContent(latin1('Accès refusé'))).toBe('text starting "Acc?s refus?"')
    expect(sniffFormat('No GP data found')).toBeNull()
  })

  test('file names', () => {
    expect(formatOfFileName('stations.JSON')).toBe('json')
    expect(formatOfFileName('a.csv')).toBe('csv')
    expect(formatOfFileName('a.3le')).toBe('tle')
    expect(formatOfFileName('README.md')).toBeNull()
  })
})

describe('parseElements (strict: the payload must be the format asked for)', () => {
  test('the same satellites from all three formats', () => {
    const ids = (format: 'json' | 'csv' | 'tle') => {
      const parsed = parseElements(TEXTS[format], format)
      if (!parsed.ok) throw new Error(parsed.reason)
      expect(parsed.invalid).toEqual([])
      return parsed.elements.map((e) => [e.noradId, e.name, e.tle?.line1])
    }
    expect(ids('csv')).toEqual(ids('json'))
    expect(ids('tle')).toEqual(ids('json'))
  })

  test('refuses another format, HTML and garbage with a reason', () => {
    expect(parseElements(TEXTS.tle, 'json')).toEqual({ ok: false, reason: 'expected OMM JSON, got TLE text', wrongFormat: true })
    expect(parseElements('<html><body>Forbidden</body></html>', 'tle')).toEqual({ ok: false, reason: 'expected TLE text, got an HTML page', wrongFormat: true })
    expect(parseElements('\u0000\u0001 garbage', 'csv')).toMatchObject({ ok: false })
    expect(parseElements('[{"NORAD_CAT_ID": 5', 'json')).toMatchObject({ ok: false, reason: expect.stringMatching(/^OMM JSON: not valid JSON/) })
  })

  test('parseAnyElements recognises the format first', () => {
    for (const format of ['json', 'csv', 'tle'] as const) {
      const parsed = parseAnyElements(TEXTS[format])
      expect(parsed.ok && parsed.format).toBe(format)
    }
    expect(parseAnyElements('hello').ok).toBe(false)
  })
})

describe('endsInsideElementSet (a body cut short in transit)', () => {
  const cut = (format: 'csv' | 'tle', at: number) => {
    const text = TEXTS[format].slice(0, at)
    const parsed = parseElements(text, format)
    if (!parsed.ok) return true
    return endsInsideElementSet(text, format, parsed.invalid)
  }

  test('complete payloads are not cut', () => {
    for (const format of ['csv', 'tle'] as const) {
      const parsed = parseElements(TEXTS[format], format)
      expect(parsed.ok && endsInsideElementSet(TEXTS[format], format, parsed.invalid)).toBe(false)
    }
  })

  test('a TLE cut in a line 1, a line 2 or after a name is', () => {
    const lines = TEXTS.tle.split('\r\n')
    const offsetOfLine = (n: number) => lines.slice(0, n).join('\r\n').length + 2
    expect(cut('tle', offsetOfLine(4) + 30)).toBe(true) // inside the second set's line 1
    expect(cut('tle', offsetOfLine(5) + 30)).toBe(true) // inside its line 2
    expect(cut('tle', offsetOfLine(7) + 5)).toBe(true) // after the third name
  })

  test('a CSV cut inside a row is', () => {
    const text = TEXTS.csv
    expect(cut('csv', text.lastIndexOf('\r\n', text.length - 3) + 20)).toBe(true)
  })
})
