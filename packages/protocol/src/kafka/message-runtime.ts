/**
 * What the generated message codecs (kafka/messages/, scripts/gen-kafka-messages.mjs) share: the
 * values of absent fields, the null checks Kafka's own generated code makes, and the item codecs
 * of primitive arrays.
 */
import type { KafkaReader } from './kafka-reader.js'
import type { KafkaWriter } from './kafka-writer.js'
import { KafkaWireError } from './kafka-wire-error.js'

export const EMPTY_BYTES: Buffer = Buffer.alloc(0)

/** A uuid field's default (Kafka's Uuid.ZERO_UUID). Never written to: callers get their own views. */
export const ZERO_UUID: Buffer = Buffer.alloc(16)

/** A non-nullable string, bytes or array field that arrived as null is a malformed request. */
export function required<T>(value: T | null, field: string, r: KafkaReader): T {
  if (value === null) throw new KafkaWireError(`non-nullable field ${field} was null`, r.position)
  return value
}

/** A field nullable only in some versions: null outside them is malformed. */
export function nullableIf<T>(nullableHere: boolean, value: T | null, field: string, r: KafkaReader): T | null {
  if (value === null && !nullableHere)
    throw new KafkaWireError(`field ${field} may not be null in this version`, r.position)
  return value
}

// Item readers and writers of primitive arrays, passed to KafkaReader.array/compactArray and
// KafkaWriter.array/compactArray with the version (which they ignore). The generator names
// only these; a schema that needs another adds it here (scripts/kafka-codegen/message-codec.mjs).

export function readInt32Item(r: KafkaReader, _v: number): number {
  return r.int32()
}

export function readInt64Item(r: KafkaReader, _v: number): bigint {
  return r.int64()
}

export function writeInt32Item(w: KafkaWriter, _v: number, x: number): void {
  w.int32(x)
}

export function writeInt64Item(w: KafkaWriter, _v: number, x: bigint): void {
  w.int64(x)
}

export function writeStringItemCompact(w: KafkaWriter, _v: number, x: string): void {
  w.compactString(x)
}

export function writeStringItemClassic(w: KafkaWriter, _v: number, x: string): void {
  w.string(x)
}
