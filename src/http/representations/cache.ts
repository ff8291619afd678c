/**
 * A cache of representations per owner (a catalogue) and key, bounded in
 * entries and bytes, whose answers are 304s or the body in the best accepted
 * encoding (each compressed once, then kept), with ETag and Cache-Control.
 */
import { collectGarbage } from '../../io/memory.ts'
import type { CompressionQueue } from './compression.ts'
import { encodedEtag, notModified } from './etag.ts'
import { chooseEncoding, type Encoding } from './negotiation.ts'
import { LARGE_BODY_BYTES, type Representation, type StreamedBody } from './representation.ts'

/** What a cache of answers to queries (searches, feeds) may hold per catalogue, all encodings counted. */
export const MAX_CACHED_BYTES = 16 * 2 ** 20

/** Where a route handler puts its status and headers (Elysia's `set`). */
export interface AnswerSet {
  status?: number | string
  headers: Record<string, string | number>
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
  /** Asked for since the cache's last sweep. */
  used = true

  constructor(
    readonly representation: Representation,
    private readonly compression: CompressionQueue,
  ) {
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
    const identity = this.encoded.get('identity') as Encoded
    const compressing = this.compression.compress(identity.body, encoding, () => !this.dropped)
    return compressing?.then((body) => {
      if (body === null) {
        this.encoded.delete(encoding)
        return identity
      }
      const made = { encoding, body }
      this.encoded.set(encoding, made)
      return made
    })
  }
}

export type { Variants }

export interface RepresentationCacheOptions {
  /** The Cache-Control of every answer; default `public, max-age=60`. */
  cacheControl?: string
  /** The most entries an owner keeps. */
  maxEntries?: number
  /** The most bytes an owner's bodies may take, all encodings counted. */
  maxBytes?: number
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
  private readonly cacheControl: string
  private readonly maxEntries: number
  private readonly maxBytes: number

  constructor(
    private readonly compression: CompressionQueue,
    { cacheControl = 'public, max-age=60', maxEntries = Number.POSITIVE_INFINITY, maxBytes = Number.POSITIVE_INFINITY }: RepresentationCacheOptions = {},
  ) {
    this.cacheControl = cacheControl
    this.maxEntries = maxEntries
    this.maxBytes = maxBytes
  }

  get(owner: Owner, key: string, build: () => Representation): Variants {
    let byKey = this.byOwner.get(owner)
    if (!byKey) {
      byKey = new Map()
      this.byOwner.set(owner, byKey)
    }
    let variants = byKey.get(key)
    if (variants) variants.used = true
    if (!variants) {
      variants = new Variants(build(), this.compression)
      // Serialising a large answer (the whole list: megabytes of intermediate strings) leaves
      // garbage the size of the catalogue: collect it at once (rare: once per catalogue and key),
      // before the next request, which may be another such build, adds its own.
      // A pieced body was cut from bytes already made: it left next to nothing.
      const { body } = variants.representation
      if (body instanceof Blob && body.size > LARGE_BODY_BYTES) collectGarbage()
      byKey.set(key, variants)
    } else if (Number.isFinite(this.maxEntries) || Number.isFinite(this.maxBytes)) {
      // Map order is insertion order: moving a hit to the end makes the first key the least recently used.
      byKey.delete(key)
      byKey.set(key, variants)
    }
    this.evict(byKey)
    return variants
  }

  /** Drops `owner`'s entries that no one asked for since the last sweep (whoever owns the cache says how often: src/io/idle-sweep.ts). */
  sweep(owner: Owner): void {
    const byKey = this.byOwner.get(owner)
    if (!byKey) return
    for (const [key, variants] of byKey) {
      if (variants.used) variants.used = false
      else {
        variants.dropped = true
        byKey.delete(key)
      }
    }
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
    const headers: Record<string, string | number> = {
      ...set.headers,
      etag: encodedEtag(etag, wanted),
      'cache-control': this.cacheControl,
      vary: set.headers.vary ? `${set.headers.vary}, Accept-Encoding` : 'Accept-Encoding',
      'content-type': contentType,
    }
    set.headers = {}
    if (status === 200 && notModified(request.headers.get('if-none-match'), encodedEtag(etag, wanted))) return new Response(null, { status: 304, headers: headers as HeadersInit })
    const answer = ({ encoding, body }: Encoded) => {
      // The encoding wanted, or identity while the compression queue is full.
      headers.etag = encodedEtag(etag, encoding)
      if (encoding !== 'identity') headers['content-encoding'] = encoding
      return new Response(body instanceof Blob ? body : body.stream(), { status, headers: headers as HeadersInit })
    }
    const encoded = variants.body(wanted)
    return encoded instanceof Promise ? encoded.then(answer) : answer(encoded)
  }
}
