/**
 * What the generated message codecs (kafka/messages/, scripts/gen-kafka-messages.mjs) share: the
 * values of absent fields and the null checks Kafka's own generated code makes.
 */
import type { KafkaReader } from './kafka-reader.js'
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
