/**
 * The Prometheus text exposition format (version 0.0.4), and the two kinds of
 * series the service accumulates: labelled counters and labelled histograms.
 * Everything else on /metrics is read at scrape time (gauges, a summary).
 */

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

export type Labels = Readonly<Record<string, string>>

export interface Sample {
  /** Appended to the family name: `_bucket`, `_sum`, `_count`, or nothing. */
  suffix?: string
  labels?: Labels
  value: number
}

export interface Family {
  name: string
  help: string
  type: 'counter' | 'gauge' | 'histogram' | 'summary'
  samples: readonly Sample[]
}

const escapeHelp = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')
const escapeLabel = (text: string) => text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')

/** A sample value as Prometheus reads it (Go's ParseFloat): `+Inf`, `-Inf`, `NaN`, or a decimal. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN'
  if (value === Number.POSITIVE_INFINITY) return '+Inf'
  if (value === Number.NEGATIVE_INFINITY) return '-Inf'
  return String(value)
}

function formatLabels(labels: Labels | undefined): string {
  if (!labels) return ''
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`)
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`
}

/** The exposition text of `families`, each with its HELP and TYPE lines; ends with a newline. */
export function render(families: readonly Family[]): string {
  const lines: string[] = []
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`)
    for (const s of family.samples) lines.push(`${family.name}${s.suffix ?? ''}${formatLabels(s.labels)} ${formatValue(s.value)}`)
  }
  return `${lines.join('\n')}\n`
}

/** A key for a label set whose names are fixed by the series (values joined by a separator no value holds). */
const keyOf = (values: readonly string[]) => values.join('\u0000')

/** A monotonically increasing count per label set. */
export class CounterVec {
  readonly #values = new Map<string, { labels: Labels; value: number }>()

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}

  inc(labelValues: readonly string[], by = 1): void {
    const key = keyOf(labelValues)
    const entry = this.#values.get(key)
    if (entry) entry.value += by
    else this.#values.set(key, { labels: Object.fromEntries(this.labelNames.map((n, i) => [n, labelValues[i] ?? ''])), value: by })
  }

  family(): Family {
    return { name: this.name, help: this.help, type: 'counter', samples: [...this.#values.values()].map((e) => ({ labels: e.labels, value: e.value })) }
  }
}

/** Observations counted into cumulative buckets (upper bounds, ascending), per label set. */
export class HistogramVec {
  readonly #series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>()

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    readonly bounds: readonly number[],
  ) {}

  observe(labelValues: readonly string[], value: number): void {
    const key = keyOf(labelValues)
    let series = this.#series.get(key)
    if (!series) {
      series = {
        labels: Object.fromEntries(this.labelNames.map((n, i) => [n, labelValues[i] ?? ''])),
        counts: new Array(this.bounds.length).fill(0),
        sum: 0,
        count: 0,
      }
      this.#series.set(key, series)
    }
    // Counted in the first bucket that holds it; render() makes the counts cumulative.
    const i = this.bounds.findIndex((b) => value <= b)
    if (i >= 0) series.counts[i]! += 1
    series.sum += value
    series.count += 1
  }

  family(): Family {
    const samples: Sample[] = []
    for (const s of this.#series.values()) {
      let cumulative = 0
      this.bounds.forEach((bound, i) => {
        cumulative += s.counts[i]!
        samples.push({ suffix: '_bucket', labels: { ...s.labels, le: formatValue(bound) }, value: cumulative })
      })
      samples.push({ suffix: '_bucket', labels: { ...s.labels, le: '+Inf' }, value: s.count })
      samples.push({ suffix: '_sum', labels: s.labels, value: s.sum })
      samples.push({ suffix: '_count', labels: s.labels, value: s.count })
    }
    return { name: this.name, help: this.help, type: 'histogram', samples }
  }
}

/** The value at quantile `q` (0..1) of ascending `sorted` values, by nearest rank. */
export function quantileOfSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[index]!
}
