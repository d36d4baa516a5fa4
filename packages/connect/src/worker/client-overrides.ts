/**
 * Per-connector client settings (`producer.override.<name>`, `consumer.override.<name>`), taken
 * only from an allow-list. Kafka Connect's default policy once let any connector config set any
 * client property, which is how a JNDI login module reached a worker (CVE-2023-25194); here a
 * connector can tune batching and delivery and nothing else, and a key outside the list is a
 * config error naming it.
 */
import type { ProducerOptions } from '@sluice/client'
import type { ConnectorConfig } from '../api/config-def.js'
import { configError } from '../errors.js'

const PRODUCER_OVERRIDES: Readonly<Record<string, (v: string, field: string) => Partial<ProducerOptions>>> = {
  acks: (v, field) => {
    if (v === 'all' || v === '-1') return { acks: 'all' }
    if (v === '1') return { acks: 1 }
    if (v === '0') return { acks: 0 }
    throw configError(field, `must be all, -1, 0 or 1, got "${v}"`)
  },
  'linger.ms': (v, field) => ({ lingerMs: int(v, field, 0) }),
  'batch.size': (v, field) => ({ batchBytes: int(v, field, 1) }),
  'compression.type': (v, field) => {
    if (!['none', 'gzip', 'snappy', 'lz4', 'zstd'].includes(v)) throw configError(field, `unknown compression "${v}"`)
    return { compression: v as ProducerOptions['compression'] }
  },
  'delivery.timeout.ms': (v, field) => ({ deliveryTimeoutMs: int(v, field, 1) }),
  'max.in.flight.requests.per.connection': (v, field) => ({ maxInFlight: int(v, field, 1) }),
}

const CONSUMER_OVERRIDES = new Set(['auto.offset.reset', 'max.poll.records', 'fetch.max.wait.ms'])

function int(v: string, field: string, min: number): number {
  const n = Number(v)
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < min)
    throw configError(field, `must be an integer >= ${min}, got "${v}"`)
  return n
}

export interface ClientOverrides {
  readonly producer: Partial<ProducerOptions>
  readonly consumer: Readonly<Record<string, string>>
}

/** The overrides of a connector config; ConnectError 'CONFIG' naming the first key not allowed. */
export function clientOverrides(config: ConnectorConfig): ClientOverrides {
  let producer: Partial<ProducerOptions> = {}
  const consumer: Record<string, string> = {}
  for (const [field, value] of Object.entries(config)) {
    if (field.startsWith('producer.override.')) {
      const name = field.slice('producer.override.'.length)
      const map = PRODUCER_OVERRIDES[name]
      if (map === undefined)
        throw configError(
          field,
          `not an allowed producer override (allowed: ${Object.keys(PRODUCER_OVERRIDES).join(', ')})`,
        )
      producer = { ...producer, ...map(value, field) }
    } else if (field.startsWith('consumer.override.')) {
      const name = field.slice('consumer.override.'.length)
      if (!CONSUMER_OVERRIDES.has(name))
        throw configError(field, `not an allowed consumer override (allowed: ${[...CONSUMER_OVERRIDES].join(', ')})`)
      consumer[name] = value
    } else if (field.startsWith('admin.override.')) {
      throw configError(field, 'admin client overrides are not allowed')
    }
  }
  return { producer, consumer }
}
