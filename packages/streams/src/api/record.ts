/**
 * The record a processor sees: typed key and value, the record's timestamp (event time, ms
 * since the epoch, from the input record or the timestamp extractor) and its headers. Records
 * are immutable; `withKey` style helpers return new objects so a processor can forward a
 * changed copy while its parent keeps the original.
 */
export interface StreamHeader {
  readonly key: string
  readonly value: Buffer | null
}

export interface StreamRecord<K, V> {
  /** `null` when the input record had no key (Kafka's null key). */
  readonly key: K | null
  /** `null` is a tombstone (a delete in a table). */
  readonly value: V | null
  readonly timestamp: number
  readonly headers: readonly StreamHeader[]
}

/** Where the record being processed came from; absent for records made by a punctuation. */
export interface RecordMetadata {
  readonly topic: string
  readonly partition: number
  readonly offset: bigint
}

/** A key and the window it belongs to (windowed aggregations; `end` is exclusive). */
export interface Windowed<K> {
  readonly key: K
  readonly window: { readonly start: number; readonly end: number }
}
