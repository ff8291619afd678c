/**
 * Answers that depend only on the catalogue version (the list, one satellite,
 * the element-set export): serialised once per version, compressed once per
 * encoding, sent with a strong ETag and Cache-Control, and answered with 304
 * when the client already has them.
 */
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream as NodeReadableStream } from 'node:stream/web'
import { constants as zlib, createBrotliCompress, createGzip } from 'node:zlib'

/**
 * One compression at a time, and at most MAX_PENDING_COMPRESSIONS queued or
 * running: a waiting job holds its body, a running one the compressor's
 * working memory too (megabytes for a broad answer). Many distinct large
 * answers asked for at once (broad searches from many clients) would otherwise
 * queue all their bodies together; past the bound an answer goes out unencoded.
 */
const MAX_PENDING_COMPRESSIONS = 2
let pendingCompressions = 0
let lastCompression: Promise<unknown> = Promise.resolve()
function oneAtATime<T>(job: () => Promise<T>): Promise<T> | undefined {
  if (pendingCompressions >= MAX_PENDING_COMPRESSIONS) return undefined
  pendingCompressions++
  const result = lastCompression.then(job).finally(() => pendingCompressions--)
  lastCompression = result.catch(() => {})
  return result
}

/**
 * `body` compressed, read as a stream (no copy of the whole) and compressed
 * off the event loop (zlib's thread pool): compressing the list takes ~0.2 s
 * that no other request should wait for.
 */
async function compressBody(body: StreamedBody, encoding: 'br' | 'gzip'): Promise<Blob> {
  const compressor =
    encoding === 'br'
      ? // Quality 4 and a 256 KB window (not 11 and 4 MB): the list in 1.315 MB, where quality 5 with a 1 MB window
        // gave 1.310 MB in twice the time (77 vs 142 ms), with a sixteenth of the default window's memory.
        createBrotliCompress({ params: { [zlib.BROTLI_PARAM_QUALITY]: 4, [zlib.BROTLI_PARAM_SIZE_HINT]: body.size, [zlib.BROTLI_PARAM_LGWIN]: 18 } })
      : createGzip({ level: 6 })
  const chunks: Uint8Array<ArrayBuffer>[] = []
  // The same stream: the DOM's and Node's typings of it differ.
  await pipeline(Readable.fromWeb(body.stream() as unknown as NodeReadableStream), compressor, async (compressed: AsyncIterable<Uint8Array<ArrayBuffer>>) => {
    for await (const chunk of compressed) chunks.push(chunk)
  })
  return new Blob(chunks)
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

/**
 * A body read as a stream, never whole: a Blob, or pieces of other bodies
 * (`piecedBody`) that are joined only chunk by chunk as they are sent.
 */
export interface StreamedBody {
  readonly size: number
  stream(): ReadableStream<Uint8Array>
}

export interface Representation {
  /** Strong validator of the identity body; encoded variants append the encoding. */
  etag: string
  contentType: string
  /**
   * The identity body. A Blob, not a typed array: a Response made from a Blob
   * sends the Blob's bytes, where one made from a typed array copies them into
   * every answer (megabytes per answer for the list, kept until a collection).
   * Or pieces of another body (a search cut from the list), sent as a stream.
   */
  body: Blob | StreamedBody
  /** The HTTP status of the answer; 200 unless said (the feed's "No GP data found" is a 404). */
  status?: number
}

/** A body and the encoding it is in. */
interface Encoded {
  encoding: Encoding
  body: Blob | StreamedBody
}

/**
 * The body in each encoding: compressed variants are made on first use (once,
 * however many ask at the same time) and then kept. While the compression
 * queue is full, or once the entry has left its cache, an answer gets the
 * identity body instead.
 */
class Variants {
  private readonly encoded = new Map<Encoding, Encoded | Promise<Encoded>>()
  /** Set when the cache drops the entry: a compression not yet started is then skipped. */
  dropped = false

  constructor(readonly representation: Representation) {
    this.encoded.set('identity', { encoding: 'identity', body: representation.body })
  }

  body(encoding: Encoding): Encoded | Promise<Encoded> {
    const made = this.encoded.get(encoding)
    if (made) return made
    const compressing = encoding === 'identity' ? undefined : this.compress(encoding)
    if (!compressing) return this.encoded.get('identity')!
    this.encoded.set(encoding, compressing)
    return compressing
  }

  /** Bytes held: the bodies made so far that are Blobs (a pieced body holds only references to another's bytes). */
  get size(): number {
    let size = 0
    for (const made of this.encoded.values()) if (!(made instanceof Promise) && made.body instanceof Blob) size += made.body.size
    return size
  }

  private compress(encoding: 'br' | 'gzip'): Promise<Encoded> | undefined {
    return oneAtATime(async () => {
      const identity = this.encoded.get('identity') as Encoded
      if (this.dropped) {
        this.encoded.delete(encoding)
        return identity
      }
      const made = { encoding, body: await compressBody(identity.body, encoding) }
      this.encoded.set(encoding, made)
      // The compressor's native state goes with its handle, at a collection: collect now, before the next job adds its own.
      if (identity.body.size > LARGE_BODY_BYTES) Bun.gc(true)
      return made
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

/**
 * Whether If-None-Match names `etag` (or is `*`): the ETag of the encoding
 * about to be sent. Each encoding is its own representation with its own ETag,
 * so a client (or a cache) holding the gzip body that now asks for identity
 * gets the identity body, not a 304 for bytes it does not have.
 */
function notModified(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false
  return ifNoneMatch.split(',').some((tag) => {
    const bare = tag.trim().replace(/^W\//, '')
    return bare === '*' || bare === etag
  })
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
      // A pieced body was cut from bytes already made: it left next to nothing.
      const { body } = variants.representation
      if (body instanceof Blob && body.size > LARGE_BODY_BYTES) Bun.gc(true)
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
    const drop = (key: string, variants: Variants) => {
      variants.dropped = true
      byKey.delete(key)
    }
    for (const [key, variants] of byKey) {
      if (byKey.size <= this.maxEntries) break
      drop(key, variants)
    }
    if (!Number.isFinite(this.maxBytes)) return
    let bytes = 0
    for (const variants of byKey.values()) bytes += variants.size
    for (const [key, variants] of byKey) {
      if (bytes <= this.maxBytes || byKey.size === 1) break
      bytes -= variants.size
      drop(key, variants)
    }
  }

  /**
   * The HTTP answer for `request`: 304, or the body in the best accepted encoding.
   * The headers already in `set` (those every answer carries) move into the Response:
   * Elysia then sends it as it is instead of copying it to merge them in.
   */
  respond(request: Request, set: AnswerSet, variants: Variants): Response | Promise<Response> {
    const { etag, contentType, body, status = 200 } = variants.representation
    const wanted = chooseEncoding(request.headers.get('accept-encoding'), body.size)
    const etagOf = (encoding: Encoding) => (encoding === 'identity' ? etag : `${etag.slice(0, -1)}-${encoding}"`)
    const headers: Record<string, string | number> = {
      ...set.headers,
      etag: etagOf(wanted),
      'cache-control': this.cacheControl,
      vary: set.headers.vary ? `${set.headers.vary}, Accept-Encoding` : 'Accept-Encoding',
      'content-type': contentType,
    }
    set.headers = {}
    if (status === 200 && notModified(request.headers.get('if-none-match'), etagOf(wanted))) return new Response(null, { status: 304, headers: headers as HeadersInit })
    const answer = ({ encoding, body }: Encoded) => {
      // The encoding wanted, or identity while the compression queue is full.
      headers.etag = etagOf(encoding)
      if (encoding !== 'identity') headers['content-encoding'] = encoding
      return new Response(body instanceof Blob ? body : body.stream(), { status, headers: headers as HeadersInit })
    }
    const encoded = variants.body(wanted)
    return encoded instanceof Promise ? encoded.then(answer) : answer(encoded)
  }
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/** A JSON representation with a strong ETag derived from `version` and `key`. */
export function jsonRepresentation(version: string, key: string, value: unknown): Representation {
  return textRepresentation(version, key, JSON_CONTENT_TYPE, JSON.stringify(value))
}

/** A representation of any text (TLE, CSV, JSON already serialised) with a strong ETag from `version` and `key`. */
export function textRepresentation(version: string, key: string, contentType: string, text: string): Representation {
  return blobRepresentation(version, key, contentType, new Blob([text]))
}

/** A representation of bytes (a file embedded in the executable, a pieced body) with a strong ETag from `version` and `key`. */
export function blobRepresentation(version: string, key: string, contentType: string, body: Blob | StreamedBody): Representation {
  const tag = Bun.hash(`${version}:${key}`).toString(36)
  return { etag: `"${tag}"`, contentType, body }
}

/**
 * The largest chunk a pieced body's stream sends. A server sending a chunk
 * keeps what the socket did not take: under 32 connections of broad searches,
 * 16 KB chunks peaked ~10 MB lower than 64 KB ones and ~50 MB lower than 1 MB
 * ones, at the same throughput.
 */
const PIECE_CHUNK_BYTES = 16 * 1024

/** A pieced body up to this size is joined into a Blob instead. */
const JOIN_BELOW_BYTES = 64 * 1024

/**
 * A body made of `pieces` (views of larger byte arrays, say) that is never
 * joined whole. Its stream sends a large piece as views of it, no copy, and
 * joins runs of small ones into chunks of up to 16 KB, as the reader asks for
 * them. An answer cut from a larger one (a broad search from the list) then
 * costs no copy of its megabytes, in the cache or per answer in flight.
 * Up to JOIN_BELOW_BYTES the pieces are joined into a Blob at once: a small
 * answer goes out whole, with a Content-Length.
 */
export function piecedBody(pieces: readonly Uint8Array<ArrayBuffer>[]): Blob | StreamedBody {
  const size = pieces.reduce((sum, piece) => sum + piece.byteLength, 0)
  if (size <= JOIN_BELOW_BYTES) return new Blob([...pieces])
  return {
    size,
    stream() {
      let next = 0 // the piece the next chunk starts in
      let offset = 0 // and where in it
      const take = (length: number) => {
        const view = pieces[next]!.subarray(offset, offset + length)
        offset += length
        if (offset === pieces[next]!.byteLength) {
          next++
          offset = 0
        }
        return view
      }
      return new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            while (next < pieces.length && pieces[next]!.byteLength === offset) take(0) // empty pieces
            if (next === pieces.length) return controller.close()
            const rest = pieces[next]!.byteLength - offset
            if (rest >= PIECE_CHUNK_BYTES) return controller.enqueue(take(PIECE_CHUNK_BYTES))
            // Small pieces, joined while they fit (the first always does).
            let length = 0
            let fit = next
            for (let from = offset; fit < pieces.length && length + pieces[fit]!.byteLength - from <= PIECE_CHUNK_BYTES; from = 0) {
              length += pieces[fit]!.byteLength - from
              fit++
            }
            const chunk = new Uint8Array(length)
            for (let at = 0; at < length; ) {
              const view = take(pieces[next]!.byteLength - offset)
              chunk.set(view, at)
              at += view.byteLength
            }
            controller.enqueue(chunk)
          },
        },
        // Pull only when the reader wants more: one chunk at a time per answer in flight.
        { highWaterMark: 0 },
      )
    },
  }
}
