/** Test helpers for strict parameter parsing: parse a query string against declarations, get the 400 message, read a route's declarations. */
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

/** A parameter as a route's schema documents it (the OpenAPI document shows the same). */
export interface DeclaredParameter {
  name: string
  in: 'path' | 'query'
  required: boolean
  schema: { type: string; minimum?: number; maximum?: number; enum?: string[]; format?: string; pattern?: string; minLength?: number; maxLength?: number; default?: unknown }
}

interface RouteLike {
  method: string
  path: string
  hooks?: unknown
}

/** The parameters every GET route of an app declares with routeParams (those with a schema), by route path. */
export function declaredParameters(app: { routes: readonly RouteLike[] }): Map<string, DeclaredParameter[]> {
  const routes = new Map<string, DeclaredParameter[]>()
  for (const route of app.routes) {
    if (route.method !== 'GET' || routes.has(route.path)) continue
    const hooks = route.hooks as { query?: ObjectSchema; params?: ObjectSchema } | undefined
    const of = (where: 'path' | 'query', schema: ObjectSchema | undefined): DeclaredParameter[] =>
      Object.entries(schema?.properties ?? {}).map(([name, s]) => ({
        name,
        in: where,
        required: where === 'path' || (schema?.required ?? []).includes(name),
        schema: s,
      }))
    const declared = [...of('path', hooks?.params), ...of('query', hooks?.query)]
    if (declared.length > 0) routes.set(route.path, declared)
  }
  return routes
}

interface ObjectSchema {
  properties?: Record<string, DeclaredParameter['schema']>
  required?: string[]
}

/** One line per parameter, e.g. `latitude: number -90..90 required`, `mode: basic|extended = basic`: a route's parameters at a glance. */
export function describeParameters(declared: readonly DeclaredParameter[]): string[] {
  return declared.map(({ name, in: where, required, schema: s }) => {
    let kind: string
    if (s.enum) kind = s.enum.join('|')
    else if (s.type === 'boolean') kind = 'boolean'
    else if (s.type === 'number' || s.type === 'integer') kind = `${s.type} ${s.minimum}..${s.maximum}`
    else if (s.format === 'date-time') kind = 'instant'
    else if (s.pattern) kind = 'id list'
    else kind = `text 1..${s.maxLength}`
    const extra = where === 'path' ? ' (path)' : required ? ' required' : s.default !== undefined ? ` = ${s.default}` : ''
    return `${name}: ${kind}${extra}`
  })
}
