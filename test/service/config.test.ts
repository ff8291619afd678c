/** The refresh options: flags, SATTRACK_* variables, defaults, and the one-line errors. */
import { describe, expect, test } from 'bun:test'
import { type Config, helpText, parseConfig, parseDuration } from '../../src/config.ts'

function run(argv: string[], env: Record<string, string> = {}): Config {
  const result = parseConfig(argv, { HOME: '/home/test', ...env })
  if (result.kind !== 'run') throw new Error(`expected a config, got ${JSON.stringify(result)}`)
  return result.config
}

function error(argv: string[], env: Record<string, string> = {}): string {
  const result = parseConfig(argv, { HOME: '/home/test', ...env })
  expect(result.kind).toBe('error')
  return result.kind === 'error' ? result.message : ''
}

describe('refresh options', () => {
  test('defaults: refresh off, 6h, loaded groups, json, 30s, the XDG data dir', () => {
    expect(run([])).toMatchObject({
      refreshUrl: null,
      refreshIntervalMs: 6 * 3_600_000,
      refreshGroups: null,
      refreshFormat: 'json',
      refreshTimeoutMs: 30_000,
      dataDir: '/home/test/.local/share/sattrack',
    })
    expect(run([], { XDG_DATA_HOME: '/var/lib/x' }).dataDir).toBe('/var/lib/x/sattrack')
  })

  test('every option as a flag', () => {
    const config = run([
      '--refresh-url',
      'http://127.0.0.1:8080/NORAD/elements/gp.php',
      '--refresh-interval=90s',
      '--refresh-groups',
      'stations, weather,stations',
      '--refresh-format',
      'CSV',
      '--refresh-timeout',
      '2m',
      '--data-dir',
      '/tmp/sat',
    ])
    expect(config).toMatchObject({
      refreshUrl: 'http://127.0.0.1:8080/NORAD/elements/gp.php',
      refreshIntervalMs: 90_000,
      refreshGroups: ['stations', 'weather'],
      refreshFormat: 'csv',
      refreshTimeoutMs: 120_000,
      dataDir: '/tmp/sat',
    })
  })

  test('every option as a SATTRACK_* variable; flags win', () => {
    const env = {
      SATTRACK_REFRESH_URL: 'https://example.invalid/gp.php',
      SATTRACK_REFRESH_INTERVAL: '30m',
      SATTRACK_REFRESH_GROUPS: 'geo',
      SATTRACK_REFRESH_FORMAT: 'tle',
      SATTRACK_REFRESH_TIMEOUT: '10s',
      SATTRACK_DATA_DIR: '/srv/sattrack',
    }
    expect(run([], env)).toMatchObject({
      refreshUrl: 'https://example.invalid/gp.php',
      refreshIntervalMs: 1_800_000,
      refreshGroups: ['geo'],
      refreshFormat: 'tle',
      refreshTimeoutMs: 10_000,
      dataDir: '/srv/sattrack',
    })
    expect(run(['--refresh-interval', '1h'], env).refreshIntervalMs).toBe(3_600_000)
  })

  test('CelesTrak itself: at least 2h between rounds', () => {
    expect(error(['--refresh-url', 'https://celestrak.org/NORAD/elements/gp.php', '--refresh-interval', '30m'])).toMatch(
      /^--refresh-interval must be at least 2h when refreshing from celestrak\.org/,
    )
    expect(error(['--refresh-interval', '1h'], { SATTRACK_REFRESH_URL: 'https://www.celestrak.org/NORAD/elements/gp.php' })).toMatch(/at least 2h/)
    expect(run(['--refresh-url', 'https://celestrak.org/NORAD/elements/gp.php', '--refresh-interval', '2h']).refreshIntervalMs).toBe(7_200_000)
    expect(run(['--refresh-url', 'https://celestrak.org/NORAD/elements/gp.php']).refreshIntervalMs).toBe(21_600_000)
    expect(run(['--refresh-url', 'http://127.0.0.1:1/gp.php', '--refresh-interval', '5s']).refreshIntervalMs).toBe(5_000)
  })

  test('bad values: one line naming the option and the rule', () => {
    expect(error(['--refresh-url', 'ftp://x/gp'])).toBe('--refresh-url: must be an http:// or https:// URL (got "ftp://x/gp")')
    expect(error(['--refresh-url', 'not a url'])).toMatch(/^--refresh-url: must be an http/)
    expect(error(['--refresh-interval', 'soon'])).toBe('--refresh-interval: must be a duration such as 90s, 30m or 6h (got "soon")')
    expect(error(['--refresh-interval', '0s'])).toMatch(/^--refresh-interval: must be between 1s and 30d/)
    expect(error(['--refresh-format', 'xml'])).toBe('--refresh-format: must be json, csv or tle (got "xml")')
    expect(error(['--refresh-groups', ','])).toMatch(/^--refresh-groups: must name at least one group/)
    expect(error(['--refresh-groups', 'a&b'])).toMatch(/^--refresh-groups: "a&b" is not a group name/)
    expect(error(['--refresh-timeout', '1h'])).toMatch(/^--refresh-timeout: must be between/)
    expect(error(['--data-dir', ' '])).toMatch(/^--data-dir: must not be empty/)
    expect(error([], { SATTRACK_REFRESH_FORMAT: 'yaml' })).toMatch(/^SATTRACK_REFRESH_FORMAT: must be json, csv or tle/)
    for (const message of [error(['--refresh-interval', 'x']), error(['--refresh-url', 'x'])]) expect(message).not.toContain('\n')
  })

  test('durations', () => {
    expect(parseDuration('90s')).toBe(90_000)
    expect(parseDuration('30m')).toBe(1_800_000)
    expect(parseDuration('6h')).toBe(21_600_000)
    expect(parseDuration('1d')).toBe(86_400_000)
    expect(parseDuration('1h30m')).toBe(5_400_000)
    expect(parseDuration('45')).toBe(45_000)
    expect(parseDuration('500ms')).toBe(500)
    expect(parseDuration('6 h')).toBeNull()
    expect(parseDuration('-5s')).toBeNull()
  })

  test('--help lists every refresh option with its variable and default', () => {
    const help = helpText()
    for (const [flag, env] of [
      ['--refresh-url', 'SATTRACK_REFRESH_URL'],
      ['--refresh-interval', 'SATTRACK_REFRESH_INTERVAL'],
      ['--refresh-groups', 'SATTRACK_REFRESH_GROUPS'],
      ['--refresh-format', 'SATTRACK_REFRESH_FORMAT'],
      ['--refresh-timeout', 'SATTRACK_REFRESH_TIMEOUT'],
      ['--data-dir', 'SATTRACK_DATA_DIR'],
    ]) {
      expect(help).toContain(flag!)
      expect(help).toContain(env!)
    }
    // --snapshot says how to reload it.
    expect(help.split('\n').find((l) => l.trimStart().startsWith('--snapshot PATH'))).toContain('read again on SIGHUP')
    expect(help).toContain('(default: 6h)')
    expect(help).toContain('(default: 30s)')
  })
})

test('--help and --version win over a bad environment; a flag followed by another flag has no value', () => {
  expect(parseConfig(['--help'], { PORT: 'abc' }).kind).toBe('help')
  expect(parseConfig(['--port', '1', '--version'], { PORT: 'abc' }).kind).toBe('version')
  expect(parseConfig(['--port', '--host', '127.0.0.1'], {})).toEqual({ kind: 'error', message: '--port needs a value' })
})

test('--cors-origin must be *, null or an origin', () => {
  expect(parseConfig(['--cors-origin', 'https://example.org:8443'], {}).kind).toBe('run')
  expect(parseConfig(['--cors-origin', 'null'], {}).kind).toBe('run')
  const bad = parseConfig(['--cors-origin', 'https://a\r\nX-Evil: 1'], {})
  expect(bad.kind).toBe('error')
  expect(parseConfig([], { SATTRACK_CORS_ORIGIN: 'not an origin' }).kind).toBe('error')
})

describe('stream options', () => {
  test('--max-streams and --max-streams-per-client, by flag and variable; defaults 100 and a quarter of it; bad values named', () => {
    expect(run([])).toMatchObject({ maxStreams: 100, maxStreamsPerClient: null })
    expect(run(['--max-streams', '8', '--max-streams-per-client=3'])).toMatchObject({ maxStreams: 8, maxStreamsPerClient: 3 })
    expect(run([], { SATTRACK_MAX_STREAMS: '40', SATTRACK_MAX_STREAMS_PER_CLIENT: '5' })).toMatchObject({ maxStreams: 40, maxStreamsPerClient: 5 })
    expect(error(['--max-streams', '0'])).toBe('--max-streams: must be an integer between 1 and 100000 (got "0")')
    expect(error(['--max-streams-per-client', 'x'])).toBe('--max-streams-per-client: must be an integer between 1 and 100000 (got "x")')
    expect(helpText()).toContain('--max-streams-per-client N')
  })
})
