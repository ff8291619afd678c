/**
 * Strict parsing of path and query parameters, declared once: each declaration
 * gives both the typebox schema (validation and OpenAPI) and a parser whose
 * 400 messages name the parameter and the rule. Elysia's own coercion accepts
 * more than the contract allows (`1e2`, repeated keys) and loses field names.
 */
import { Type } from '@sinclair/typebox'
import { type TSchema, t } from 'elysia'
import { MAX_NORAD_ID } from '../../domain/catalog/omm.ts'
import { INSTANT_RULE, parseInstant } from '../../web/instant.ts'
import { percentDecoded, readableSegment, shown, undecodableSegmentNote } from './edge.ts'

/** The `time` rule, shared with the page (src/web/instant.ts). */
export { parseInstant, TIME_MAX_MS, TIME_MIN_MS } from '../../web/instant.ts'
import { ApiError } from './errors.ts'

interface ParamBase {
  description: string
}
export interface NumberParam extends ParamBase {
  type: 'number' | 'integer'
  min: number
  max: number
  required?: true
  default?: number
  /** A word for the message, e.g. `metres`. */
  unit?: string
}
export interface BooleanParam extends ParamBase {
  type: 'boolean'
  default: boolean
}
export interface EnumParam extends ParamBase {
  type: 'enum'
  values: readonly string[]
  default: string
}
/** An ISO 8601 instant with a zone; the parsed value is its canonical `toISOString()` form. */
export interface TimeParam extends ParamBase {
  type: 'time'
}
/** A comma-separated list of distinct NORAD catalog numbers (`25544,20580`); the parsed value is a number[]. */
export interface IdListParam extends ParamBase {
  type: 'ids'
  /** The most ids a list may hold. */
  maxItems: number
  required?: true
}
/** Free text of 1 to `maxLength` characters, taken as given. */
export interface TextParam extends ParamBase {
  type: 'text'
  maxLength: number
  required?: true
}
export type ParamSpec = NumberParam | BooleanParam | EnumParam | TimeParam | IdListParam | TextParam

type ValueOf<P> = P extends BooleanParam
  ? boolean
  : P extends EnumParam
    ? string
    : P extends TimeParam
      ? string | undefined
      : P extends IdListParam
        ? P extends { required: true } ? number[] : number[] | undefined
        : P extends TextParam
          ? P extends { required: true } ? string : string | undefined
          : P extends { required: true }
        ? number
        : P extends { default: number }
          ? number
          : number | undefined
export type Values<S extends Record<string, ParamSpec>> = { [K in keyof S]: ValueOf<S[K]> }

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/
const INTEGER = /^\d+$/
const ID_LIST = /^\d+(,\d+)*$/

function describe(name: string, spec: ParamSpec): string {
  switch (spec.type) {
    case 'number':
    case 'integer':
      return `${name} must be ${spec.type === 'integer' ? 'an integer' : 'a number'} between ${spec.min} and ${spec.max}${spec.unit ? ` (${spec.unit})` : ''}`
    case 'boolean':
      return `${name} must be true or false`
    case 'enum':
      return `${name} must be one of ${spec.values.join(', ')}`
    case 'time':
      return `${name} must be ${INSTANT_RULE}`
    case 'ids':
      return `${name} must be a comma-separated list of 1 to ${spec.maxItems} NORAD catalog numbers (integers between 1 and ${MAX_NORAD_ID})`
    case 'text':
      return `${name} must be 1 to ${spec.maxLength} characters`
  }
}

function parseOne(name: string, spec: ParamSpec, raw: string): unknown {
  // The rule, and the value received (shortened, printable), as every refusal names them.
  // A leading space in a number is most often a `+` left unencoded (`latitude=+5`): said, since the value shown begins with a space.
  const bad = () => {
    const plus = (spec.type === 'number' || spec.type === 'integer') && raw.startsWith(' ')
    return new ApiError(400, `${describe(name, spec)} (got "${shown(raw)}"${plus ? ': a "+" left unencoded in a query string is a space; write %2B, or no sign' : ''})`)
  }
  switch (spec.type) {
    case 'number':
    case 'integer': {
      if (!(spec.type === 'integer' ? INTEGER : DECIMAL).test(raw)) throw bad()
      const value = Number(raw)
      if (!(value >= spec.min && value <= spec.max)) throw bad()
      return value
    }
    case 'boolean':
      if (raw !== 'true' && raw !== 'false') throw bad()
      return raw === 'true'
    case 'enum':
      if (!spec.values.includes(raw)) throw bad()
      return raw
    case 'time': {
      const instant = parseInstant(raw)
      if (!instant) throw bad()
      return instant.toISOString()
    }
    case 'ids': {
      if (!ID_LIST.test(raw)) throw bad()
      const ids = raw.split(',').map(Number)
      if (ids.some((id) => id < 1 || id > MAX_NORAD_ID)) throw bad()
      if (ids.length > spec.maxItems) throw new ApiError(400, `${name} must list at most ${spec.maxItems} catalog numbers (got ${ids.length})`)
      const seen = new Set<number>()
      for (const id of ids) {
        if (seen.has(id)) throw new ApiError(400, `${name} must not repeat a catalog number (${id} is given twice)`)
        seen.add(id)
      }
      return ids
    }
    case 'text': {
      if (raw.length === 0) throw bad()
      // Too long: how long, since a value shown shortened cannot say it (an emoji with a variation selector is two).
      const count = characterCount(raw, spec.maxLength)
      if (count > spec.maxLength) throw new ApiError(400, `${describe(name, spec)} (got "${shown(raw)}", ${count} characters)`)
      return raw
    }
  }
}

function schemaOf(spec: ParamSpec): TSchema {
  const meta = { description: spec.description }
  switch (spec.type) {
    case 'number':
      return t.Number({ ...meta, minimum: spec.min, maximum: spec.max, default: spec.default })
    case 'integer':
      // TypeBox's own Integer: the value is parsed already, and Elysia's adds a string form to the docs.
      return Type.Integer({ ...meta, minimum: spec.min, maximum: spec.max, default: spec.default })
    case 'boolean':
      return t.Boolean({ ...meta, default: spec.default })
    case 'enum':
      return t.String({ ...meta, enum: [...spec.values], default: spec.default })
    case 'time':
      return t.String({ ...meta, format: 'date-time', examples: ['2026-05-30T12:00:00Z'] })
    case 'ids':
      // Documented and validated in its query-string form; `read` hands the handler the numbers.
      return t.String({ ...meta, pattern: ID_LIST.source, examples: ['25544,20580'] })
    case 'text':
      return t.String({ ...meta, minLength: 1, maxLength: spec.maxLength })
  }
}

/**
 * Marks a response schema for Elysia as documentation only (what `t.NoValidate` does),
 * with the mark not enumerable so that it stays out of the published OpenAPI document.
 */
export function unchecked<T extends TSchema>(schema: T): T {
  return Object.defineProperty(schema, 'noValidate', { value: true, enumerable: false })
}

const isRequired = (spec: ParamSpec) => 'required' in spec && spec.required === true

/**
 * The typebox object schema of a parameter set (required ones plain, the rest
 * optional), for the OpenAPI document: the strict parser (`transform`) has
 * already checked every value, so Elysia does not check them again. (Its copies
 * of query and path schemas lose a non-enumerable mark, so the document shows
 * `noValidate: true` here, a keyword JSON Schema tools ignore.)
 */
export function paramsSchema<S extends Record<string, ParamSpec>>(specs: S) {
  const properties: Record<string, TSchema> = {}
  for (const [name, spec] of Object.entries(specs)) {
    properties[name] = isRequired(spec) ? schemaOf(spec) : t.Optional(schemaOf(spec))
  }
  return t.NoValidate(t.Object(properties))
}

/**
 * Reads every declared parameter from `lookup` (which returns all values given
 * for a name): a repeated or empty parameter is a 400, a missing one takes its
 * default, a missing required one is a 400. Undeclared names are ignored.
 */
export function parseParams<S extends Record<string, ParamSpec>>(specs: S, lookup: (name: string) => readonly string[]): Values<S> {
  return parseEntries(Object.entries(specs), lookup) as Values<S>
}

/**
 * How many characters (code points, as JSON Schema's maxLength counts: 🛰 is
 * one, though two UTF-16 units) `text` has, counted only when its UTF-16
 * length is over `limit` (never fewer characters than units).
 */
export function characterCount(text: string, limit: number): number {
  if (text.length <= limit) return text.length
  let count = 0
  for (const _ of text) count++
  return count
}

/** Values received, as refusals show them: `"10", "11"`. */
export function shownValues(values: readonly string[]): string {
  return values.map((value) => `"${shown(value)}"`).join(', ')
}

/** A parameter given more than once: the 400 that says so, with the values received. */
export function givenMoreThanOnce(name: string, given: readonly string[]): ApiError {
  return new ApiError(400, `${name} must be given only once (got ${shownValues(given)})`)
}

/** `parseParams` over a declaration's entries, listed once by the route (parsing runs on every request). */
function parseEntries(entries: readonly (readonly [string, ParamSpec])[], lookup: (name: string) => readonly string[]): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const [name, spec] of entries) {
    const given = lookup(name)
    if (given.length > 1) throw givenMoreThanOnce(name, given)
    if (given.length === 0) {
      if (isRequired(spec)) throw new ApiError(400, `${name} is required: ${describe(name, spec).replace(`${name} must be `, '')}`)
      if ('default' in spec && spec.default !== undefined) values[name] = spec.default
      continue
    }
    values[name] = parseOne(name, spec, given[0]!)
  }
  return values
}

/**
 * A route's parameters for Elysia: `hooks` (schemas for the docs, and a
 * transform that parses every value strictly, id lists into numbers, in place)
 * and `read`, which gives the parsed values their types.
 */
export function routeParams<Q extends Record<string, ParamSpec> = {}, P extends Record<string, ParamSpec> = {}>(spec: {
  query?: Q
  params?: P
}) {
  const pathEntries = spec.params && Object.entries(spec.params)
  const queryEntries = spec.query && Object.entries(spec.query)
  return {
    // The values the transform below parsed, with their types: Elysia types a query from its schema, which
    // documents an id list in its query-string form. (It does not check them again: the schema is NoValidate.)
    // Handlers call it as `read(ctx.query, ctx.params)`, never `read(ctx)`: Elysia's static analysis (Sucrose)
    // parses everything (cookies included) for a handler that hands its whole context to a function.
    read: (query: unknown, params?: unknown) => ({ query, params }) as { query: Values<Q>; params: Values<P> },
    hooks: {
      ...(spec.query ? { query: paramsSchema(spec.query) } : {}),
      ...(spec.params ? { params: paramsSchema(spec.params) } : {}),
      // An arrow function with a destructured context: Elysia's static analysis (Sucrose) reads
      // hooks' source to decide what to parse, and chokes on minified method shorthand.
      transform: ({ request, query, params }: { request: Request; query: Record<string, unknown>; params: Record<string, unknown> }) => {
        if (pathEntries) {
          // Every value is read before any is replaced. Elysia gives null for a segment it cannot
          // decode: a 400 with the parameter's rule, saying so.
          const raw = params as Record<string, string | null | undefined>
          const valuesOf = (name: string) => {
            const value = raw[name]
            if (value === undefined) return NONE
            const segment = readableSegment(value, request.url)
            if (segment === null) throw new ApiError(400, `${describe(name, spec.params![name]!)} (${undecodableSegmentNote(request.url)})`)
            return [decodePathSegment(segment)]
          }
          Object.assign(params, parseEntries(pathEntries, valuesOf))
        }
        if (queryEntries) {
          const raw = rawQueryOf(request.url)
          if (raw?.includes('%')) refuseBadEncoding(raw, spec.query!)
          const search = raw === null ? null : new URLSearchParams(raw)
          Object.assign(query, parseEntries(queryEntries, search ? (name) => search.getAll(name) : () => NONE))
        }
      },
    },
  }
}

const NONE: readonly string[] = []

/** The query of a URL as sent, without parsing the rest of it (cheaper than `new URL`); null when there is none. */
export function rawQueryOf(url: string): string | null {
  const start = url.indexOf('?')
  if (start < 0) return null
  const end = url.indexOf('#', start)
  return end < 0 ? url.slice(start + 1) : url.slice(start + 1, end)
}

/** A query name or value decoded as a form does (`+` a space), or null when it is not valid percent-encoding (of UTF-8). */
export function formDecoded(text: string): string | null {
  return percentDecoded(text.replace(/\+/g, ' '))
}

/**
 * URLSearchParams keeps a malformed escape (`%ZZ`, `%FF`) as it is, so a value of
 * free text would be taken literally: a name, or the value of a declared parameter,
 * that is not valid percent-encoding is a 400 that names it and says so.
 * (The value of a parameter the route does not declare is ignored, as that parameter is.)
 */
function refuseBadEncoding(query: string, specs: Record<string, ParamSpec>): void {
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=')
    const rawName = eq < 0 ? pair : pair.slice(0, eq)
    const name = formDecoded(rawName)
    if (name === null) throw new ApiError(400, `a query parameter name must be valid percent-encoding (got "${shown(rawName)}")`)
    if (eq < 0 || !Object.hasOwn(specs, name)) continue
    const rawValue = pair.slice(eq + 1)
    if (formDecoded(rawValue) === null) throw new ApiError(400, `${describe(name, specs[name]!)} (got "${shown(rawValue)}", which is not valid percent-encoding)`)
  }
}

function decodePathSegment(segment: string): string {
  return segment.includes('%') ? (percentDecoded(segment) ?? segment) : segment
}
