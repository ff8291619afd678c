/** Representations (representation.ts): a body, its content type and a strong ETag. */
import { expect, test } from 'bun:test'
import { strongEtag } from '../../../src/http/representations/etag.ts'
import { contentRepresentation, JSON_CONTENT_TYPE, jsonRepresentation, textRepresentation } from '../../../src/http/representations/representation.ts'

test('a text representation: its content type, the UTF-8 body, a strong ETag from version and key', async () => {
  const r = textRepresentation('v1', 'gp?GROUP=x', 'text/csv; charset=utf-8', 'é\r\n')
  expect(r.contentType).toBe('text/csv; charset=utf-8')
  expect([...(await (r.body as Blob).bytes())]).toEqual([0xc3, 0xa9, 13, 10])
  expect(r.etag).toMatch(/^"[0-9a-z]+"$/)
  expect(r.etag).toBe(strongEtag('v1', 'gp?GROUP=x'))
  expect(textRepresentation('v2', 'gp?GROUP=x', 'text/csv', '').etag).not.toBe(r.etag)
  expect(textRepresentation('v1', 'gp?GROUP=y', 'text/csv', '').etag).not.toBe(r.etag)
})

test('a JSON representation: the value serialised, as JSON in UTF-8', async () => {
  const r = jsonRepresentation('v1', 'one', { name: 'ISS (ZARYA)', id: 25544 })
  expect(r.contentType).toBe(JSON_CONTENT_TYPE)
  expect(await (r.body as Blob).text()).toBe('{"name":"ISS (ZARYA)","id":25544}')
})

test('a content representation: its ETag changes with the text and only with it', () => {
  const a = contentRepresentation('body { color: red }', 'text/css')
  expect(a.etag).toBe(contentRepresentation('body { color: red }', 'text/plain').etag)
  expect(a.etag).not.toBe(contentRepresentation('body { color: blue }', 'text/css').etag)
})
