/**
 * Converters turn a record's key or value between connect data (value + optional schema) and
 * bytes, set per worker (`key.converter`, `value.converter`) and per connector.
 */
import type { Schema } from './schema.js'

export interface SchemaAndValue {
  readonly schema?: Schema
  readonly value: unknown
}

export interface Converter {
  /** null value (a tombstone) gives null bytes. */
  fromConnectData(topic: string, data: SchemaAndValue): Buffer | null
  /** null bytes give a null value. Throws ConnectError 'CONVERTER' on bytes it cannot read. */
  toConnectData(topic: string, bytes: Buffer | null): SchemaAndValue
}
