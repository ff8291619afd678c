/** Strong ETags (etag.ts): one per catalogue version and key, one per encoding, and If-None-Match against the one about to be sent. */
import { expect, test } from 'bun:test'
import { RepresentationCache } from '../../../src/http/representations/cache.ts'
import { CompressionQueue } from '../../../src/http/representations/compression.ts'
import { contentEtag, strongEtag } from '../../../src/http/representations/etag.ts'
import { textRepresentation } from '../../../src/http/representations/representation.ts'

test('a strong ETag from version and key; another version or key, another ETag; a content ETag follows the content', () => {
  const etag = strongEtag('v1', 'gp?GROUP=x')
  expect(etag).toMatch(/^"[0-9a-z]+"$/)
  expect(strongEtag('v1', 'gp?GROUP=x')).toBe(etag)
  expect(strongEtag('v2', 'gp?GROUP=x')).not.toBe(etag)
  expect(strongEtag('v1', 'gp?GROUP=y')).not.toBe(etag)
  expect(contentEtag('abc')).toMatch(/^"[0-9a-z]+"$/)
  expect(contentEtag('abc')).toBe(contentEtag('abc'))
  expect(contentEtag('abd')).not.toBe(contentEtag('abc'))
})

test("If-None-Match: the ETag of the encoding about to be sent, W/ and *; not another encoding's, nor what merely starts like it", async () => {
  const cache = new RepresentationCache<object>(new CompressionQueue())
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
