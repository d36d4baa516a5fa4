/**
 * PostgreSQL column types as connect data: the field schema of a column (by its type OID) and
 * its value from PostgreSQL's text form. Both the snapshot (a query whose values are read as
 * text) and the stream (pgoutput's tuples, text form) go through `columnValue`, so a row reads
 * the same either way. The sessions run with DateStyle=ISO and TimeZone=UTC
 * (`PG_SESSION_OPTIONS`), which the timestamp parsing relies on. The choices (numeric as a
 * string, timestamps as Debezium's MicroTimestamp, timestamptz as ZonedTimestamp text) are in
 * docs/decisions.md ("PostgreSQL change capture (issue 18)").
 */
import type { Field, Schema } from '../../api/schema.js'

/** `options` for every connection: the text forms columnValue reads. */
export const PG_SESSION_OPTIONS = '-c DateStyle=ISO -c TimeZone=UTC -c IntervalStyle=iso_8601 -c extra_float_digits=1'

interface PgType {
  readonly name: string
  readonly schema: Schema
  readonly parse: (text: string) => unknown
}

const int = (text: string): unknown => Number(text)
const int64 = (text: string): unknown => {
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : BigInt(text)
}
const float = (text: string): unknown => (text === 'NaN' ? Number.NaN : Number(text))
const same = (text: string): unknown => text

/** `2024-01-02 03:04:05.123456` (no zone, or `+00` with TimeZone=UTC) -> microseconds since the epoch. */
export function timestampMicros(text: string): number | bigint {
  if (text === 'infinity') return Number.MAX_SAFE_INTEGER
  if (text === '-infinity') return Number.MIN_SAFE_INTEGER
  const m = /^(\d{4,})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?/.exec(text)
  if (m === null) throw new Error(`not a timestamp: ${text}`)
  const bc = text.endsWith(' BC')
  const year = bc ? 1 - Number(m[1]) : Number(m[1])
  const ms = Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]))
  const micros = BigInt(ms) * 1000n + BigInt((m[7] ?? '').padEnd(6, '0') || '0')
  const n = Number(micros)
  return Number.isSafeInteger(n) ? n : micros
}

/** `2024-01-02` -> days since the epoch (Debezium's io.debezium.time.Date). */
export function dateDays(text: string): number {
  const m = /^(\d{4,})-(\d\d)-(\d\d)/.exec(text)
  if (m === null) throw new Error(`not a date: ${text}`)
  return Math.floor(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 86_400_000)
}

/** `03:04:05.5` -> microseconds since midnight (io.debezium.time.MicroTime). */
export function timeMicros(text: string): number {
  const m = /^(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?/.exec(text)
  if (m === null) throw new Error(`not a time: ${text}`)
  const micros =
    BigInt((Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3])) * 1_000_000) +
    BigInt((m[4] ?? '').padEnd(6, '0') || '0')
  return Number(micros)
}

/** `2024-01-02 03:04:05.123+00` -> `2024-01-02T03:04:05.123Z` (io.debezium.time.ZonedTimestamp). */
export function zonedTimestamp(text: string): string {
  if (text === 'infinity' || text === '-infinity') return text
  const m = /^(\d{4,}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d(?:\.\d+)?)([+-]\d\d(?::?\d\d)?)?/.exec(text)
  if (m === null) throw new Error(`not a timestamptz: ${text}`)
  const zone = m[3] === undefined || /^[+-]00(:?00)?$/.test(m[3]) ? 'Z' : m[3]
  return `${m[1]}T${m[2]}${zone}`
}

/** `\x0102` -> the bytes. */
function bytea(text: string): Buffer {
  if (text.startsWith('\\x')) return Buffer.from(text.slice(2), 'hex')
  throw new Error('bytea not in hex form (bytea_output=escape is not read)')
}

const T = (name: string, schema: Schema, parse: (t: string) => unknown): PgType => ({ name, schema, parse })

/** By type OID (pg_type.oid of the built-in types). */
const BY_OID = new Map<number, PgType>([
  [16, T('bool', { type: 'boolean' }, (t) => t === 't')],
  [17, T('bytea', { type: 'bytes' }, bytea)],
  [18, T('char', { type: 'string' }, same)],
  [19, T('name', { type: 'string' }, same)],
  [20, T('int8', { type: 'int64' }, int64)],
  [21, T('int2', { type: 'int16' }, int)],
  [23, T('int4', { type: 'int32' }, int)],
  [25, T('text', { type: 'string' }, same)],
  [26, T('oid', { type: 'int64' }, int64)],
  [114, T('json', { type: 'string', name: 'io.debezium.data.Json', version: 1 }, same)],
  [3802, T('jsonb', { type: 'string', name: 'io.debezium.data.Json', version: 1 }, same)],
  [700, T('float4', { type: 'float32' }, float)],
  [701, T('float8', { type: 'float64' }, float)],
  [1042, T('bpchar', { type: 'string' }, same)],
  [1043, T('varchar', { type: 'string' }, same)],
  [1082, T('date', { type: 'int32', name: 'io.debezium.time.Date', version: 1 }, dateDays)],
  [1083, T('time', { type: 'int64', name: 'io.debezium.time.MicroTime', version: 1 }, timeMicros)],
  [1114, T('timestamp', { type: 'int64', name: 'io.debezium.time.MicroTimestamp', version: 1 }, timestampMicros)],
  [1184, T('timestamptz', { type: 'string', name: 'io.debezium.time.ZonedTimestamp', version: 1 }, zonedTimestamp)],
  [1700, T('numeric', { type: 'string' }, same)],
  [2950, T('uuid', { type: 'string', name: 'io.debezium.data.Uuid', version: 1 }, same)],
])

/** Any other type (arrays, enums, ranges, intervals, geometry): its text form. */
const FALLBACK = T('text', { type: 'string' }, same)

function typeOf(oid: number): PgType {
  return BY_OID.get(oid) ?? FALLBACK
}

/**
 * The field schema of a column. Key columns are required; the others optional, since pgoutput's
 * Relation message does not say which columns are NOT NULL (and a dropped NOT NULL would
 * otherwise change the schema). `__debezium.source.column.type` names the PostgreSQL type (as
 * Debezium's `column.propagate.source.type` does), which the sink uses to create columns.
 */
export function columnField(name: string, typeOid: number, isKey: boolean, typeName?: string): Field {
  const t = typeOf(typeOid)
  return {
    ...t.schema,
    field: name,
    optional: !isKey,
    parameters: { '__debezium.source.column.type': (typeName ?? t.name).toUpperCase() },
  }
}

/** A column's connect value from its text form (null stays null). */
export function columnValue(typeOid: number, text: string | null | undefined): unknown {
  if (text === null || text === undefined) return null
  return typeOf(typeOid).parse(text)
}
