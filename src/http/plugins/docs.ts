/** The OpenAPI document and an interactive docs page that work with no internet (Scalar embedded). */
import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import { requestPath } from './edge.ts'
import { scalarBundle } from '../../io/scalar.ts'
import { RepresentationCache } from '../representations/cache.ts'
import type { CompressionQueue } from '../representations/compression.ts'
import { blobRepresentation } from '../representations/representation.ts'
import { type ExamplesFile, withExamples } from './openapi-examples.ts'
import recordedExamples from './openapi-examples.json'

export const DOCS_PATHS = ['/docs', '/openapi', '/swagger'] as const
export const SPEC_PATH = '/openapi/json'
const SCALAR_PATH = '/openapi/scalar.js'

/**
 * Scalar with nothing that reaches outside this service: no web fonts, no
 * telemetry, no hosted AI agent or MCP generator, no developer toolbar (it
 * offers Scalar's hosted share/deploy), no proxy (requests go to this origin).
 */
const scalarConfiguration = {
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  // Every tag's operations listed, not folded away.
  defaultOpenAllTags: true,
}

/**
 * Relative URLs, so the page also works behind a reverse proxy that adds a prefix.
 * The empty icon stops browsers asking for /favicon.ico (a 404).
 */
const docsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>sattrack API</title>
<link rel="icon" href="data:,">
</head>
<body>
<script id="api-reference" data-url="openapi/json" data-configuration='${JSON.stringify(scalarConfiguration)}'></script>
<script src="openapi/scalar.js"></script>
</body>
</html>`

/**
 * `dataNote`: the data's date and age now (the status's words, decays counted), for the end of
 * the description: made each time the document is served, so it is never made at start-up;
 * `extraTags`: sections of the document beyond sattrack's own (the compatible APIs).
 */
export function docs(version: string, dataNote: () => string, compression: CompressionQueue, extraTags: readonly { name: string; description: string }[] = []) {
  /** The docs page's 4 MB script: compressed once (about 1 MB in brotli), with an ETag of this build. */
  const scalarAnswers = new RepresentationCache<object>(compression, { cacheControl: 'public, max-age=86400' })
  const scalarAnswer = () => blobRepresentation(version, SCALAR_PATH, 'text/javascript; charset=utf-8', scalarBundle())
  /** The document the plugin builds (once, then the same object), with the recorded examples and a `servers` entry. */
  const decorated = new WeakMap<object, object>()
  const withRecordedExamples = (spec: object) => {
    let shown = decorated.get(spec)
    if (!shown) decorated.set(spec, (shown = withExamples(withoutNullable(withRouteDeclarations(spec)), recordedExamples as ExamplesFile)))
    return shown
  }
  // The page's URLs are relative: from `/swagger/` they would miss, so a trailing slash is redirected away.
  const page = ({ request }: { request: Request }) => {
    const path = requestPath(request.url)
    if (path.endsWith('/')) return new Response(null, { status: 308, headers: { location: `../${path.split('/').at(-2)}` } })
    return new Response(docsPage, { headers: { 'content-type': 'text/html; charset=utf-8' } })
  }
  // Relative too, up as many folders as the path has (`/docs/json/` is two deep).
  const toSpec = ({ request }: { request: Request }) =>
    new Response(null, { status: 308, headers: { location: `${'../'.repeat(requestPath(request.url).split('/').length - 2)}${SPEC_PATH.slice(1)}` } })
  return new Elysia({ name: 'docs' })
    // Registered before the plugin, so it runs for the plugin's own route: the document gains the examples.
    .onAfterHandle(({ request, response }) => {
      const path = requestPath(request.url)
      // With a trailing slash the plugin's route answers too: the same document.
      if ((path === SPEC_PATH || path === `${SPEC_PATH}/`) && response !== null && typeof response === 'object' && !(response instanceof Response)) {
        const shown = withRecordedExamples(response) as { info: { description: string } }
        return { ...shown, info: { ...shown.info, description: `${shown.info.description}\n\nNow: ${dataNote()}` } }
      }
    })
    .use(
      openapi({
        path: '/openapi',
        specPath: SPEC_PATH,
        provider: null,
        // staticFile: false keeps paths with a dot (the CelesTrak-compatible /NORAD/elements/gp.php) in the document.
        exclude: { paths: [...DOCS_PATHS, SPEC_PATH, SCALAR_PATH], staticFile: false },
        documentation: {
          info: {
            title: 'sattrack',
            version,
            description:
              'Read-only satellite tracking from an embedded CelesTrak snapshot. Units: degrees, km (satellite heights, ranges), metres (observer altitude), km/h (velocityKmHs), minutes (orbitalPeriod), revolutions per day (meanMotion). Every error of the service\'s own routes is `{message, statusCode}`, the message naming the parameter, the rule and the value received (the CelesTrak feed and the compatible APIs answer errors in their originals\' shapes). Brightness: `magnitude` is an estimated apparent visual magnitude (a standard magnitude per satellite, published or by family, class and orbit, at the range and phase angle of a Lambertian sphere; good to about ±1), and `visible` means visible to the naked eye: sunlit, the Sun at or below -6° at the observer, and `magnitude` at or below `magnitude-limit` (default 4.5).\n\n' +
              '**Positions only where the data supports them.** A satellite has a position at an instant within the age limit of its element set ' +
              "(`--max-element-age`, 30 days by default), before its decay (the first instant its orbit's lowest point is below 80 km, said only within " +
              'that age limit, where the elements can support it), at a plausible height (80 km up to its apogee height + 10 % + 200 km). Otherwise ' +
              '`geoposition` is a 422 saying why, `nearby` leaves it out (counting in `metadata.leftOut` those the age and decay rules leave out), ' +
              'batches and streams list it in `noPosition` with `noPositionReasons`, passes list the stretch in `metadata.noPosition`. ' +
              "Every position carries `elementAgeDays`. The data's age now: `GET /api/v1/service/status` (`catalog.freshness`), and below.",
          },
          tags: [{ name: 'satellites' }, { name: 'service' }, { name: 'celestrak', description: 'The element sets as CelesTrak serves them, for programs that read CelesTrak' }, ...extraTags],
        },
      }),
    )
    .get(DOCS_PATHS[0], page, { detail: { hide: true } })
    .get(DOCS_PATHS[1], page, { detail: { hide: true } })
    .get(DOCS_PATHS[2], page, { detail: { hide: true } })
    // Where other Elysia services keep the document (`/swagger/json`), and beside the page: sent on to it.
    .get(`${DOCS_PATHS[0]}/json`, toSpec, { detail: { hide: true } })
    .get(`${DOCS_PATHS[2]}/json`, toSpec, { detail: { hide: true } })
    .get(SCALAR_PATH, ({ request, set }) => scalarAnswers.respond(request, set, scalarAnswers.get(scalarAnswers, 'scalar.js', scalarAnswer)), {
      detail: { hide: true },
    })
}

/**
 * What a route declares itself in its detail. Parameters, in `x-parameters` (the
 * compatible APIs, which read their own parameters): Elysia's document lists
 * only the path parameters of a route that has any, so the declared ones
 * replace those of the same name and join the others. Likewise answers a
 * route declares in `x-responses` (a 304, which has no schema) join those of
 * its response schemas, which replace a detail's `responses`; and headers it
 * declares in `x-response-headers` (the compatible APIs' sattrack headers) are
 * its 200 answer's `headers` (and its 304's), and media types in `x-response-content` (GeoJSON
 * beside JSON) join its 200 answer's `content`.
 */
function withRouteDeclarations(spec: object): object {
  const paths = (spec as { paths?: Record<string, Record<string, Record<string, unknown>>> }).paths ?? {}
  const out: Record<string, Record<string, Record<string, unknown>>> = {}
  for (const [path, operations] of Object.entries(paths)) {
    out[path] = Object.fromEntries(
      Object.entries(operations).map(([method, operation]) => {
        const {
          'x-parameters': declared,
          'x-responses': answers,
          'x-response-headers': headers,
          'x-response-content': content,
          ...rest
        } = operation as {
          'x-parameters'?: { name: string }[]
          'x-responses'?: Record<string, object>
          'x-response-headers'?: Record<string, unknown>
          'x-response-content'?: Record<string, unknown>
        }
        if (!declared && !answers && !headers && !content) return [method, operation]
        const parameters = declared && [...((operation.parameters as { name: string }[] | undefined) ?? []).filter((p) => !declared.some((d) => d.name === p.name)), ...declared]
        let responses: Record<string, { content?: object; headers?: unknown }> = { ...(operation.responses as Record<string, object>), ...answers }
        // A 304 carries them too (the validator matched: the headers of the answer it stands for).
        if (headers) responses = { ...responses, 200: { ...responses[200], headers }, ...(responses[304] ? { 304: { ...responses[304], headers } } : {}) }
        if (content) responses = { ...responses, 200: { ...responses[200], content: { ...responses[200]?.content, ...content } } }
        return [method, { ...rest, ...(parameters ? { parameters } : {}), ...(answers || headers || content ? { responses } : {}) }]
      }),
    )
  }
  return { ...spec, paths: out }
}

/**
 * The document's schemas in OpenAPI 3.1's JSON Schema: `nullable` (OpenAPI
 * 3.0's word, which typebox's Nullable adds beside `type: [X, "null"]`) is not
 * a keyword there, and strict validators refuse it. Each is dropped, null kept
 * admitted: in `type`, or as a branch of `anyOf`.
 */
export function withoutNullable<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutNullable) as T
  if (value === null || typeof value !== 'object') return value
  const { nullable, ...rest } = value as Record<string, unknown>
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(rest).map(([key, inner]) => [key, withoutNullable(inner)]))
  if (nullable !== true) return out as T
  const admitsNull = (schema: Record<string, unknown>) => schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))
  if (admitsNull(out)) return out as T
  if (Array.isArray(out.anyOf)) {
    if (!(out.anyOf as Record<string, unknown>[]).some(admitsNull)) out.anyOf = [...out.anyOf, { type: 'null' }]
  } else if (typeof out.type === 'string') out.type = [out.type, 'null']
  return out as T
}
