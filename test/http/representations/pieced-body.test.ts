/** Pieced bodies (pieced-body.ts): pieces of other bodies sent as a stream in chunks of at most 16 KB, joined whole only when small. */
import { describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { RepresentationCache } from '../../../src/http/representations/cache.ts'
import { CompressionQueue } from '../../../src/http/representations/compression.ts'
import { piecedBody } from '../../../src/http/representations/pieced-body.ts'
import { blobRepresentation } from '../../../src/http/representations/representation.ts'

test('a pieced body is sent as a stream and compressed like any other', async () => {
  const cache = new RepresentationCache<object>(new CompressionQueue())
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
