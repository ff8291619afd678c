/**
 * Structured logs on stdout, one line per event: a JSON object (`time`, `level`,
 * `msg`, then the fields) by default, or a line for people (`--log-format pretty`).
 */

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
export const LOG_FORMATS = ['json', 'pretty'] as const
export type LogFormat = (typeof LOG_FORMATS)[number]

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

/** A value as `pretty` shows it: strings bare unless they need quotes, the rest as JSON. */
function prettyValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value)
  return JSON.stringify(value) ?? String(value)
}

/** One log line (without the newline). */
export function formatLine(format: LogFormat, time: Date, level: LogLevel, msg: string, fields?: Record<string, unknown>): string {
  if (format === 'json') return JSON.stringify({ time: time.toISOString(), level, msg, ...fields })
  const pairs = Object.entries(fields ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}=${prettyValue(v)}`)
    .join('')
  return `${time.toISOString()} ${level.toUpperCase().padEnd(5)} ${msg}${pairs}`
}

/** Where lines go; stdout unless a test swaps it. */
type Sink = (line: string) => void
const stdout: Sink = (line) => process.stdout.write(`${line}\n`)

let threshold = RANK.info
let format: LogFormat = 'json'
let sink: Sink = stdout
/** Fields every line carries (a worker process: `worker`), before its own. */
let context: Record<string, unknown> | undefined

function write(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
  if (RANK[level] < threshold) return
  sink(formatLine(format, new Date(), level, msg, context ? { ...context, ...fields } : fields))
}

export const log = {
  setLevel(level: LogLevel): void {
    threshold = RANK[level]
  },
  /** Level and format from the configuration; `sink` replaces stdout (tests); `context`: fields on every line (null: none). */
  configure(options: { level?: LogLevel; format?: LogFormat; sink?: Sink | null; context?: Record<string, unknown> | null }): void {
    if (options.level) threshold = RANK[options.level]
    if (options.format) format = options.format
    if (options.sink !== undefined) sink = options.sink ?? stdout
    if (options.context !== undefined) context = options.context ?? undefined
  },
  enabled: (level: LogLevel) => RANK[level] >= threshold,
  /** An access-log line (`--access-log`): written at level info whatever `--log-level` says. */
  access: (msg: string, fields: Record<string, unknown>) => sink(formatLine(format, new Date(), 'info', msg, context ? { ...context, ...fields } : fields)),
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
}
