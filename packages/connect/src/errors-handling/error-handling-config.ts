/**
 * A connector's error-handling fields, as Kafka Connect names them: `errors.tolerance`,
 * `errors.retry.timeout`, `errors.retry.delay.max.ms`, `errors.log.enable`,
 * `errors.log.include.messages`, and for sink connectors the dead-letter queue
 * (`errors.deadletterqueue.topic.name`, `…topic.replication.factor`, `…context.headers.enable`).
 */
import { parseConfig, type ConfigField, type ConnectorConfig } from '../api/config-def.js'
import { configError } from '../errors.js'

export type ErrorTolerance = 'none' | 'all'

export interface ErrorHandlingConfig {
  readonly tolerance: ErrorTolerance
  /** How long a failing operation is retried, in ms: 0 never, -1 without end. */
  readonly retryTimeoutMs: number
  /** The longest backoff between two attempts. */
  readonly retryMaxDelayMs: number
  readonly logEnabled: boolean
  readonly logIncludeMessages: boolean
  /** Sinks only; undefined: no dead-letter queue. */
  readonly deadLetterTopic: string | undefined
  /** For creating the dead-letter topic: -1 is the broker's default. */
  readonly deadLetterReplicationFactor: number
  readonly deadLetterContextHeaders: boolean
}

const GROUP = 'Error Handling'

export const ERROR_HANDLING_CONFIG: readonly ConfigField[] = [
  {
    name: 'errors.tolerance',
    type: 'string',
    default: 'none',
    oneOf: ['none', 'all'],
    group: GROUP,
    doc: 'none: a record that fails conversion or a transform fails the task; all: it is skipped (and dead-lettered by a sink).',
  },
  {
    name: 'errors.retry.timeout',
    type: 'long',
    default: '0',
    group: GROUP,
    doc: 'How long, in ms, a retriable failure is retried; 0 no retries, -1 without end.',
    check: (v) => ((v as number) < -1 ? 'must be -1 (no end), 0 (no retries) or a positive number of ms' : undefined),
  },
  {
    name: 'errors.retry.delay.max.ms',
    type: 'long',
    default: '60000',
    group: GROUP,
    doc: 'The longest wait between two attempts (the waits double from 300 ms).',
    check: (v) => ((v as number) < 0 ? 'must not be negative' : undefined),
  },
  { name: 'errors.log.enable', type: 'boolean', default: 'false', group: GROUP, doc: 'Log each failure.' },
  {
    name: 'errors.log.include.messages',
    type: 'boolean',
    default: 'false',
    group: GROUP,
    doc: 'Include the failing record’s key and value in the log (they may hold private data).',
  },
]

export const DEAD_LETTER_QUEUE_CONFIG: readonly ConfigField[] = [
  {
    name: 'errors.deadletterqueue.topic.name',
    type: 'string',
    default: '',
    group: GROUP,
    doc: 'Sinks: the topic records skipped by errors.tolerance=all are written to; empty: none.',
  },
  {
    name: 'errors.deadletterqueue.topic.replication.factor',
    type: 'int',
    default: '3',
    group: GROUP,
    doc: 'The replication factor the dead-letter topic is created with; -1: the broker’s default.',
    check: (v) => ((v as number) === 0 || (v as number) < -1 ? 'must be -1 or at least 1' : undefined),
  },
  {
    name: 'errors.deadletterqueue.context.headers.enable',
    type: 'boolean',
    default: 'false',
    group: GROUP,
    doc: 'Add __connect.errors.* headers describing the failure to each dead-lettered record.',
  },
]

/**
 * The parsed fields; CONFIG naming the field on a bad one. A source connector's dead-letter
 * fields are not read (as in Kafka, they belong to sinks). `sinkTopics`: the topics a sink
 * reads, which the dead-letter topic may not be one of.
 */
export function parseErrorHandlingConfig(
  config: ConnectorConfig,
  kind: 'source' | 'sink',
  sinkTopics: readonly string[] = [],
): ErrorHandlingConfig {
  const c = parseConfig(
    kind === 'sink' ? [...ERROR_HANDLING_CONFIG, ...DEAD_LETTER_QUEUE_CONFIG] : ERROR_HANDLING_CONFIG,
    config,
  )
  const dlq = kind === 'sink' ? String(c['errors.deadletterqueue.topic.name']).trim() : ''
  if (dlq !== '' && sinkTopics.includes(dlq))
    throw configError(
      'errors.deadletterqueue.topic.name',
      `"${dlq}" is a topic the connector reads; a dead-letter topic must be another`,
    )
  return {
    tolerance: c['errors.tolerance'] as ErrorTolerance,
    retryTimeoutMs: c['errors.retry.timeout'] as number,
    retryMaxDelayMs: c['errors.retry.delay.max.ms'] as number,
    logEnabled: c['errors.log.enable'] as boolean,
    logIncludeMessages: c['errors.log.include.messages'] as boolean,
    deadLetterTopic: dlq === '' ? undefined : dlq,
    deadLetterReplicationFactor: kind === 'sink' ? (c['errors.deadletterqueue.topic.replication.factor'] as number) : 3,
    deadLetterContextHeaders: kind === 'sink' && (c['errors.deadletterqueue.context.headers.enable'] as boolean),
  }
}
