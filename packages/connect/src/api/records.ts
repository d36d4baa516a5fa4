/**
 * The records that pass between connectors and the worker. Keys and values are connect data
 * (plain JSON-like values: objects for structs, bigint or number for int64, Buffer for bytes),
 * each with an optional schema; the worker's converters turn them into the bytes of a Sluice
 * record and back.
 */
import type { Schema } from './schema.js'

export interface ConnectHeader {
  readonly key: string
  /** Bytes as stored in the record, or a string (written as UTF-8). */
  readonly value: Buffer | string | null
}

export interface ConnectRecord {
  /** The topic the record goes to (source) or came from (sink). */
  readonly topic: string
  /** Source: a fixed partition, else the producer's partitioner picks it by key. */
  readonly partition?: number
  readonly key: unknown
  readonly keySchema?: Schema
  readonly value: unknown
  readonly valueSchema?: Schema
  /** Milliseconds since the epoch; source records without one get the producer's clock. */
  readonly timestamp?: number
  readonly headers: readonly ConnectHeader[]
}

/**
 * What a source task produces: a record, and where in the external system it came from. The
 * worker stores the newest `sourceOffset` per `sourcePartition` (in the offsets topic) once the
 * record is acknowledged, and gives it back to the task when it starts again.
 */
export interface SourceRecord extends ConnectRecord {
  /** Identifies a stream in the source system (a file, a table, a replication slot). */
  readonly sourcePartition: Readonly<Record<string, unknown>>
  /** The position in that stream just after this record (a line number, an LSN). */
  readonly sourceOffset: Readonly<Record<string, unknown>>
}

/** What a sink task is given: a record read from a topic, with its position there. */
export interface SinkRecord extends ConnectRecord {
  readonly partition: number
  readonly offset: bigint
  readonly timestamp: number
}
