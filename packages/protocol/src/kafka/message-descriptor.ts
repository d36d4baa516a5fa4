/**
 * A Kafka message schema's shape as data (kafka/messages/descriptors.ts, generated): what the
 * codec tests walk to build samples and to encode them a second, independent way.
 */

/** [first, last] version; last null means "and every later one". */
export type VersionRange = readonly [number, number | null]

export interface FieldDescriptor {
  readonly name: string
  /** A primitive (int32, string, records, …), a struct's type name, or either with a [] prefix. */
  readonly type: string
  readonly versions: VersionRange | null
  readonly nullable?: VersionRange | null
  readonly tag?: number
  readonly tagged?: VersionRange | null
  readonly default?: string
  readonly fields?: readonly FieldDescriptor[]
}

export interface MessageDescriptor {
  readonly name: string
  readonly apiKey: number
  readonly valid: VersionRange
  readonly flexible: VersionRange | null
  readonly fields: readonly FieldDescriptor[]
}

export function inRange(r: VersionRange | null | undefined, v: number): boolean {
  return r != null && v >= r[0] && (r[1] === null || v <= r[1])
}
