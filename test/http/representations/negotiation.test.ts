/** Content negotiation (negotiation.ts): the encoding chosen from Accept-Encoding. */
import { expect, test } from 'bun:test'
import { chooseEncoding, MIN_COMPRESS_BYTES } from '../../../src/http/representations/negotiation.ts'

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
  expect(chooseEncoding('br', MIN_COMPRESS_BYTES - 1)).toBe('identity')
  expect(chooseEncoding('br', MIN_COMPRESS_BYTES)).toBe('br')
})
