/**
 * What a failure is about and how it is reported: the consumed record (sinks) or the polled
 * record (sources), the stage it failed in (Kafka's stage names, which also go into the
 * dead-letter headers), and the `__connect.errors.*` headers a dead-lettered record carries.
 */
import type { RecordHeader } from '@sluice/client'
import type { SourceRecord } from '../api/records.js'
import { ConnectError } from '../errors.js'

/** Kafka Connect's stage names (the `__connect.errors.stage` header's values). */
export type ErrorStage =
  | 'KEY_CONVERTER'
  | 'VALUE_CONVERTER'
  | 'HEADER_CONVERTER'
  | 'TRANSFORMATION'
  | 'TASK_PUT'
  | 'TASK_POLL'
  | 'KAFKA_PRODUCE'
  | 'KAFKA_CONSUME'

/** A record as a sink's consumer read it: the bytes a dead-letter queue gets. */
export interface ConsumedRecord {
  readonly topic: string
  readonly partition: number
  readonly offset: bigint
  readonly timestamp?: number
  readonly key: Buffer | null
  readonly value: Buffer | null
  readonly headers: readonly RecordHeader[]
}

/** What the worker's dead-letter producer sends (partition: the producer's choice by key). */
export interface DeadLetterRecord {
  readonly topic: string
  readonly key: Buffer | null
  readonly value: Buffer | null
  readonly timestamp?: number
  readonly headers: readonly RecordHeader[]
}

export interface ErrorContext {
  readonly connector: string
  readonly taskId: number
  readonly stage: ErrorStage
  /** The class (or plugin name) that was running: a converter, a transform, the task. */
  readonly className: string
  readonly record: ConsumedRecord | SourceRecord | undefined
}

export function isSourceRecord(r: ConsumedRecord | SourceRecord | undefined): r is SourceRecord {
  return r !== undefined && 'sourcePartition' in r
}

const PREFIX = '__connect.errors.'

/** The failure as headers, named as Kafka Connect names them, values as UTF-8 text. */
export function errorContextHeaders(ctx: ErrorContext, error: unknown, record: ConsumedRecord): RecordHeader[] {
  const h = (name: string, value: string): RecordHeader => ({ key: PREFIX + name, value: Buffer.from(value, 'utf8') })
  const err = error instanceof Error ? error : new Error(String(error))
  const out = [
    h('topic', record.topic),
    h('partition', String(record.partition)),
    h('offset', record.offset.toString()),
    h('connector.name', ctx.connector),
    h('task.id', String(ctx.taskId)),
    h('stage', ctx.stage),
    h('class.name', ctx.className),
    h('exception.class.name', err instanceof ConnectError ? `ConnectError(${err.code})` : err.name),
  ]
  if (err.message !== '') out.push(h('exception.message', err.message))
  if (err.stack !== undefined) out.push(h('exception.stacktrace', err.stack))
  return out
}

/** The class that failed, when the caller did not say: a transform names itself in its error. */
export function failingClass(error: unknown, fallback: string): string {
  if (error instanceof ConnectError && typeof error.details.className === 'string') return error.details.className
  return fallback
}
