/** RepresentationCache: one build per owner and key, bounds on the entries and bytes an owner keeps, and its answers (304, the body, the headers). */
import { describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { RepresentationCache } from '../../../src/http/representations/cache.ts'
import { CompressionQueue } from '../../../src/http/representations/compression.ts'
import { textRepresentation } from '../../../src/http/representations/representation.ts'

const newCache = (options?: ConstructorParameters<typeof RepresentationCache>[1]) => new RepresentationCache<object>(new CompressionQueue(), options)

/** A cache with one owner; `get(key, text)` builds a text answer (its key when no text) and records every build in `built`. */
function recordingCache(maxEntries = Number.POSITIVE_INFINITY, maxBytes = Number.POSITIVE_INFINITY) {
  const cache = newCache({ maxEntries, maxBytes })
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
    const cache = newCache()
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

  test('a sweep drops the entries no one asked for since the previous sweep, and only those', () => {
    const cache = newCache()
    const owner = {}
    const built: string[] = []
    const get = (key: string) => cache.get(owner, key, () => (built.push(key), textRepresentation('v1', key, 'text/plain', key)))
    const a = get('a')
    const b = get('b')
    cache.sweep(owner) // both asked for (made) since: kept
    get('a')
    cache.sweep(owner) // b not asked for since the last sweep: dropped
    expect(get('a')).toBe(a)
    expect(b.dropped).toBe(true)
    expect(get('b')).not.toBe(b)
    expect(built).toEqual(['a', 'b', 'b'])
    // Another owner's entries are not its concern.
    const other = {}
    const kept = cache.get(other, 'a', () => textRepresentation('v1', 'a', 'text/plain', 'a'))
    cache.sweep(owner)
    cache.sweep(owner)
    expect(cache.get(other, 'a', () => textRepresentation('v1', 'a', 'text/plain', 'again'))).toBe(kept)
  })

  test('respond: 304 for a matching If-None-Match, the body otherwise', async () => {
    const cache = newCache({ cacheControl: 'public, max-age=5' })
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
    const cache = newCache()
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

  test('an entry dropped before its compression starts is not compressed: the answers waiting for it get identity', async () => {
    const { cache, get } = recordingCache(1)
    const text = 'd'.repeat(5000)
    const waiting = cache.respond(new Request('http://localhost/', { headers: { 'accept-encoding': 'br' } }), { headers: {} }, get('d', text))
    get('e') // maxEntries 1: d goes before its compression has begun
    const answer = await waiting
    expect(answer.headers.get('content-encoding')).toBeNull()
    expect(await answer.text()).toBe(text)
  })
})
