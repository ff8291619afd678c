/**
 * src/config.ts, the command line: every option as a flag and a SATTRACK_*
 * variable (flags win), its default (shown by --help), and a one-line error
 * naming the option and the value for a bad one. What the executable does with
 * the result (exit codes, stdout and stderr) is test/e2e/executable.test.ts.
 */
import { describe, expect, test } from 'bun:test'
import { type Config, helpText, parseConfig, parseDuration } from '../src/config.ts'

const env0 = { HOME: '/home/test' }

function run(argv: string[], env: Record<string, string> = {}): Config {
  const result = parseConfig(argv, { ...env0, ...env })
  if (result.kind !== 'run') throw new Error(`expected a config, got ${JSON.stringify(result)}`)
  return result.config
}

function error(argv: string[], env: Record<string, string> = {}): string {
  const result = parseConfig(argv, { ...env0, ...env })
  expect(result.kind).toBe('error')
  return result.kind === 'error' ? result.message : ''
}

/** The options --help lists: flag, variables, whether a default is shown. */
function helpOptions(): { flag: string; env: string[]; hasDefault: boolean }[] {
  const lines = helpText().split('\n')
  const out: { flag: string; env: string[]; hasDefault: boolean }[] = []
  lines.forEach((line, i) => {
    const m = /^ {2}(--[a-z-]+)/.exec(line)
    const next = lines[i + 1] ?? ''
    if (m && /^\s+env: /.test(next)) {
      out.push({ flag: m[1]!, env: next.trim().slice(5).split(', '), hasDefault: /\(default: [^)]+\)$/.test(line) })
    }
  })
  return out
}

describe('every option', () => {
  test('has a flag, a SATTRACK_* variable and a default in --help', () => {
    const options = helpOptions()
    expect(options.length).toBeGreaterThanOrEqual(18)
    for (const o of options) {
      expect(o.env.some((e) => e === `SATTRACK_${o.flag.slice(2).toUpperCase().replace(/-/g, '_')}`)).toBe(true)
      if (!o.hasDefault) throw new Error(`${o.flag} shows no default in --help`)
    }
    for (const flag of ['--log-level', '--log-format', '--access-log', '--metrics', '--rate-limit', '--trust-proxy', '--shutdown-timeout']) {
      expect(options.map((o) => o.flag)).toContain(flag)
    }
  })

  test('a bad value is one line that names the option and the value', () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--log-level', 'loud'], {}, /^--log-level: must be one of debug, info, warn, error \(got "loud"\)$/],
      [['--log-format', 'xml'], {}, /^--log-format: must be one of json, pretty \(got "xml"\)$/],
      [['--access-log=yes'], {}, /^--access-log: must be true or false \(got "yes"\)$/],
      [['--metrics=0'], {}, /^--metrics: must be true or false/],
      [['--rate-limit', '600'], {}, /^--rate-limit: must be requests per window such as 600\/min/],
      [['--shutdown-timeout', '1h'], {}, /^--shutdown-timeout: must be between 0s and 5m/],
      [['--port', '70000'], {}, /^--port: must be an integer between 0 and 65535/],
      [[], { SATTRACK_LOG_LEVEL: 'verbose' }, /^SATTRACK_LOG_LEVEL: must be one of/],
      [[], { SATTRACK_RATE_LIMIT: '5/fortnight' }, /^SATTRACK_RATE_LIMIT: must be requests per window/],
      [[], { SATTRACK_TRUST_PROXY: 'maybe' }, /^SATTRACK_TRUST_PROXY: must be true or false/],
      [['--max-element-age', 'forever'], {}, /^--max-element-age: must be a duration between 1h and 3650d \(such as 30d or 72h\), or off \(got "forever"\)$/],
      [['--max-element-age', '30m'], {}, /^--max-element-age: must be a duration between 1h and 3650d.*\(got "30m"\)$/],
      [[], { SATTRACK_MAX_ELEMENT_AGE: '-3d' }, /^SATTRACK_MAX_ELEMENT_AGE: must be a duration.*\(got "-3d"\)$/],
      [['--no-such-option'], {}, /^unknown option --no-such-option \(see --help\)$/],
      [['--log-level'], {}, /^--log-level needs a value$/],
    ]
    for (const [argv, env, expected] of cases) {
      const message = error(argv, env)
      expect(message).toMatch(expected)
      expect(message).not.toContain('\n')
    }
  })

  test('a flag wins over its variable, even one that could not be used (it is not read); a bad flag is named before a bad variable', () => {
    expect(run(['--workers', '2'], { SATTRACK_WORKERS: 'abc' }).workers).toBe(2)
    expect(run(['--port=9'], { SATTRACK_PORT: 'abc' }).port).toBe(9)
    expect(run(['--log-level', 'info'], { SATTRACK_LOG_LEVEL: 'zzz' }).logLevel).toBe('info')
    expect(error(['--port', '9'], { SATTRACK_LOG_LEVEL: 'zzz' })).toMatch(/^SATTRACK_LOG_LEVEL: must be one of/)
    expect(error(['--port', 'x'], { SATTRACK_LOG_LEVEL: 'zzz' })).toMatch(/^--port: must be an integer/)
  })
})

describe('server options', () => {
  test('--cors-origin must be *, null or an origin', () => {
    expect(parseConfig(['--cors-origin', 'https://example.org:8443'], {}).kind).toBe('run')
    expect(parseConfig(['--cors-origin', 'null'], {}).kind).toBe('run')
    const bad = parseConfig(['--cors-origin', 'https://a\r\nX-Evil: 1'], {})
    expect(bad.kind).toBe('error')
    expect(parseConfig([], { SATTRACK_CORS_ORIGIN: 'not an origin' }).kind).toBe('error')
  })
})

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

describe('--max-element-age', () => {
  test('a duration, or off; 30 days by default', () => {
    expect(run([]).maxElementAgeMs).toBe(30 * 86_400_000)
    expect(run(['--max-element-age', '72h']).maxElementAgeMs).toBe(72 * 3_600_000)
    expect(run(['--max-element-age', 'off']).maxElementAgeMs).toBeNull()
    expect(run([], { SATTRACK_MAX_ELEMENT_AGE: '7d' }).maxElementAgeMs).toBe(7 * 86_400_000)
  })
})

describe('logging, metrics, limits and shutdown options', () => {
  test('defaults: info, json, no access log, metrics on, no rate limit, no proxy trust, 10 s to stop', () => {
    expect(run([])).toMatchObject({
      logLevel: 'info',
      logFormat: 'json',
      accessLog: false,
      metrics: true,
      rateLimit: null,
      trustProxy: false,
      shutdownTimeoutMs: 10_000,
    })
  })

  test('as flags', () => {
    expect(
      run(['--log-level', 'DEBUG', '--log-format=pretty', '--access-log', '--metrics=false', '--rate-limit', '600/min', '--trust-proxy', '--shutdown-timeout', '2s']),
    ).toMatchObject({
      logLevel: 'debug',
      logFormat: 'pretty',
      accessLog: true,
      metrics: false,
      rateLimit: { limit: 600, windowMs: 60_000 },
      trustProxy: true,
      shutdownTimeoutMs: 2000,
    })
  })

  test('as SATTRACK_* variables; flags win', () => {
    const env = {
      SATTRACK_LOG_LEVEL: 'warn',
      SATTRACK_LOG_FORMAT: 'pretty',
      SATTRACK_ACCESS_LOG: 'true',
      SATTRACK_METRICS: 'false',
      SATTRACK_RATE_LIMIT: '20/s',
      SATTRACK_TRUST_PROXY: 'true',
      SATTRACK_SHUTDOWN_TIMEOUT: '30s',
      SATTRACK_PORT: '8080',
      SATTRACK_HOST: '127.0.0.1',
      SATTRACK_CORS_ORIGIN: 'https://example.org',
      SATTRACK_BENCH_ROUTES: 'true',
    }
    expect(run([], env)).toMatchObject({
      logLevel: 'warn',
      logFormat: 'pretty',
      accessLog: true,
      metrics: false,
      rateLimit: { limit: 20, windowMs: 1000 },
      trustProxy: true,
      shutdownTimeoutMs: 30_000,
      port: 8080,
      host: '127.0.0.1',
      corsOrigin: 'https://example.org',
      benchRoutes: true,
    })
    expect(
      run(['--log-level', 'error', '--log-format', 'json', '--access-log=false', '--metrics', '--rate-limit', 'off', '--trust-proxy=false', '--shutdown-timeout', '0', '--port', '9', '--bench-routes=false'], env),
    ).toMatchObject({
      logLevel: 'error',
      logFormat: 'json',
      accessLog: false,
      metrics: true,
      rateLimit: null,
      trustProxy: false,
      shutdownTimeoutMs: 0,
      port: 9,
      benchRoutes: false,
      maxElementAgeMs: 30 * 86_400_000,
    })
  })
})

describe('stream options', () => {
  test('--max-streams and --max-streams-per-client, by flag and variable; defaults 100 and a quarter of it; bad values named', () => {
    expect(run([])).toMatchObject({ maxStreams: 100, maxStreamsPerClient: null })
    expect(run(['--max-streams', '8', '--max-streams-per-client=3'])).toMatchObject({ maxStreams: 8, maxStreamsPerClient: 3 })
    expect(run([], { SATTRACK_MAX_STREAMS: '40', SATTRACK_MAX_STREAMS_PER_CLIENT: '5' })).toMatchObject({ maxStreams: 40, maxStreamsPerClient: 5 })
    expect(error(['--max-streams', '0'])).toBe('--max-streams: must be an integer between 1 and 100000 (got "0")')
    expect(error(['--max-streams-per-client', 'x'])).toBe('--max-streams-per-client: must be an integer between 1 and 100000 (got "x")')
    // A share above the whole cap (the two swapped, most likely): refused; equal to it is one client holding them all.
    expect(error(['--max-streams-per-client', '200'])).toBe('--max-streams-per-client must be at most --max-streams (100); got 200')
    expect(error([], { SATTRACK_MAX_STREAMS: '4', SATTRACK_MAX_STREAMS_PER_CLIENT: '5' })).toBe('--max-streams-per-client must be at most --max-streams (4); got 5')
    expect(run(['--max-streams', '4', '--max-streams-per-client', '4'])).toMatchObject({ maxStreams: 4, maxStreamsPerClient: 4 })
    expect(helpText()).toContain('--max-streams-per-client N')
  })
})

describe('--help and --version', () => {
  test('--help and --version win over a bad environment; a flag followed by another flag has no value', () => {
    expect(parseConfig(['--help'], env0).kind).toBe('help')
    expect(parseConfig(['--version'], env0).kind).toBe('version')
    expect(parseConfig(['--help'], { PORT: 'abc' }).kind).toBe('help')
    expect(parseConfig(['--port', '1', '--version'], { PORT: 'abc' }).kind).toBe('version')
    expect(parseConfig(['--port', '--host', '127.0.0.1'], {})).toEqual({ kind: 'error', message: '--port needs a value' })
    expect(parseConfig(['--help=foo'], {})).toEqual({ kind: 'error', message: '--help takes no value (got "foo")' })
    expect(parseConfig(['--version=1'], {})).toEqual({ kind: 'error', message: '--version takes no value (got "1")' })
  })
})

describe('durations', () => {
  test('s, m, h, d and ms, combined; a bare number is seconds; no spaces, no signs', () => {
    expect(parseDuration('90s')).toBe(90_000)
    expect(parseDuration('30m')).toBe(1_800_000)
    expect(parseDuration('6h')).toBe(21_600_000)
    expect(parseDuration('1d')).toBe(86_400_000)
    expect(parseDuration('1h30m')).toBe(5_400_000)
    expect(parseDuration('45')).toBe(45_000)
    expect(parseDuration('500ms')).toBe(500)
    // Any case, as `off` and the other options' words.
    expect(parseDuration('30D')).toBe(30 * 86_400_000)
    expect(parseDuration('1H30M')).toBe(5_400_000)
    expect(parseDuration('6 h')).toBeNull()
    expect(parseDuration('-5s')).toBeNull()
  })
})
