/** Log lines (src/io/log.ts): JSON objects or lines for people. */
import { describe, expect, test } from 'bun:test'
import { formatLine } from '../../src/io/log.ts'

describe('log lines', () => {
  const at = new Date('2026-05-30T12:00:00.000Z')
  test('json: time, level, msg, then the fields', () => {
    const line = formatLine('json', at, 'warn', 'refresh failed', { error: 'timeout', failuresInARow: 2 })
    expect(line).toBe('{"time":"2026-05-30T12:00:00.000Z","level":"warn","msg":"refresh failed","error":"timeout","failuresInARow":2}')
    expect(Object.keys(JSON.parse(line))).toEqual(['time', 'level', 'msg', 'error', 'failuresInARow'])
  })

  test('pretty: time, level, message, key=value (quoted when needed)', () => {
    expect(formatLine('pretty', at, 'info', 'listening', { url: 'http://127.0.0.1:3000', note: 'two words', n: 3, groups: { a: 1 } })).toBe(
      '2026-05-30T12:00:00.000Z INFO  listening url=http://127.0.0.1:3000 note="two words" n=3 groups={"a":1}',
    )
  })
})
