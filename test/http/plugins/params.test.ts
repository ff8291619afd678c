/** Strict parameter parsing: numbers, booleans, enums, instants, repetition and defaults. */
import { describe, expect, test } from 'bun:test'
import { paramsSchema, parseInstant } from '../../../src/http/plugins/params.ts'
import { queryParser } from '../../helpers/params.ts'

const specs = {
  latitude: { type: 'number', min: -90, max: 90, required: true, description: '' },
  altitude: { type: 'number', min: -1000, max: 100000, default: 0, unit: 'metres', description: '' },
  id: { type: 'integer', min: 1, max: 999999999, description: '' },
  flag: { type: 'boolean', default: false, description: '' },
  mode: { type: 'enum', values: ['basic', 'extended'], default: 'basic', description: '' },
  time: { type: 'time', description: '' },
} as const

const { parse, errorOf } = queryParser(specs)

describe('parseParams', () => {
  test('plain decimals, defaults, booleans, enums', () => {
    expect(parse('latitude=-33.87')).toEqual({ latitude: -33.87, altitude: 0, flag: false, mode: 'basic' })
    expect(parse('latitude=10.&altitude=.5&flag=true&mode=extended&id=42&ignored=x')).toEqual({
      latitude: 10,
      altitude: 0.5,
      id: 42,
      flag: true,
      mode: 'extended',
    })
  })

  test.each([
    ['', 'latitude is required: a number between -90 and 90'],
    ['latitude=', 'latitude must be a number between -90 and 90'],
    ['latitude=NaN', 'latitude must be a number between -90 and 90'],
    ['latitude=Infinity', 'latitude must be a number between -90 and 90'],
    ['latitude=0x10', 'latitude must be a number between -90 and 90'],
    ['latitude=1e1', 'latitude must be a number between -90 and 90'],
    ['latitude=10abc', 'latitude must be a number between -90 and 90'],
    ['latitude=%2010', 'latitude must be a number between -90 and 90'],
    ['latitude=90.0001', 'latitude must be a number between -90 and 90'],
    ['latitude=-90.5', 'latitude must be a number between -90 and 90'],
    ['latitude=1&latitude=1', 'latitude must be given only once'],
    ['latitude=1&altitude=-1001', 'altitude must be a number between -1000 and 100000 (metres)'],
    ['latitude=1&id=0', 'id must be an integer between 1 and 999999999'],
    ['latitude=1&id=1.5', 'id must be an integer between 1 and 999999999'],
    ['latitude=1&id=%2B42', 'id must be an integer between 1 and 999999999'],
    ['latitude=1&id=1000000000', 'id must be an integer between 1 and 999999999'],
    ['latitude=1&flag=TRUE', 'flag must be true or false'],
    ['latitude=1&flag=1', 'flag must be true or false'],
    ['latitude=1&flag=', 'flag must be true or false'],
    ['latitude=1&mode=full', 'mode must be one of basic, extended'],
    ['latitude=1&time=yesterday', expect.stringContaining('time must be an ISO 8601 instant with a zone')],
  ])('%p → 400 %p', (query, message) => {
    expect(errorOf(query)).toEqual(message as string)
  })
})

describe('parseInstant', () => {
  test('accepts Z, offsets, fractions and a "+" decoded to a space', () => {
    expect(parseInstant('2026-05-30T12:25:10.469Z')?.toISOString()).toBe('2026-05-30T12:25:10.469Z')
    expect(parseInstant('2026-05-30T14:25:10+02:00')?.toISOString()).toBe('2026-05-30T12:25:10.000Z')
    expect(parseInstant('2026-05-30T14:25:10 02:00')?.toISOString()).toBe('2026-05-30T12:25:10.000Z')
    expect(parseInstant('2026-05-30T10:25-02:00')?.toISOString()).toBe('2026-05-30T12:25:00.000Z')
    expect(parseInstant('2026-05-30T12:25:10.4696644Z')?.toISOString()).toBe('2026-05-30T12:25:10.470Z')
  })

  test.each([
    '2026-05-30',
    '2026-05-30T12:00:00',
    '2026-02-30T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-05-30T24:00:00Z',
    '2026-05-30T12:60:00Z',
    '2026-05-30T12:00:00+25:00',
    '1957-10-03T23:59:59Z',
    '2100-01-01T00:00:00.001Z',
    '0057-01-01T00:00:00Z',
    '1780142400000',
    ' 2026-05-30T12:00:00Z',
  ])('refuses %p', (text) => {
    expect(parseInstant(text)).toBeNull()
  })

  test('the range is inclusive', () => {
    expect(parseInstant('1957-10-04T00:00:00Z')).not.toBeNull()
    expect(parseInstant('2100-01-01T00:00:00Z')).not.toBeNull()
  })
})

test('the schema marks required and optional parameters and carries the bounds', () => {
  const schema = paramsSchema(specs) as any
  expect(schema.required).toEqual(['latitude'])
  expect(schema.properties.latitude.minimum).toBe(-90)
  expect(schema.properties.altitude.maximum).toBe(100000)
})
