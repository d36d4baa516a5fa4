/**
 * How a key or value becomes bytes and back. A Serde is pure: the same value always gives the
 * same bytes (state stores and changelogs compare keys as bytes, and windows and joins find a
 * key again by its bytes). `null` bytes stand for "no key" or a tombstone and are never handed
 * to `deserialize` for a value the caller expects to exist; a serde that cannot read its input
 * throws StreamsError with code 'SERDE' (the runtime then applies the deserialization-error
 * policy instead of crashing the task).
 */
export interface Serde<T> {
  /** A name for errors and `describe()`, for instance 'string' or 'json'. */
  readonly name: string
  serialize(value: T, topic: string): Buffer
  deserialize(data: Buffer, topic: string): T
}
