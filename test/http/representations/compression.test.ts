/** The compression queue (compression.ts): one at a time, at most two waiting, a collection after a large body. */
import { expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { brotliDecompressSync } from 'node:zlib'
import { RepresentationCache } from '../../../src/http/representations/cache.ts'
import { CompressionQueue } from '../../../src/http/representations/compression.ts'
import { LARGE_BODY_BYTES, textRepresentation } from '../../../src/http/representations/representation.ts'

test('at most two compressions queued: past them an answer goes out unencoded, and a later one is compressed', async () => {
  const cache = new RepresentationCache<object>(new CompressionQueue())
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

test('each queue is its own: a full queue does not hold back another (createApp makes one per app)', async () => {
  const full = new CompressionQueue()
  const body = new Blob(['a'.repeat(50_000)])
  const waiting = [full.compress(body, 'gzip'), full.compress(body, 'gzip')]
  expect(full.compress(body, 'gzip')).toBeUndefined()
  expect(new CompressionQueue().compress(body, 'gzip')).toBeInstanceOf(Promise)
  await Promise.all(waiting)
  expect(full.compress(body, 'gzip')).toBeInstanceOf(Promise)
})

test('brotli and gzip round-trip; a job no longer wanted when its turn comes is skipped (null)', async () => {
  const queue = new CompressionQueue()
  const text = randomBytes(20_000).toString('base64')
  const br = await queue.compress(new Blob([text]), 'br')
  expect(brotliDecompressSync(new Uint8Array(await br!.arrayBuffer())).toString()).toBe(text)
  const gzip = await queue.compress(new Blob([text]), 'gzip')
  expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await gzip!.arrayBuffer())))).toBe(text)
  expect(await queue.compress(new Blob([text]), 'gzip', () => false)).toBeNull()
})

test('a full garbage collection follows the compression of a large body, not of a small one', async () => {
  let collections = 0
  const queue = new CompressionQueue({ collect: () => collections++ })
  await queue.compress(new Blob(['s'.repeat(LARGE_BODY_BYTES)]), 'gzip')
  expect(collections).toBe(0)
  await queue.compress(new Blob(['l'.repeat(LARGE_BODY_BYTES + 1)]), 'gzip')
  expect(collections).toBe(1)
})
