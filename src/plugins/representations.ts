/**
 * Answers that depend only on the catalogue version (the list, one satellite,
 * the element-set export): serialised once per version, compressed once per
 * encoding, sent with a strong ETag and Cache-Control, and answered with 304
 * when the client already has them.
 */
import { promisify } from 'node:util'
import { brotliCompress, constants as zlib, gzip } from 'node:zlib'

// Off the event loop (zlib's thread pool): compressing the list takes ~0.2 s that no other request should wait for.
const brotliAsync = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

/**
 * One compression at a time: each holds a copy of its body and the
 * compressor's working memory (megabytes for the list), and several cold
 * answers asked for at once would otherwise hold all of theirs together.
 */
let lastCompression: Promise<unknown> = Promise.resolve()
function oneAtATime<T>(job: () => Promise<T>): Promise<T> {
  const result = lastCompression.then(job)
  lastCompression = result.catch(() => {})
  return result
}

export type Encoding = 'br' | 'gzip' | 'identity'

/** Above this size, building an answer is followed by a garbage collection. */
const LARGE_BODY_BYTES = 1 << 20

/** What a cache of answers to queries (searches, feeds) may hold per catalogue, all encodings counted. */
export const MAX_CACHED_BYTES = 16 * 2 ** 20

/** Bodies below this size are not worth compressing. */
const MIN_COMPRESS_BYTES = 1024

/** Where a route handler puts its status and headers (Elysia's `set`). */
export interface AnswerSet {
  status?: number | string
  headers: Record<string, string | number>
}

export interface Representation {
  /** Strong validator of the identity body; encoded variants append the encoding. */
  etag: string
  contentType: string
  /**
   * The identity body. A Blob, not a typed array: a Response made from a Blob
   * sends the Blob's bytes, where one made from a typed array copies them into
   * every answer (megabytes per answer for the list, kept until a collection).
   */
  body: Blob
  /** The HTTP status of the answer; 200 unless said (the feed's "No GP data found" is a 404). */
  status?: number
}

/** The body in each encoding: compressed variants are made on first use (once, however many ask at the same time) and then kept. */
class Variants {
  private readonly encoded = new Map<Encoding, Blob | Promise<Blob>>()

  constructor(readonly representation: Representation) {
    this.encoded.set('identity', representation.body)
  }

  body(encoding: Encoding): Blob | Promise<Blob> {
    let body = this.encoded.get(encoding)
    if (!body) {
      body = this.compress(encoding)
      this.encoded.set(encoding, body)
    }
    return body
  }

  /** Bytes held: the identity body and the variants made so far. */
  get size(): number {
    let size = 0
    for (const body of this.encoded.values()) if (body instanceof Blob) size += body.size
    return size
  }

  private compress(encoding: Encoding): Promise<Blob> {
    return oneAtATime(async () => {
      const bytes = await this.representation.body.bytes()
      const compressed = encoding === 'br'
        ? // A 1 MB window instead of 4: a quarter of the compressor's memory, and no larger bodies (the list: 1.31 MB either way).
          await brotliAsync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length, [zlib.BROTLI_PARAM_LGWIN]: 20 } })
        : await gzipAsync(bytes, { level: 6 })
      const blob = new Blob([compressed])
      this.encoded.set(encoding, blob)
      // The compressor's native state goes with its handle, at a collection: collect now, before the next job adds its own.
      if (bytes.length > LARGE_BODY_BYTES) Bun.gc(true)
      return blob
    })
  }
}

/** The best encoding the client accepts (brotli, then gzip), honouring `q=0`. */
export function chooseEncoding(acceptEncoding: string | null, size: number): Encoding {
  if (!acceptEncoding || size < MIN_COMPRESS_BYTES) return 'identity'
  const accepted = new Map<string, number>()
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.toLowerCase().split(';')
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean)
    accepted.set(name!.trim(), q ? Number(q[1]) : 1)
  }
  const weight = (name: string) => accepted.get(name) ?? (accepted.has('*') ? accepted.get('*')! : 0)
  // The higher weight wins; brotli on a tie (smaller bodies).
  const br = weight('br')
  const gz = weight('gzip')
  if (br > 0 && br >= gz) return 'br'
  if (gz > 0) return 'gzip'
  return 'identity'
}

/** Whether If-None-Match names this representation (any of its encodings, or `*`). */
function notModified(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false
  const bare = etag.slice(1, -1)
  const tags = new Set(['*', etag, `"${bare}-gzip"`, `"${bare}-br"`])
  return ifNoneMatch.split(',').some((tag) => tags.has(tag.trim().replace(/^W\//, '')))
}

/**
 * A cache of representations keyed by an owner object (a catalogue) and a
 * name; entries go away with their owner. With `maxEntries` and `maxBytes`, an
 * owner keeps at most that many entries and bodies of at most that many bytes
 * (all encodings counted), dropping the least recently used (for keys made from
 * queries, which clients can vary without end: a search can be megabytes).
 */
export class RepresentationCache<Owner extends object> {
  private readonly byOwner = new WeakMap<Owner, Map<string, Variants>>()

  constructor(
    private readonly cacheControl = 'public, max-age=60',
    private readonly maxEntries = Number.POSITIVE_INFINITY,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  get(owner: Owner, key: string, build: () => Representation): Variants {
    let byKey = this.byOwner.get(owner)
    if (!byKey) {
      byKey = new Map()
      this.byOwner.set(owner, byKey)
    }
    let variants = byKey.get(key)
    if (!variants) {
      variants = new Variants(build())
      // Serialising a large answer (the whole list: megabytes of intermediate strings) leaves
      // garbage the size of the catalogue: collect it at once (rare: once per catalogue and key),
      // before the next request, which may be another such build, adds its own.
      if (variants.representation.body.size > LARGE_BODY_BYTES) Bun.gc(true)
      byKey.set(key, variants)
    } else if (Number.isFinite(this.maxEntries) || Number.isFinite(this.maxBytes)) {
      // Map order is insertion order: moving a hit to the end makes the first key the least recently used.
      byKey.delete(key)
      byKey.set(key, variants)
    }
    this.evict(byKey)
    return variants
  }

  /** Drops the least recently used entries past the bounds; the one just asked for (the last) stays. */
  private evict(byKey: Map<string, Variants>): void {
    while (byKey.size > this.maxEntries) byKey.delete(byKey.keys().next().value!)
    if (!Number.isFinite(this.maxBytes)) return
    let bytes = 0
    for (const variants of byKey.values()) bytes += variants.size
    for (const [key, variants] of byKey) {
      if (bytes <= this.maxBytes || byKey.size === 1) break
      bytes -= variants.size
      byKey.delete(key)
    }
  }

  /**
   * The HTTP answer for `request`: 304, or the body in the best accepted encoding.
   * The headers already in `set` (those every answer carries) move into the Response:
   * Elysia then sends it as it is instead of copying it to merge them in.
   */
  respond(request: Request, set: AnswerSet, variants: Variants): Response | Promise<Response> {
    const { etag, contentType, body, status = 200 } = variants.representation
    const encoding = chooseEncoding(request.headers.get('accept-encoding'), body.size)
    const headers: Record<string, string | number> = {
      ...set.headers,
      etag: encoding === 'identity' ? etag : `${etag.slice(0, -1)}-${encoding}"`,
      'cache-control': this.cacheControl,
      vary: set.headers.vary ? `${set.headers.vary}, Accept-Encoding` : 'Accept-Encoding',
      'content-type': contentType,
    }
    set.headers = {}
    if (status === 200 && notModified(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers: headers as HeadersInit })
    if (encoding !== 'identity') headers['content-encoding'] = encoding
    const encoded = variants.body(encoding)
    const answer = (blob: Blob) => new Response(blob, { status, headers: headers as HeadersInit })
    return encoded instanceof Promise ? encoded.then(answer) : answer(encoded)
  }
}

/** A JSON representation with a strong ETag derived from `version` and `key`. */
export function jsonRepresentation(version: string, key: string, value: unknown): Representation {
  return textRepresentation(version, key, 'application/json; charset=utf-8', JSON.stringify(value))
}

/** A representation of any text (TLE, CSV, JSON already serialised) with a strong ETag from `version` and `key`. */
export function textRepresentation(version: string, key: string, contentType: string, text: string): Representation {
  return blobRepresentation(version, key, contentType, new Blob([text]))
}

/** A representation of bytes (a file embedded in the executable, say) with a strong ETag from `version` and `key`. */
export function blobRepresentation(version: string, key: string, contentType: string, body: Blob): Representation {
  const tag = Bun.hash(`${version}:${key}`).toString(36)
  return { etag: `"${tag}"`, contentType, body }
}
