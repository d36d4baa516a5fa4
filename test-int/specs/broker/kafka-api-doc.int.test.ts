/**
 * docs/kafka-api.md §2 lists every Kafka API a broker answers with its versions; this keeps the
 * table and the broker's handler registry (what ApiVersions advertises) the same, in both
 * directions, so the page can be trusted.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { kafkaHandlers } from '@sluice/broker/internal'

const PAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/kafka-api.md')
const ROW = /^\| (\d+) \| (\w+) \| (\d+)–(\d+) \| (\d+)\+ \|/

/** "key name min-max flexible+" for every row of the table, and for every registered handler. */
function tableRows(markdown: string): string[] {
  return markdown
    .split('\n')
    .map((line) => ROW.exec(line))
    .filter((m) => m !== null)
    .map((m) => `${m[1]} ${m[2]} ${m[3]}-${m[4]} ${m[5]}+`)
}

describe('docs/kafka-api.md', () => {
  it('lists exactly the APIs and versions the broker answers', () => {
    const registry = [...kafkaHandlers()]
      .sort((a, b) => a.codec.apiKey - b.codec.apiKey)
      .map(
        (h) =>
          `${h.codec.apiKey} ${h.codec.name} ${Math.max(h.minVersion, h.codec.minVersion)}-${Math.min(h.maxVersion, h.codec.maxVersion)} ${h.codec.flexibleFrom}+`,
      )
    const rows = tableRows(readFileSync(PAGE, 'utf8'))
    expect(rows.length).toBeGreaterThanOrEqual(25)
    expect(rows).toEqual(registry)
  })
})
