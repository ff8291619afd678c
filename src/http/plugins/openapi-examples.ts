/**
 * Real examples for the OpenAPI document: answers of the app itself, over the
 * embedded snapshot at a fixed instant, recorded by scripts/openapi-examples.ts
 * into openapi-examples.json and put into the served document by the docs
 * plugin (test/http/plugins/openapi-examples.test.ts asks them again and
 * requires the same answers).
 */

/** One recorded answer: the request that gave it and what came back. */
export interface RecordedExample {
  /** The operation's path as the OpenAPI document writes it (`/api/v1/satellites/{noradId}`). */
  operation: string
  /** A short key, unique within the operation's status. */
  name: string
  summary: string
  /** Path and query asked (`/api/v1/satellites/25544?…`). */
  request: string
  status: number
  contentType: string
  /** The parsed JSON body, or the text (a stream's first event for text/event-stream). */
  value: unknown
}

export interface ExamplesFile {
  /** The instant the app's clock read when the examples were recorded. */
  instant: string
  examples: RecordedExample[]
}

/** What `handle` answers to `request`, as an example (for a stream: up to the end of its first event). */
export async function recordExample(
  handle: (request: Request) => Promise<Response>,
  { operation, name, summary, request }: Pick<RecordedExample, 'operation' | 'name' | 'summary' | 'request'>,
): Promise<RecordedExample> {
  const response = await handle(new Request(`http://localhost${request}`))
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim()
  let text: string
  if (contentType === 'text/event-stream') {
    text = await firstEvent(response)
  } else {
    text = await response.text()
  }
  const value = contentType.includes('json') ? JSON.parse(text) : text
  return { operation, name, summary, request, status: response.status, contentType, value }
}

/** The stream's text up to the end of its first event (a `data:` line and the blank line after it); then the stream is cancelled. */
async function firstEvent(response: Response): Promise<string> {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  try {
    while (!/^data: .*\n\n/m.test(text)) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
  } finally {
    await reader.cancel()
  }
  const end = text.search(/^data: .*\n\n/m)
  return end < 0 ? text : text.slice(0, text.indexOf('\n\n', end) + 2)
}

interface Parameter {
  name: string
  in: string
  schema?: { type?: string; items?: { type?: string }; example?: unknown; examples?: unknown }
  example?: unknown
}

/**
 * `spec` with the examples in it: each response gets the examples recorded for
 * its operation and status (under its content type), and each parameter of an
 * operation the value its first example of status 200 gave it (a parameter
 * that example does without, no example), so that the docs page's "try it"
 * and code snippets start from a request that works; and
 * a `servers` entry relative to where the document is served, so those
 * snippets name this service. `spec` itself is left as it is.
 */
export function withExamples<T extends { paths?: Record<string, Record<string, any>> }>(spec: T, file: ExamplesFile): T & { servers: { url: string; description: string }[] } {
  const paths: Record<string, Record<string, any>> = {}
  for (const [path, operations] of Object.entries(spec.paths ?? {})) {
    const get = operations.get
    const recorded = file.examples.filter((e) => e.operation === path)
    if (!get || recorded.length === 0) {
      paths[path] = operations
      continue
    }
    const responses: Record<string, any> = { ...get.responses }
    for (const [status, response] of Object.entries(get.responses ?? {})) {
      const mine = recorded.filter((e) => String(e.status) === status)
      if (mine.length === 0) continue
      const content: Record<string, any> = { ...(response as any).content }
      for (const type of new Set(mine.map((e) => e.contentType))) {
        const examples = Object.fromEntries(
          mine.filter((e) => e.contentType === type).map((e) => [e.name, { summary: `${e.summary}: GET ${e.request}`, value: e.value }]),
        )
        // `example` and `examples` exclude each other (OpenAPI 3.1 §4.8.14): the recorded ones replace a written one.
        const { example: _written, ...media } = content[type] ?? {}
        content[type] = { ...media, examples }
      }
      responses[status] = { ...(response as any), content }
    }
    const first = recorded.find((e) => e.status === 200)
    const parameters = (get.parameters as Parameter[] | undefined)?.map((p) => {
      if (!first) return p
      const value = parameterValue(path, first.request, p)
      if (value !== undefined) return { ...p, example: value }
      // A parameter the example does without loses any written example, so that a snippet
      // filled from the examples asks what the example asked (the feed takes one selector only).
      const { example: _parameterExample, ...rest } = p
      const { example: _schemaExample, examples: _schemaExamples, ...schema } = (p.schema ?? {}) as Record<string, unknown>
      return p.schema ? { ...rest, schema } : rest
    })
    paths[path] = { ...operations, get: { ...get, responses, ...(parameters ? { parameters } : {}) } }
  }
  return { ...spec, servers: [{ url: '/', description: `this service (examples recorded at ${file.instant})` }], paths }
}

/** The value `request` gives parameter `p` of the operation at `path` (a path template such as `/x/{id}`), as its schema types it; or undefined. */
function parameterValue(path: string, request: string, p: Parameter): unknown {
  const url = new URL(request, 'http://localhost')
  let text: string | undefined
  if (p.in === 'query') text = url.searchParams.get(p.name) ?? undefined
  else if (p.in === 'path') {
    const template = path.split('/')
    const actual = url.pathname.split('/')
    const at = template.indexOf(`{${p.name}}`)
    if (at >= 0 && template.length === actual.length) text = decodeURIComponent(actual[at]!)
  }
  if (text === undefined) return undefined
  return p.schema?.type === 'array' ? text.split(',').map((item) => typed(item, p.schema?.items?.type)) : typed(text, p.schema?.type)
}

function typed(text: string, type: string | undefined): unknown {
  if (type === 'integer' || type === 'number') return Number(text)
  if (type === 'boolean') return text === 'true'
  return text
}
