/** Flags and environment variables → one validated Config; the --help text. */
import { VERSION } from './version.ts'

export interface Config {
  port: number
  host: string
  /** A snapshot file or folder to load in place of the embedded one. */
  snapshot: string | null
  corsOrigin: string
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
  parse: (raw: string) => Config[keyof Config] | Error
}

const port = (raw: string) => {
  if (!/^\d+$/.test(raw) || +raw > 65535) return new Error('must be an integer between 0 and 65535')
  return +raw
}
const nonEmpty = (raw: string) => (raw.trim() === '' ? new Error('must not be empty') : raw)

const OPTIONS: readonly OptionSpec[] = [
  { key: 'port', flag: '--port', env: ['SATTRACK_PORT', 'PORT'], valueName: 'N', description: 'TCP port to listen on', default: 3000, parse: port },
  { key: 'host', flag: '--host', env: ['SATTRACK_HOST', 'HOST'], valueName: 'H', description: 'address to listen on', default: '0.0.0.0', parse: nonEmpty },
  {
    key: 'snapshot',
    flag: '--snapshot',
    env: ['SATTRACK_SNAPSHOT'],
    valueName: 'PATH',
    description: 'element sets to load instead of the embedded snapshot: a <group>.tle file, a folder of them, or a snapshot.json bundle',
    default: null,
    parse: nonEmpty,
  },
  {
    key: 'corsOrigin',
    flag: '--cors-origin',
    env: ['SATTRACK_CORS_ORIGIN'],
    valueName: 'ORIGIN',
    description: 'value of Access-Control-Allow-Origin',
    default: '*',
    parse: nonEmpty,
  },
]

export function helpText(): string {
  const rows = OPTIONS.map((o) => {
    const left = `  ${o.flag} ${o.valueName}`.padEnd(24)
    const dflt = o.default === null ? '' : ` (default: ${o.default})`
    return `${left}${o.description}${dflt}\n${' '.repeat(24)}env: ${o.env.join(', ')}`
  })
  return [
    `sattrack ${VERSION}: satellite tracking HTTP service`,
    '',
    'Usage: sattrack [options]',
    '',
    ...rows,
    `${'  --help'.padEnd(24)}print this help and exit`,
    `${'  --version'.padEnd(24)}print the version and exit`,
    '',
    'Flags win over environment variables.',
  ].join('\n')
}

/** Reads flags (`--name value` or `--name=value`) over environment variables over defaults. */
export function parseConfig(argv: readonly string[], env: Record<string, string | undefined>): ConfigResult {
  const config = Object.fromEntries(OPTIONS.map((o) => [o.key, o.default])) as unknown as Config
  const set = (o: OptionSpec, raw: string, where: string): string | null => {
    const value = o.parse(raw)
    if (value instanceof Error) return `${where}: ${value.message} (got "${raw}")`
    ;(config as unknown as Record<string, unknown>)[o.key] = value
    return null
  }
  for (const o of OPTIONS) {
    const name = o.env.find((n) => env[n] !== undefined && env[n] !== '')
    if (name) {
      const error = set(o, env[name]!, name)
      if (error) return { kind: 'error', message: error }
    }
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--help' || arg === '-h') return { kind: 'help', text: helpText() }
    if (arg === '--version' || arg === '-v') return { kind: 'version', text: `sattrack ${VERSION}` }
    const eq = arg.indexOf('=')
    const flag = eq > 0 ? arg.slice(0, eq) : arg
    const o = OPTIONS.find((x) => x.flag === flag)
    if (!o) return { kind: 'error', message: `unknown option ${flag} (see --help)` }
    const raw = eq > 0 ? arg.slice(eq + 1) : argv[++i]
    if (raw === undefined) return { kind: 'error', message: `${flag} needs a value` }
    const error = set(o, raw, flag)
    if (error) return { kind: 'error', message: error }
  }
  return { kind: 'run', config }
}
