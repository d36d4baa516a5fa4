import { describe, expect, it } from 'vitest'
import { parsePrometheusText, sumOf } from './prometheus-text.js'

const TEXT = `# HELP sluice_topic_bytes_in_total record-batch bytes appended
# TYPE sluice_topic_bytes_in_total counter
sluice_topic_bytes_in_total{topic="orders"} 1200
sluice_topic_bytes_in_total{topic="a \\"quoted\\" name, with = signs"} 34.5
sluice_topic_records_in_total{topic="orders"} 12 1700000000000
sluice_log_size_bytes{topic="orders",partition="3"} 4096
process_cpu_seconds_total 1.5
sluice_topic_bytes_in_total{topic="bad"} NaN
garbage line without a value
`

describe('parsePrometheusText', () => {
  it('keeps the wanted metrics with their labels, summing over label sets', () => {
    const parsed = parsePrometheusText(
      TEXT,
      new Set(['sluice_topic_bytes_in_total', 'sluice_topic_records_in_total', 'sluice_log_size_bytes']),
    )
    expect(parsed.has('process_cpu_seconds_total')).toBe(false)
    expect(parsed.get('sluice_topic_bytes_in_total')!.map((s) => [s.labels.topic, s.value])).toEqual([
      ['orders', 1200],
      ['a "quoted" name, with = signs', 34.5],
    ])
    expect(sumOf(parsed, 'sluice_topic_bytes_in_total')).toBe(1234.5)
    expect(sumOf(parsed, 'sluice_topic_records_in_total')).toBe(12)
    expect(parsed.get('sluice_log_size_bytes')![0]!.labels).toEqual({ topic: 'orders', partition: '3' })
    expect(sumOf(parsed, 'sluice_topic_bytes_out_total')).toBe(0)
  })
})

describe('parsePrometheusText: names', () => {
  it('reads the first line too, and never takes a longer name for the wanted one', () => {
    const text = 'm_total 1\nm_total_extra 5\nm_total{a="x"} 2\n# m_total 100\nother 3'
    const parsed = parsePrometheusText(text, new Set(['m_total']))
    expect(parsed.get('m_total')!.map((s) => s.value)).toEqual([1, 2])
    expect(parsePrometheusText('', new Set(['m_total'])).size).toBe(0)
  })
})
