/**
 * The part of a record a field transform works on: its key or its value (Kafka's `$Key` and
 * `$Value` class variants). A transform named without the variant (`InsertField`) reads it from
 * its `part` property (`key` or `value`, default `value`); with the variant, `part` may only
 * repeat it. Also the helpers every field transform shares: reading the part with its schema,
 * writing it back, and what a struct or map value must look like.
 */
import type { ConfigField, ConnectorConfig } from '../api/config-def.js'
import type { ConnectRecord } from '../api/records.js'
import type { Schema } from '../api/schema.js'
import { ConnectError, configError } from '../errors.js'

export type RecordPart = 'key' | 'value'

export const PART_FIELD: ConfigField = {
  name: 'part',
  type: 'string',
  default: 'value',
  oneOf: ['key', 'value'],
  doc: 'Which part of the record to change, when the type does not say ($Key, $Value).',
}

/** The part a transform works on: its class variant's, or the `part` property. */
export function resolvePart(fixed: RecordPart | undefined, config: ConnectorConfig): RecordPart {
  const asked = config.part
  if (asked !== undefined && asked !== 'key' && asked !== 'value')
    throw configError('part', `must be key or value, got "${asked}"`)
  if (fixed !== undefined) {
    if (asked !== undefined && asked !== fixed)
      throw configError('part', `the type already says ${fixed}; part=${asked} contradicts it`)
    return fixed
  }
  return asked ?? 'value'
}

export interface PartData {
  readonly value: unknown
  readonly schema: Schema | undefined
}

export function readPart(record: ConnectRecord, part: RecordPart): PartData {
  return part === 'key'
    ? { value: record.key, schema: record.keySchema }
    : { value: record.value, schema: record.valueSchema }
}

/** The record with its key or value (and that part's schema) replaced; other members kept. */
export function writePart<R extends ConnectRecord>(
  record: R,
  part: RecordPart,
  value: unknown,
  schema: Schema | undefined,
): R {
  if (part === 'key') return { ...record, key: value, keySchema: schema }
  return { ...record, value, valueSchema: schema }
}

export function isFieldMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) && !(v instanceof Map)
}

/** A TRANSFORM error for a record whose part is not what the transform works on. */
export function notAStruct(transform: string, part: RecordPart, data: PartData, record: ConnectRecord): ConnectError {
  const what =
    data.schema !== undefined
      ? `a ${data.schema.type} schema`
      : `a ${Array.isArray(data.value) ? 'array' : typeof data.value}`
  return new ConnectError(
    'TRANSFORM',
    `${transform}: the record's ${part} must be a struct (with a schema) or a map (without), got ${what}`,
    { details: { topic: record.topic, part } },
  )
}

/** A schema-keyed cache: the transformed schema is computed once per input schema. */
export class SchemaCache {
  readonly #map = new WeakMap<Schema, Schema>()
  get(schema: Schema, make: (s: Schema) => Schema): Schema {
    let out = this.#map.get(schema)
    if (out === undefined) {
      out = make(schema)
      this.#map.set(schema, out)
    }
    return out
  }
}
