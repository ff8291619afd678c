/** The Prometheus text format: HELP/TYPE lines, label escaping, cumulative histogram buckets, values. */
import { describe, expect, test } from 'bun:test'
import { CounterVec, formatValue, HistogramVec, quantileOfSorted, render } from '../../../src/http/plugins/prometheus.ts'

describe('render', () => {
  test('each family has HELP and TYPE, then its samples; the text ends with a newline', () => {
    const text = render([{ name: 'x_total', help: 'Things', type: 'counter', samples: [{ value: 3 }] }])
    expect(text).toBe('# HELP x_total Things\n# TYPE x_total counter\nx_total 3\n')
  })

  test('label values escape backslash, double quote and newline; HELP escapes backslash and newline', () => {
    const text = render([{ name: 'g', help: 'a\\b\nc', type: 'gauge', samples: [{ labels: { path: 'a"b\\c\nd' }, value: 1 }] }])
    expect(text).toContain('# HELP g a\\\\b\\nc\n')
    expect(text).toContain('g{path="a\\"b\\\\c\\nd"} 1\n')
  })

  test('special values as Prometheus spells them', () => {
    expect(formatValue(Number.NaN)).toBe('NaN')
    expect(formatValue(Number.POSITIVE_INFINITY)).toBe('+Inf')
    expect(formatValue(Number.NEGATIVE_INFINITY)).toBe('-Inf')
    expect(formatValue(0.25)).toBe('0.25')
    expect(formatValue(1e21)).toBe('1e+21')
  })
})

describe('CounterVec', () => {
  test('counts per label set', () => {
    const c = new CounterVec('req_total', 'Requests', ['route', 'status'])
    c.inc(['/a', '200'])
    c.inc(['/a', '200'])
    c.inc(['/b', '404'], 5)
    expect(render([c.family()])).toBe(
      '# HELP req_total Requests\n# TYPE req_total counter\nreq_total{route="/a",status="200"} 2\nreq_total{route="/b",status="404"} 5\n',
    )
  })
})

describe('HistogramVec', () => {
  test('buckets are cumulative and end with +Inf = count; sum and count follow', () => {
    const h = new HistogramVec('lat_seconds', 'Latency', ['route'], [0.1, 1])
    for (const v of [0.05, 0.1, 0.5, 3]) h.observe(['/a'], v)
    const lines = render([h.family()]).trim().split('\n').slice(2)
    expect(lines).toEqual([
      'lat_seconds_bucket{route="/a",le="0.1"} 2',
      'lat_seconds_bucket{route="/a",le="1"} 3',
      'lat_seconds_bucket{route="/a",le="+Inf"} 4',
      'lat_seconds_sum{route="/a"} 3.65',
      'lat_seconds_count{route="/a"} 4',
    ])
  })
})

describe('quantileOfSorted', () => {
  test('nearest rank; 0 and 1 are the extremes; NaN when empty', () => {
    const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    expect(quantileOfSorted(values, 0)).toBe(1)
    expect(quantileOfSorted(values, 0.5)).toBe(5)
    expect(quantileOfSorted(values, 0.9)).toBe(9)
    expect(quantileOfSorted(values, 1)).toBe(10)
    expect(quantileOfSorted([], 0.5)).toBeNaN()
  })
})
