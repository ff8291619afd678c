/** Flags and environment variables → one validated Config; the --help text. */
import type { ElementFormat } from './domain/catalog/formats.ts'
import { defaultDataDir } from './io/cache.ts'
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './io/log.ts'
import { type CompatFamily, COMPAT_FAMILIES, parseCompatFamilies } from './http/routes/compat/families.ts'
import { parseRateLimit, type RateLimit } from './http/plugins/rate-limit.ts'
import { VERSION } from './io/version.ts'

export interface Config {
  port: number
  host: string
  /** A snapshot file or folder to start from in place of the embedded one (the data-dir cache still wins where it is newer). */
  snapshot: string | null
  corsOrigin: string
  /** The CelesTrak-compatible GP endpoint to refresh from; null: no refresh (the default). */
  refreshUrl: string | null
  /** Time between refresh rounds, ms. */
  refreshIntervalMs: number
  /** Groups to refresh; null: the groups of the catalogue loaded at start. */
  refreshGroups: string[] | null
  /** FORMAT asked of the endpoint. */
  refreshFormat: ElementFormat
  /** The longest one request may take, ms. */
  refreshTimeoutMs: number
  /** Where the refreshed data is kept between runs. */
  dataDir: string
  /** Mount the benchmark's reference routes (/bench/hello, /bench/plain-nearby). */
  benchRoutes: boolean
  /** The lowest level logged. */
  logLevel: LogLevel
  /** JSON lines (the default) or lines for people. */
  logFormat: LogFormat
  /** One log line per request (method, path, status, duration). */
  accessLog: boolean
  /** Serve Prometheus metrics at /metrics. */
  metrics: boolean
  /** Requests per client and window; null: no limit (the default). */
  rateLimit: RateLimit | null
  /** Take the client address from X-Forwarded-For (set only behind a proxy that writes it). */
  trustProxy: boolean
  /** On SIGTERM/SIGINT, how long requests in flight may take to finish, ms. */
  shutdownTimeoutMs: number
  /** Live position streams open at once. */
  maxStreams: number
  /** Live position streams one client address may hold; null: a quarter of maxStreams. */
  maxStreamsPerClient: number | null
  /** The longest time from an element set's epoch at which it gives positions, ms; null: no limit (`off`). */
  maxElementAgeMs: number | null
  /** Route families of other APIs answered too (N2YO, Open Notify, wheretheiss.at); empty: none. */
  compat: CompatFamily[]
  /** Processes serving the port: a number, or `auto` (one per core the process may run on). */
  workers: number | 'auto'
}

export type ConfigResult =
  | { kind: 'run'; config: Config }
  | { kind: 'help'; text: string }
  | { kind: 'version'; text: string }
  | { kind: 'error'; message: string }

interface OptionSpec {
  key: keyof Config
  flag: string
  env: readonly string[]
  valueName: string
  description: string
  default: Config[keyof Config]
  /** The default as --help shows it, when the value itself reads badly. */
  defaultText?: string
  /** A switch: the flag alone means `true` (`--flag=false` and the env variable still take a value). */
  isSwitch?: true
  parse: (raw: string) => Config[keyof Config] | Error
}

const port = (raw: string) => {
  if (!/^\d+$/.test(raw) || +raw > 65535) return new Error('must be an integer between 0 and 65535')
  return +raw
}
const count = (min: number, max: number) => (raw: string) => (/^\d+$/.test(raw) && +raw >= min && +raw <= max ? +raw : new Error(`must be an integer between ${min} and ${max}`))
const nonEmpty = (raw: string) => (raw.trim() === '' ? new Error('must not be empty') : raw)
/** `*`, `null`, or an origin (`scheme://host[:port]`): anything else would make an invalid header on every answer. */
const corsOrigin = (raw: string) => {
  if (raw === '*' || raw === 'null') return raw
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^\s/?#]+$/i.test(raw)) return new Error('must be *, null or an origin such as https://example.org')
  return raw
}
const switchValue = (raw: string) => (raw === 'true' ? true : raw === 'false' ? false : new Error('must be true or false'))
const oneOf =
  <T extends string>(values: readonly T[]) =>
  (raw: string): T | Error => {
    const value = raw.trim().toLowerCase() as T
    return values.includes(value) ? value : new Error(`must be one of ${values.join(', ')}`)
  }

/** The most worker processes `--workers` takes. */
export const MAX_WORKERS = 64
const workerCount = (raw: string) => {
  const text = raw.trim().toLowerCase()
  if (text === 'auto') return 'auto' as const
  return /^\d+$/.test(text) && +text >= 1 && +text <= MAX_WORKERS ? +text : new Error(`must be auto or an integer between 1 and ${MAX_WORKERS}`)
}

const HOUR_MS = 3_600_000
const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: HOUR_MS, d: 24 * HOUR_MS }

/** `90s`, `30m`, `6h`, `1d`, `1h30m`, or plain seconds → ms; the units in any case (`30D`), as `off` is. */
export function parseDuration(raw: string): number | null {
  const text = raw.trim().toLowerCase()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(text)) return null
  let total = 0
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) total += Number(m[1]) * DURATION_UNITS_MS[m[2]!]!
  return total
}

const duration = (minMs: number, maxMs: number, range: string) => (raw: string) => {
  const ms = parseDuration(raw)
  if (ms === null) return new Error('must be a duration such as 90s, 30m or 6h')
  if (ms < minMs || ms > maxMs) return new Error(`must be between ${range}`)
  return ms
}

/** The element-age limit: a duration of 1h to 3650d, or `off`. */
const elementAge = (raw: string) => {
  if (raw.trim().toLowerCase() === 'off') return null
  const ms = parseDuration(raw)
  if (ms === null || ms < HOUR_MS || ms > 3650 * 24 * HOUR_MS) return new Error('must be a duration between 1h and 3650d (such as 30d or 72h), or off')
  return ms
}

const httpUrl = (raw: string) => {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    return new Error('must be an http:// or https:// URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return new Error('must be an http:// or https:// URL')
  return url.toString()
}

const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.+-]*$/
const groupList = (raw: string) => {
  const groups = [...new Set(raw.split(',').map((g) => g.trim()).filter((g) => g !== ''))]
  if (groups.length === 0) return new Error('must name at least one group')
  const bad = groups.find((g) => !GROUP_NAME.test(g))
  if (bad) return new Error(`"${bad}" is not a group name (letters, digits, - _ . +)`)
  return groups
}

const refreshFormat = (raw: string) => {
  const format = raw.trim().toLowerCase()
  return format === 'json' || format === 'csv' || format === 'tle' ? format : new Error('must be json, csv or tle')
}

/** CelesTrak's usage policy: data changes at most every 2 hours, so do not ask more often. */
export const CELESTRAK_MIN_INTERVAL_MS = 2 * HOUR_MS

/** Whether an endpoint is CelesTrak's own (celestrak.org, celestrak.com and their subdomains). */
export function isCelestrakHost(url: string): boolean {
  const host = new URL(url).hostname.toLowerCase().replace(/\.$/, '')
  return ['celestrak.org', 'celestrak.com'].some((domain) => host === domain || host.endsWith(`.${domain}`))
}

const OPTIONS: readonly OptionSpec[] = [
  { key: 'port', flag: '--port', env: ['SATTRACK_PORT', 'PORT'], valueName: 'N', description: 'TCP port to listen on', default: 3000, parse: port },
  { key: 'host', flag: '--host', env: ['SATTRACK_HOST', 'HOST'], valueName: 'H', description: 'address to listen on', default: '0.0.0.0', parse: nonEmpty },
  {
    key: 'snapshot',
    flag: '--snapshot',
    env: ['SATTRACK_SNAPSHOT'],
    valueName: 'PATH',
    description:
      'element sets to start from in place of the embedded snapshot (newer cached groups still win): a <group>.tle, <group>.json (OMM) or <group>.csv (OMM) file, a folder of them, a snapshot.json bundle or a copied catalog-cache.json; read again on SIGHUP (systemctl reload), without a restart',
    default: null,
    defaultText: 'none: the embedded snapshot or the cache',
    parse: nonEmpty,
  },
  {
    key: 'corsOrigin',
    flag: '--cors-origin',
    env: ['SATTRACK_CORS_ORIGIN'],
    valueName: 'ORIGIN',
    description: 'value of Access-Control-Allow-Origin',
    default: '*',
    parse: corsOrigin,
  },
  {
    key: 'refreshUrl',
    flag: '--refresh-url',
    env: ['SATTRACK_REFRESH_URL'],
    valueName: 'URL',
    description: 'refresh in the background from this CelesTrak-compatible GP endpoint (GROUP and FORMAT are added), e.g. https://celestrak.org/NORAD/elements/gp.php',
    default: null,
    defaultText: 'off',
    parse: httpUrl,
  },
  {
    key: 'refreshIntervalMs',
    flag: '--refresh-interval',
    env: ['SATTRACK_REFRESH_INTERVAL'],
    valueName: 'DURATION',
    description: 'time between refresh rounds (90s, 30m, 6h; 1s to 30d, at least 2h for celestrak.org)',
    default: 6 * HOUR_MS,
    defaultText: '6h',
    parse: duration(1000, 30 * 24 * HOUR_MS, '1s and 30d'),
  },
  {
    key: 'refreshGroups',
    flag: '--refresh-groups',
    env: ['SATTRACK_REFRESH_GROUPS'],
    valueName: 'G1,G2',
    description: 'CelesTrak groups to refresh',
    default: null,
    defaultText: 'the groups loaded at start',
    parse: groupList,
  },
  {
    key: 'refreshFormat',
    flag: '--refresh-format',
    env: ['SATTRACK_REFRESH_FORMAT'],
    valueName: 'FORMAT',
    description: 'FORMAT to ask for: json (OMM), csv (OMM) or tle',
    default: 'json',
    parse: refreshFormat,
  },
  {
    key: 'refreshTimeoutMs',
    flag: '--refresh-timeout',
    env: ['SATTRACK_REFRESH_TIMEOUT'],
    valueName: 'DURATION',
    description: 'the longest one refresh request may take, body included (100ms to 10m)',
    default: 30_000,
    defaultText: '30s',
    parse: duration(100, 10 * 60_000, '100ms and 10m'),
  },
  {
    key: 'dataDir',
    flag: '--data-dir',
    env: ['SATTRACK_DATA_DIR'],
    valueName: 'DIR',
    description: 'where refreshed data is kept between runs (created when first needed)',
    default: null as unknown as string,
    defaultText: '$XDG_DATA_HOME/sattrack or ~/.local/share/sattrack',
    parse: nonEmpty,
  },
  {
    key: 'logLevel',
    flag: '--log-level',
    env: ['SATTRACK_LOG_LEVEL'],
    valueName: 'LEVEL',
    description: `the lowest level logged: ${LOG_LEVELS.join(', ')}`,
    default: 'info',
    parse: oneOf(LOG_LEVELS),
  },
  {
    key: 'logFormat',
    flag: '--log-format',
    env: ['SATTRACK_LOG_FORMAT'],
    valueName: 'FORMAT',
    description: 'json (one object per line: time, level, msg, fields) or pretty (for people)',
    default: 'json',
    parse: oneOf(LOG_FORMATS),
  },
  {
    key: 'accessLog',
    flag: '--access-log',
    env: ['SATTRACK_ACCESS_LOG'],
    valueName: '',
    description: 'log one line per request: method, path (no query string), route, status, duration',
    default: false,
    isSwitch: true,
    parse: switchValue,
  },
  {
    key: 'metrics',
    flag: '--metrics',
    env: ['SATTRACK_METRICS'],
    valueName: '',
    description: 'serve Prometheus metrics at GET /metrics (--metrics=false turns it off)',
    default: true,
    isSwitch: true,
    parse: switchValue,
  },
  {
    key: 'rateLimit',
    flag: '--rate-limit',
    env: ['SATTRACK_RATE_LIMIT'],
    valueName: 'N/WINDOW',
    description: 'requests per client, e.g. 600/min, 20/s, 10000/h; over it: 429 with Retry-After (healthcheck and /metrics exempt)',
    default: null,
    defaultText: 'off',
    parse: parseRateLimit,
  },
  {
    key: 'trustProxy',
    flag: '--trust-proxy',
    env: ['SATTRACK_TRUST_PROXY'],
    valueName: '',
    description: 'identify clients by the last X-Forwarded-For address (only behind a proxy that sets it)',
    default: false,
    isSwitch: true,
    parse: switchValue,
  },
  {
    key: 'shutdownTimeoutMs',
    flag: '--shutdown-timeout',
    env: ['SATTRACK_SHUTDOWN_TIMEOUT'],
    valueName: 'DURATION',
    description: 'on SIGTERM/SIGINT, how long requests in flight may take to finish before the exit (0s to 5m)',
    default: 10_000,
    defaultText: '10s',
    parse: duration(0, 5 * 60_000, '0s and 5m'),
  },
  {
    key: 'maxStreams',
    flag: '--max-streams',
    env: ['SATTRACK_MAX_STREAMS'],
    valueName: 'N',
    description: 'live position streams open at once; one more is refused with 503',
    default: 100,
    parse: count(1, 100_000),
  },
  {
    key: 'maxStreamsPerClient',
    flag: '--max-streams-per-client',
    env: ['SATTRACK_MAX_STREAMS_PER_CLIENT'],
    valueName: 'N',
    description: 'live position streams one client address may hold open; one more is refused with 429',
    default: null,
    defaultText: 'a quarter of --max-streams',
    parse: count(1, 100_000),
  },
  {
    key: 'maxElementAgeMs',
    flag: '--max-element-age',
    env: ['SATTRACK_MAX_ELEMENT_AGE'],
    valueName: 'DURATION',
    description: "give positions only within this time of an element set's epoch (off: no limit; decay and implausible heights are refused still)",
    default: 30 * 24 * HOUR_MS,
    defaultText: '30d',
    parse: elementAge,
  },
  {
    key: 'compat',
    flag: '--compat',
    env: ['SATTRACK_COMPAT'],
    valueName: 'FAMILIES',
    description: `answer these other APIs' routes too, from the same data (see docs/compat.md): a comma-separated list of ${COMPAT_FAMILIES.join(', ')}, or none`,
    default: [...COMPAT_FAMILIES],
    defaultText: COMPAT_FAMILIES.join(','),
    parse: parseCompatFamilies,
  },
  {
    key: 'workers',
    flag: '--workers',
    env: ['SATTRACK_WORKERS'],
    valueName: 'N',
    description:
      'processes serving the port, each a whole copy of the service (~85 MB at rest with the 12k catalogue): a number from 1 to 64, or auto (one per core the process may run on); above 1, a supervisor process refreshes and reloads for all of them and replaces any that dies (see "Using every core")',
    default: 1,
    parse: workerCount,
  },
  {
    key: 'benchRoutes',
    flag: '--bench-routes',
    env: ['SATTRACK_BENCH_ROUTES'],
    valueName: '',
    description: 'mount the reference routes make bench compares with (/bench/hello, /bench/plain-nearby)',
    default: false,
    isSwitch: true,
    parse: (raw) => (raw === 'true' ? true : raw === 'false' ? false : new Error('must be true or false')),
  },
]

export function helpText(): string {
  const width = Math.max(...OPTIONS.map((o) => `  ${o.flag} ${o.valueName}`.length)) + 2
  const rows = OPTIONS.map((o) => {
    const left = `  ${o.flag} ${o.valueName}`.padEnd(width)
    const shown = o.defaultText ?? (o.default === null ? null : String(o.default))
    const dflt = shown === null ? '' : ` (default: ${shown})`
    return `${left}${o.description}${dflt}\n${' '.repeat(width)}env: ${o.env.join(', ')}`
  })
  return [
    `sattrack ${VERSION}: satellite tracking HTTP service`,
    '',
    'Usage: sattrack [options]',
    '',
    ...rows,
    `${'  --help'.padEnd(width)}print this help and exit`,
    `${'  --version'.padEnd(width)}print the version, build commit and embedded snapshot stamp, and exit`,
    '',
    'Flags win over environment variables. Durations: 90s, 30m, 6h, 1d.',
  ].join('\n')
}

/** Reads flags (`--name value` or `--name=value`) over environment variables over defaults. */
export function parseConfig(argv: readonly string[], env: Record<string, string | undefined>): ConfigResult {
  // --help and --version answer whatever else is on the command line or in the environment.
  if (argv.some((a) => a === '--help' || a === '-h')) return { kind: 'help', text: helpText() }
  if (argv.some((a) => a === '--version' || a === '-v')) return { kind: 'version', text: `sattrack ${VERSION}` }
  const config = Object.fromEntries(OPTIONS.map((o) => [o.key, o.default])) as unknown as Config
  const set = (o: OptionSpec, raw: string, where: string): string | null => {
    const value = o.parse(raw)
    if (value instanceof Error) return `${where}: ${value.message} (got "${raw}")`
    ;(config as unknown as Record<string, unknown>)[o.key] = value
    return null
  }
  const givenByFlag = new Set<string>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const eq = arg.indexOf('=')
    const flag = eq > 0 ? arg.slice(0, eq) : arg
    const o = OPTIONS.find((x) => x.flag === flag)
    if (!o && ['--help', '-h', '--version', '-v'].includes(flag)) return { kind: 'error', message: `${flag} takes no value (got "${arg.slice(eq + 1)}")` }
    if (!o) return { kind: 'error', message: `unknown option ${flag} (see --help)` }
    const raw = eq > 0 ? arg.slice(eq + 1) : o.isSwitch ? 'true' : argv[++i]
    if (raw === undefined || (eq < 0 && raw.startsWith('--'))) return { kind: 'error', message: `${flag} needs a value` }
    const error = set(o, raw, flag)
    if (error) return { kind: 'error', message: error }
    givenByFlag.add(o.key)
  }
  // A flag wins over its variable: the variable is not even read (one that could not be used does not stop a start the flag settles).
  for (const o of OPTIONS) {
    if (givenByFlag.has(o.key)) continue
    const name = o.env.find((n) => env[n] !== undefined && env[n] !== '')
    if (name) {
      const error = set(o, env[name]!, name)
      if (error) return { kind: 'error', message: error }
    }
  }
  if (config.dataDir === null) config.dataDir = defaultDataDir(env)
  if (config.refreshUrl && isCelestrakHost(config.refreshUrl) && config.refreshIntervalMs < CELESTRAK_MIN_INTERVAL_MS) {
    return {
      kind: 'error',
      message: `--refresh-interval must be at least 2h when refreshing from ${new URL(config.refreshUrl).hostname} (CelesTrak's usage policy); got ${config.refreshIntervalMs / 1000}s`,
    }
  }
  if (config.maxStreamsPerClient !== null && config.maxStreamsPerClient > config.maxStreams) {
    // A client's share above the whole cap would never be reached: most likely the two were swapped.
    return { kind: 'error', message: `--max-streams-per-client must be at most --max-streams (${config.maxStreams}); got ${config.maxStreamsPerClient}` }
  }
  return { kind: 'run', config }
}
