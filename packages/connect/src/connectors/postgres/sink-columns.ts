/**
 * What the PostgreSQL sink writes for a connect field: the column type it creates
 * (schema.evolution=basic) and the parameter value it binds. Debezium's logical types become
 * PostgreSQL's own types again (MicroTimestamp -> timestamp, Date -> date, …), so a table
 * copied by the source connector and this sink reads the same as the original.
 */
import type { Field, Schema } from '../../api/schema.js'

/** Type names the source connector puts in `__debezium.source.column.type` that may be used as written. */
const SOURCE_TYPES = new Set([
  'BOOL',
  'BYTEA',
  'CHAR',
  'NAME',
  'INT2',
  'INT4',
  'INT8',
  'OID',
  'TEXT',
  'JSON',
  'JSONB',
  'FLOAT4',
  'FLOAT8',
  'BPCHAR',
  'VARCHAR',
  'DATE',
  'TIME',
  'TIMESTAMP',
  'TIMESTAMPTZ',
  'NUMERIC',
  'UUID',
])

const BY_NAME: Record<string, string> = {
  'io.debezium.time.MicroTimestamp': 'timestamp',
  'io.debezium.time.Timestamp': 'timestamp',
  'org.apache.kafka.connect.data.Timestamp': 'timestamp',
  'io.debezium.time.Date': 'date',
  'org.apache.kafka.connect.data.Date': 'date',
  'io.debezium.time.MicroTime': 'time',
  'io.debezium.time.ZonedTimestamp': 'timestamptz',
  'io.debezium.data.Json': 'jsonb',
  'io.debezium.data.Uuid': 'uuid',
}

const BY_TYPE: Record<string, string> = {
  int8: 'smallint',
  int16: 'smallint',
  int32: 'integer',
  int64: 'bigint',
  float32: 'real',
  float64: 'double precision',
  boolean: 'boolean',
  string: 'text',
  bytes: 'bytea',
  array: 'jsonb',
  map: 'jsonb',
  struct: 'jsonb',
}

export function columnType(f: Field | Schema): string {
  const source = f.parameters?.['__debezium.source.column.type']
  if (source !== undefined && SOURCE_TYPES.has(source)) return source.toLowerCase()
  if (f.name !== undefined && BY_NAME[f.name] !== undefined) return BY_NAME[f.name]!
  return BY_TYPE[f.type] ?? 'text'
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}

/** Microseconds since the epoch -> `2024-01-02T03:04:05.123456` (no zone: a timestamp column). */
export function microsToIso(us: number | bigint): string {
  const micros = BigInt(us)
  let ms = micros / 1000n
  let rem = micros - ms * 1000n
  if (rem < 0n) {
    ms -= 1n
    rem += 1000n
  }
  return `${new Date(Number(ms)).toISOString().slice(0, 23)}${pad(Number(rem), 3)}`
}

function microsOfDay(us: number): string {
  const s = Math.floor(us / 1_000_000)
  return `${pad(Math.floor(s / 3600), 2)}:${pad(Math.floor(s / 60) % 60, 2)}:${pad(s % 60, 2)}.${pad(us % 1_000_000, 6)}`
}

/** A connect value as a query parameter for a column of `columnType(schema)`. */
export function paramValue(schema: Schema | undefined, v: unknown): unknown {
  if (v === null || v === undefined) return null
  switch (schema?.name) {
    case 'io.debezium.time.MicroTimestamp':
      return microsToIso(v as number | bigint)
    case 'io.debezium.time.Timestamp':
    case 'org.apache.kafka.connect.data.Timestamp':
      return new Date(Number(v)).toISOString().slice(0, 23)
    case 'io.debezium.time.Date':
    case 'org.apache.kafka.connect.data.Date':
      return new Date(Number(v) * 86_400_000).toISOString().slice(0, 10)
    case 'io.debezium.time.MicroTime':
      return microsOfDay(Number(v))
    default:
  }
  if (typeof v === 'bigint') return v.toString()
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return Buffer.from(v)
  if (typeof v === 'object')
    return JSON.stringify(v, (_k, x: unknown) =>
      typeof x === 'bigint' ? x.toString() : Buffer.isBuffer(x) ? x.toString('base64') : x,
    )
  return v
}
