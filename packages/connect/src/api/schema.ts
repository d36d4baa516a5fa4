/**
 * Connect's data schemas: the shape a converter with schemas (the JSON envelope
 * `{"schema": …, "payload": …}`) writes beside each value, and what a source connector such as
 * PostgreSQL change capture describes its rows with. The same type names and fields as Kafka
 * Connect's JSON schema envelope, so a consumer written for Kafka Connect reads them.
 */
export type SchemaType =
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'float32'
  | 'float64'
  | 'boolean'
  | 'string'
  | 'bytes'
  | 'array'
  | 'map'
  | 'struct'

export interface Schema {
  readonly type: SchemaType
  readonly optional?: boolean
  /** A logical name (e.g. `io.debezium.time.MicroTimestamp`, or a struct's full name). */
  readonly name?: string
  readonly version?: number
  readonly doc?: string
  readonly parameters?: Readonly<Record<string, string>>
  readonly default?: unknown
  /** struct: its fields, in order. */
  readonly fields?: readonly Field[]
  /** array: the element schema. */
  readonly items?: Schema
  /** map: key and value schemas. */
  readonly keys?: Schema
  readonly values?: Schema
}

export interface Field extends Schema {
  readonly field: string
}

/** A struct schema from its fields (a helper for connectors that build schemas). */
export function structSchema(name: string, fields: readonly Field[], optional = false): Schema {
  return { type: 'struct', name, optional, fields }
}
