/**
 * Every option: a flag and a SATTRACK_* variable (flags win), a default shown
 * by --help, a one-line error for a bad value; the logging, metrics, limits and
 * shutdown options in detail; what --version prints.
 */
import { describe, expect, test } from 'bun:test'
import { type Config, helpText, parseConfig } from '../../src/config.ts'
import { formatLine } from '../../src/io/log.ts'
import { BUILD_COMMIT, VERSION, versionText } from '../../src/io/version.ts'

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

describe('--version', () => {
  test('version, build commit, runtime and the embedded snapshot stamp, one per line', () => {
    expect(parseConfig(['--version'], env0).kind).toBe('version')
    const text = versionText(Date.parse('2026-05-30T22:50:00.000Z'), Date.parse('2026-11-25T12:00:00.000Z'))
    expect(text.split('\n')).toEqual([
      `sattrack ${VERSION}`,
      `commit: ${BUILD_COMMIT}`,
      `runtime: Bun ${Bun.version} (${process.platform}-${process.arch})`,
      "embedded snapshot: 2026-05-30T22:50:00.000Z (178 days old; positions are given within 30 days of an element set's epoch unless --max-element-age says otherwise)",
      'the embedded data is stale: load newer data with --refresh-url, --snapshot FILE or make snapshot (see GET /api/v1/service/status)',
    ])
    expect(versionText(Date.parse('2026-05-30T22:50:00.000Z'), Date.parse('2026-06-02T00:00:00.000Z')).split('\n')).toHaveLength(4)
    // Under bun test nothing was injected.
    expect(BUILD_COMMIT).toBe('unknown')
  })
})

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
