/** Test helpers for strict parameter parsing: parse a query string against declarations, or get the 400 message. */
import { expect } from 'bun:test'
import { ApiError } from '../../src/http/plugins/errors.ts'
import { type ParamSpec, parseParams } from '../../src/http/plugins/params.ts'

export function queryParser(specs: Record<string, ParamSpec>) {
  const parse = (query: string) => {
    const search = new URLSearchParams(query)
    return parseParams(specs, (name) => search.getAll(name)) as Record<string, unknown>
  }
  const errorOf = (query: string): string => {
    try {
      parse(query)
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError)
      expect((error as ApiError).status).toBe(400)
      return (error as ApiError).message
    }
    throw new Error(`no error for ${query}`)
  }
  return { parse, errorOf }
}
