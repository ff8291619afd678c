/** Id lists and free text: the parameter kinds behind `ids`, `group` and `search`. */
import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { paramsSchema, parseParams, routeParams } from '../../../src/http/plugins/params.ts'
import { queryParser } from '../../helpers/params.ts'

const specs = {
  ids: { type: 'ids', maxItems: 3, description: '' },
  search: { type: 'text', maxLength: 5, description: '' },
} as const

const { parse, errorOf } = queryParser(specs)

describe('ids', () => {
  test('a comma-separated list of distinct catalog numbers, in the order given', () => {
    expect(parse('ids=25544,20580,1')).toEqual({ ids: [25544, 20580, 1] })
    expect(parse('ids=007')).toEqual({ ids: [7] })
    expect(parse('ids=999999999')).toEqual({ ids: [999_999_999] })
    expect(parse('')).toEqual({})
  })

  test.each(['', ',', '1,', ',1', '1,,2', '1 ,2', '+1', '-1', '0', '1.0', '1e3', '0x10', 'a', '1000000000'])('%p is refused', (value) => {
    expect(errorOf(`ids=${encodeURIComponent(value)}`)).toBe(
      'ids must be a comma-separated list of 1 to 3 NORAD catalog numbers (integers between 1 and 999999999)',
    )
  })

  test('too many, repeated, or given twice', () => {
    expect(errorOf('ids=1,2,3,4')).toBe('ids must list at most 3 catalog numbers (got 4)')
    expect(errorOf('ids=1,2,1')).toBe('ids must not repeat a catalog number (1 is given twice)')
    expect(errorOf('ids=1&ids=2')).toBe('ids must be given only once')
  })

  test('required: missing is a 400 naming the rule', () => {
    const required = { ids: { type: 'ids', maxItems: 100, required: true, description: '' } } as const
    expect(() => parseParams(required, () => [])).toThrow('ids is required: a comma-separated list of 1 to 100 NORAD catalog numbers')
  })
})

describe('text', () => {
  test('taken as given (no trimming, no case folding), 1 to maxLength characters', () => {
    expect(parse('search=ISS%20(')).toEqual({ search: 'ISS (' })
    expect(parse('search=%20a%20')).toEqual({ search: ' a ' })
    expect(errorOf('search=')).toBe('search must be 1 to 5 characters')
    expect(errorOf('search=abcdef')).toBe('search must be 1 to 5 characters')
    expect(errorOf('search=a&search=b')).toBe('search must be given only once')
  })
})

describe('schemas', () => {
  test('an id list is documented and validated as a string of digits and commas; text with its lengths', () => {
    const schema = paramsSchema(specs) as any
    expect(schema.properties.ids.type).toBe('string')
    expect(new RegExp(schema.properties.ids.pattern).test('25544,20580')).toBe(true)
    expect(new RegExp(schema.properties.ids.pattern).test('25544,')).toBe(false)
    expect(schema.properties.search).toMatchObject({ type: 'string', minLength: 1, maxLength: 5 })
    expect(schema.required ?? []).toEqual([])
  })
})

describe('routeParams', () => {
  test('a route reads an id list as numbers; the query keeps its canonical text form', async () => {
    const route = routeParams({ query: { ...specs, n: { type: 'integer', min: 0, max: 9, default: 1, description: '' } } })
    const app = new Elysia().get(
      '/r',
      (ctx) => {
        const { query } = route.read(ctx.query)
        return { read: query, raw: ctx.query }
      },
      route.hooks,
    )
    const res = await app.handle(new Request('http://localhost/r?ids=3,1,2&search=abc'))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ read: { ids: [3, 1, 2], search: 'abc', n: 1 }, raw: { ids: '3,1,2', search: 'abc', n: 1 } })
    const without = await app.handle(new Request('http://localhost/r'))
    expect((await without.json()).read).toEqual({ n: 1 })
  })
})
