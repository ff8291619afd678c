/** What --version prints (src/io/version.ts): version, build commit, runtime, the embedded snapshot's stamp and age, and advice when it is stale. */
import { describe, expect, test } from 'bun:test'
import { BUILD_COMMIT, VERSION, versionText } from '../../src/io/version.ts'

describe('--version', () => {
  test('version, build commit, runtime and the embedded snapshot stamp, one per line', () => {
    const text = versionText(Date.parse('2026-05-30T22:50:00.000Z'), Date.parse('2026-11-25T12:00:00.000Z'))
    expect(text.split('\n')).toEqual([
      `sattrack ${VERSION}`,
      `commit: ${BUILD_COMMIT}`,
      `runtime: Bun ${Bun.version} (${process.platform}-${process.arch})`,
      "embedded snapshot: 2026-05-30T22:50:00.000Z (178 days old; positions are given within 30 days of an element set's epoch unless --max-element-age says otherwise)",
      'the embedded data is stale: load newer data with --refresh-url, --snapshot FILE or make snapshot (see GET /api/v1/service/status)',
    ])
    expect(versionText(Date.parse('2026-05-30T22:50:00.000Z'), Date.parse('2026-06-02T00:00:00.000Z')).split('\n')).toHaveLength(4)
    // A clock before the snapshot (a board without a real-time clock boots in 1970): said, not a negative age.
    expect(versionText(Date.parse('2026-05-30T22:50:00.000Z'), 0).split('\n')[3]).toStartWith(
      'embedded snapshot: 2026-05-30T22:50:00.000Z (20603 days after this machine\'s clock: the clock is probably wrong; positions',
    )
    expect(versionText(Date.parse('2026-05-30T22:50:00.000Z'), Date.parse('2026-05-30T12:00:00.000Z')).split('\n')[3]).toContain('(less than a day after this machine\'s clock')
    // Under bun test nothing was injected.
    expect(BUILD_COMMIT).toBe('unknown')
  })
})
