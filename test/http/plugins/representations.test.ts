/** RepresentationCache: one build per owner and key, and a bound on the entries an owner keeps. */
import { describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { blobRepresentation, chooseEncoding, piecedBody, RepresentationCache, textRepresentation } from '../../../src/http/plugins/representations.ts'

/** A cache with one owner; `get(key, text)` builds a text answer (its key when no text) and records every build in `built`. */
function recordingCache(maxEntries = Number.POSITIVE_INFINITY, maxBytes = Number.POSITIVE_INFINITY) {
  const cache = new RepresentationCache<object>(undefined, maxEntries, maxBytes)
  const owner = {}
  const built: string[] = []
  const get = (key: string, text = key) =>
    cache.get(owner, key, () => {
      built.push(key)
      return textRepresentation('v1', key, 'text/plain', text)
    })
  return { cache, get, built }
}

describe('RepresentationCache', () => {
  test('builds once per owner and key', () => {
    const cache = new RepresentationCache<object>()
    const owner = {}
    let builds = 0
    const build = () => {
      builds++
      return textRepresentation('v1', 'k', 'text/plain', 'body')
    }
    const a = cache.get(owner, 'k', build)
    expect(cache.get(owner, 'k', build)).toBe(a)
    expect(builds).toBe(1)
    cache.get({}, 'k', build)
    expect(builds).toBe(2)
  })

  test('with maxEntries, the least recently used entry goes first', () => {
    const { get, built } = recordingCache(2)
    get('a')
    get('b')
    get('a') // a is now the most recently used
    get('c') // evicts b
    get('a')
    get('b') // built again; evicts c
    expect(built).toEqual(['a', 'b', 'c', 'b'])
  })

  test('a text representation: its content type, the UTF-8 body, a strong ETag from version and key', async () => {
    const r = textRepresentation('v1', 'gp?GROUP=x', 'text/csv; charset=utf-8', 'é\r\n')
    expect(r.contentType).toBe('text/csv; charset=utf-8')
    expect([...(await (r.body as Blob).bytes())]).toEqual([0xc3, 0xa9, 13, 10])
    expect(r.etag).toMatch(/^"[0-9a-z]+"$/)
    expect(textRepresentation('v2', 'gp?GROUP=x', 'text/csv', '').etag).not.toBe(r.etag)
    expect(textRepresentation('v1', 'gp?GROUP=y', 'text/csv', '').etag).not.toBe(r.etag)
  })

  test('respond: 304 for a matching If-None-Match, the body otherwise', async () => {
    const cache = new RepresentationCache<object>('public, max-age=5')
    const variants = cache.get({}, 'k', () => textRepresentation('v1', 'k', 'text/plain; charset=utf-8', 'hello'))
    const set = { headers: { 'x-common': 'yes', 'content-type': 'application/json' } as Record<string, string | number> }
    const ok = await cache.respond(new Request('http://localhost/'), set, variants)
    expect(await ok.text()).toBe('hello')
    expect(ok.headers.get('cache-control')).toBe('public, max-age=5')
    // The headers already set move into the answer; its own content type wins.
    expect(ok.headers.get('x-common')).toBe('yes')
    expect(ok.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(set.headers).toEqual({})
    const etag = ok.headers.get('etag')!
    const notModified = await cache.respond(new Request('http://localhost/', { headers: { 'if-none-match': etag } }), { headers: { 'x-common': 'yes' } }, variants)
    expect(notModified.status).toBe(304)
    expect(notModified.headers.get('x-common')).toBe('yes')
    // A Vary already set (Origin, for a configured CORS origin) is kept alongside Accept-Encoding.
    const varied = await cache.respond(new Request('http://localhost/'), { headers: { vary: 'Origin' } }, variants)
    expect(varied.headers.get('vary')).toBe('Origin, Accept-Encoding')
  })

  test('an encoding is made once, however many answers ask for it at the same time', async () => {
    const cache = new RepresentationCache<object>()
    const text = 'x'.repeat(4096)
    const variants = cache.get({}, 'k', () => textRepresentation('v1', 'k', 'text/plain', text))
    const body = variants.representation.body
    let reads = 0
    const stream = body.stream.bind(body)
    body.stream = () => (reads++, stream())
    const ask = () => cache.respond(new Request('http://localhost/', { headers: { 'accept-encoding': 'gzip' } }), { headers: {} }, variants)
    const answers = await Promise.all([ask(), ask(), ask()])
    const later = await ask()
    expect(reads).toBe(1)
    for (const answer of [...answers, later]) {
      expect(answer.headers.get('content-encoding')).toBe('gzip')
      expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await answer.arrayBuffer())))).toBe(text)
    }
    // Identity answers send the representation's own body.
    expect(await (await cache.respond(new Request('http://localhost/'), { headers: {} }, variants)).text()).toBe(text)
  })

  test('with maxBytes, the least recently used entries go until the bodies fit; the one asked for stays', async () => {
    const { get: getText, built } = recordingCache(undefined, 2500)
    const get = (key: string, size: number) => getText(key, key.repeat(size))
    get('a', 1000)
    get('b', 1000)
    get('a', 1000) // a is now the most recently used
    get('c', 1000) // 3000 bytes: b goes
    get('a', 1000)
    get('b', 1000) // built again; c goes
    get('d', 5000) // larger than the bound alone: kept, every other entry goes
    get('d', 5000)
    get('a', 1000)
    expect(built).toEqual(['a', 'b', 'c', 'b', 'd', 'a'])
  })

  test('with maxBytes, compressed variants count once they are made', async () => {
    const { cache, get, built } = recordingCache(undefined, 2500)
    const noise = randomBytes(1400).toString('base64').slice(0, 1400) // gzip leaves most of it
    const answer = await cache.respond(new Request('http://localhost/', { headers: { 'accept-encoding': 'gzip' } }), { headers: {} }, get('e', noise))
    expect(answer.headers.get('content-encoding')).toBe('gzip')
    get('f', 'f'.repeat(200)) // 1400 + 200 fit, but not with e's gzip variant (~1000 more): e goes
    get('e', noise)
    expect(built).toEqual(['e', 'f', 'e'])
  })

  test('If-None-Match: the ETag of the encoding about to be sent, W/ and *; not another encoding\'s, nor what merely starts like it', async () => {
    const cache = new RepresentationCache<object>()
    const variants = cache.get({}, 'k', () => textRepresentation('v1', 'k', 'text/plain', 'hello'.repeat(1000)))
    const etag = variants.representation.etag
    const bare = etag.slice(1, -1)
    const tags = { identity: etag, gzip: `"${bare}-gzip"`, br: `"${bare}-br"` }
    const answer = (tag: string, encoding: string) =>
      cache.respond(new Request('http://localhost/', { headers: { 'if-none-match': tag, 'accept-encoding': encoding } }), { headers: {} }, variants)
    for (const [encoding, own] of Object.entries(tags)) {
      for (const tag of [own, `W/${own}`, '*', `"other", ${own}`]) {
        const notModified = await answer(tag, encoding)
        expect(`${encoding} ${tag} → ${notModified.status}`).toBe(`${encoding} ${tag} → 304`)
        expect(notModified.headers.get('etag')).toBe(own)
      }
      for (const [otherEncoding, other] of Object.entries(tags)) {
        if (otherEncoding === encoding) continue
        const full = await answer(other, encoding)
        expect(`${encoding} ${other} → ${full.status}`).toBe(`${encoding} ${other} → 200`)
        expect(full.headers.get('etag')).toBe(own)
      }
      for (const tag of [`"${bare}-"`, `"${bare}-xyz"`, `"${bare}x"`, '"other"']) expect((await answer(tag, encoding)).status).toBe(200)
    }
  })

  test('at most two compressions queued: past them an answer goes out unencoded, and a later one is compressed', async () => {
    const cache = new RepresentationCache<object>()
    const owner = {}
    const entries = ['p', 'q', 'r'].map((key) => cache.get(owner, key, () => textRepresentation('v1', key, 'text/plain', key.repeat(50_000))))
    const gzipped = () => new Request('http://localhost/', { headers: { 'accept-encoding': 'gzip' } })
    const answers = await Promise.all(entries.map((variants) => cache.respond(gzipped(), { headers: {} }, variants)))
    expect(answers.map((answer) => answer.headers.get('content-encoding'))).toEqual(['gzip', 'gzip', null])
    // The unencoded answer carries the identity ETag, and its body in full.
    expect(answers[2]!.headers.get('etag')).toBe(entries[2]!.representation.etag)
    expect(await answers[2]!.text()).toBe('r'.repeat(50_000))
    const later = await cache.respond(gzipped(), { headers: {} }, entries[2]!)
    expect(later.headers.get('content-encoding')).toBe('gzip')
    expect(later.headers.get('etag')).toBe(`${entries[2]!.representation.etag.slice(0, -1)}-gzip"`)
  })

  test('an entry dropped before its compression starts is not compressed: the answers waiting for it get identity', async () => {
    const { cache, get } = recordingCache(1)
    const text = 'd'.repeat(5000)
    const waiting = cache.respond(new Request('http://localhost/', { headers: { 'accept-encoding': 'br' } }), { headers: {} }, get('d', text))
    get('e') // maxEntries 1: d goes before its compression has begun
    const answer = await waiting
    expect(answer.headers.get('content-encoding')).toBeNull()
    expect(await answer.text()).toBe(text)
  })

  test('a pieced body is sent as a stream and compressed like any other', async () => {
    const cache = new RepresentationCache<object>()
    const text = JSON.stringify({ data: Array.from({ length: 20_000 }, (_, i) => ({ i })) })
    const bytes = new TextEncoder().encode(text)
    const pieces = [bytes.subarray(0, 10), bytes.subarray(10, 30_000), bytes.subarray(30_000)]
    const body = piecedBody(pieces)
    expect(body).not.toBeInstanceOf(Blob)
    const variants = cache.get({}, 'pieced', () => blobRepresentation('v1', 'pieced', 'application/json', body))
    const ask = (encoding: string) => cache.respond(new Request('http://localhost/', { headers: { 'accept-encoding': encoding } }), { headers: {} }, variants)
    expect(await (await ask('identity')).text()).toBe(text)
    const gzip = await ask('gzip')
    expect(gzip.headers.get('content-encoding')).toBe('gzip')
    expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await gzip.arrayBuffer())))).toBe(text)
  })

  test('chooseEncoding: the higher weight wins (brotli on a tie), spaces around ";" allowed, q=0 refuses', () => {
    const cases: [string | null, string][] = [
      [null, 'identity'],
      ['gzip, deflate, br', 'br'],
      ['br;q=0.1, gzip;q=0.9', 'gzip'],
      ['gzip;q=0.5, br;q=0.5', 'br'],
      ['gzip ;q=1', 'gzip'],
      ['gzip ; q=0.5, identity', 'gzip'],
      ['br;q=0, gzip;q=0', 'identity'],
      ['*', 'br'],
      ['*;q=0', 'identity'],
      ['br;q=0, *', 'gzip'],
      ['deflate', 'identity'],
    ]
    for (const [header, expected] of cases) expect(`${header} → ${chooseEncoding(header, 4096)}`).toBe(`${header} → ${expected}`)
    expect(chooseEncoding('br', 100)).toBe('identity') // too small to be worth it
  })
})

describe('piecedBody', () => {
  /** Every chunk the body's stream sends (pieces above 64 KB in all: a streamed body, not a Blob). */
  async function chunksOf(pieces: Uint8Array<ArrayBuffer>[]) {
    const body = piecedBody(pieces)
    expect(body).not.toBeInstanceOf(Blob)
    const chunks: Uint8Array[] = []
    for await (const chunk of body.stream()) chunks.push(chunk)
    return chunks
  }

  test('its bytes are the pieces in order; chunks of at most 16 KB; a large piece is sent as views of it, small ones joined', async () => {
    const noise = (length: number) => new Uint8Array(randomBytes(length))
    const large = noise(40_000)
    const small = Array.from({ length: 300 }, () => noise(100))
    const tail = noise(20_000)
    const pieces = [noise(3), new Uint8Array(0), large, noise(5), noise(16 * 1024), new Uint8Array(0), ...small, new Uint8Array(0), tail]
    const body = piecedBody(pieces)
    const chunks = await chunksOf(pieces)
    expect(body.size).toBe(pieces.reduce((sum, piece) => sum + piece.byteLength, 0))
    expect(Buffer.concat(chunks).equals(Buffer.concat(pieces))).toBe(true)
    for (const chunk of chunks) expect(chunk.byteLength).toBeGreaterThan(0)
    for (const chunk of chunks) expect(chunk.byteLength).toBeLessThanOrEqual(16 * 1024)
    // The 40,000-byte piece: two 16 KB views of its own bytes, then its rest joined with what follows.
    expect(chunks.filter((chunk) => chunk.buffer === large.buffer)).toHaveLength(2)
    // The 300 small pieces (30,000 bytes) went out in two or three chunks, not 300.
    expect(chunks.length).toBeLessThanOrEqual(10)
  })

  test('up to 64 KB the pieces are joined into a Blob (sent whole, with a Content-Length)', async () => {
    const encode = (text: string) => new TextEncoder().encode(text)
    const small = piecedBody([encode('abc'), new Uint8Array(0), encode('def')])
    expect(small).toBeInstanceOf(Blob)
    expect(await (small as Blob).text()).toBe('abcdef')
    expect(piecedBody([])).toBeInstanceOf(Blob)
    expect(piecedBody([new Uint8Array(64 * 1024)])).toBeInstanceOf(Blob)
    expect(piecedBody([new Uint8Array(64 * 1024), encode('x')])).not.toBeInstanceOf(Blob)
  })

  test('each stream starts from the beginning', async () => {
    const text = 'abcdefgh'.repeat(10_000)
    const bytes = new TextEncoder().encode(text)
    const body = piecedBody([bytes.subarray(0, 3), bytes.subarray(3)])
    expect(await new Response(body.stream()).text()).toBe(text)
    expect(await new Response(body.stream()).text()).toBe(text)
  })
})
