/**
 * Debezium's change-event envelope for a PostgreSQL table: the record key (a struct of the
 * primary-key columns), the value `{before, after, source, op, ts_ms}` and their Connect schemas,
 * named as Debezium names them (`<prefix>.<schema>.<table>.Key`, `.Value`, `.Envelope`,
 * `io.debezium.connector.postgresql.Source`), so the JSON converter with schemas writes the
 * shape consumers of Debezium read. A delete is followed by a tombstone (same key, null value
 * without a schema) so compaction can drop the key.
 */
import type { Field, Schema } from '../../api/schema.js'
import { columnField, columnValue } from './pg-types.js'

export const CONNECTOR_VERSION = '1.0.0-sluice'

export interface TableColumn {
  readonly name: string
  readonly typeOid: number
  readonly typeName?: string
}

/** One shape of a table (a new Relation message after ALTER TABLE makes a new one). */
export interface TableShape {
  readonly schema: string
  readonly table: string
  readonly columns: readonly TableColumn[]
  /** The key columns' names (replica identity: the primary key by default). */
  readonly keyColumns: readonly string[]
  readonly topic: string
  readonly keySchema: Schema | undefined
  readonly rowSchema: Schema
  readonly envelopeSchema: Schema
}

export const SOURCE_SCHEMA: Schema = {
  type: 'struct',
  name: 'io.debezium.connector.postgresql.Source',
  optional: false,
  fields: [
    { field: 'version', type: 'string', optional: false },
    { field: 'connector', type: 'string', optional: false },
    { field: 'name', type: 'string', optional: false },
    { field: 'ts_ms', type: 'int64', optional: false },
    {
      field: 'snapshot',
      type: 'string',
      optional: true,
      name: 'io.debezium.data.Enum',
      version: 1,
      parameters: { allowed: 'true,last,false,incremental' },
      default: 'false',
    },
    { field: 'db', type: 'string', optional: false },
    { field: 'schema', type: 'string', optional: false },
    { field: 'table', type: 'string', optional: false },
    { field: 'txId', type: 'int64', optional: true },
    { field: 'lsn', type: 'int64', optional: true },
  ],
}

export function tableShape(
  prefix: string,
  schema: string,
  table: string,
  columns: readonly TableColumn[],
  keyColumns: readonly string[],
): TableShape {
  const base = `${prefix}.${schema}.${table}`
  const keys = new Set(keyColumns)
  const fields: Field[] = columns.map((c) => columnField(c.name, c.typeOid, keys.has(c.name), c.typeName))
  const rowSchema: Schema = { type: 'struct', name: `${base}.Value`, optional: true, fields }
  const keySchema: Schema | undefined =
    keyColumns.length === 0
      ? undefined
      : {
          type: 'struct',
          name: `${base}.Key`,
          optional: false,
          fields: fields.filter((f) => keys.has(f.field)).map((f) => ({ ...f, optional: false })),
        }
  const envelopeSchema: Schema = {
    type: 'struct',
    name: `${base}.Envelope`,
    optional: false,
    version: 1,
    fields: [
      { ...rowSchema, field: 'before' },
      { ...rowSchema, field: 'after' },
      { ...SOURCE_SCHEMA, field: 'source' },
      { field: 'op', type: 'string', optional: false },
      { field: 'ts_ms', type: 'int64', optional: true },
    ],
  }
  return { schema, table, columns, keyColumns, topic: base, keySchema, rowSchema, envelopeSchema }
}

/** A row (column name -> text, null, or undefined for an unchanged TOAST value) as connect data. */
export function rowValue(
  shape: TableShape,
  text: Readonly<Record<string, string | null | undefined>>,
): Record<string, unknown> {
  const row: Record<string, unknown> = {}
  for (const c of shape.columns) row[c.name] = columnValue(c.typeOid, text[c.name])
  return row
}

export function keyValue(shape: TableShape, row: Readonly<Record<string, unknown>>): Record<string, unknown> | null {
  if (shape.keySchema === undefined) return null
  const key: Record<string, unknown> = {}
  for (const k of shape.keyColumns) key[k] = row[k] ?? null
  return key
}

export interface SourceInfo {
  readonly db: string
  readonly name: string
  readonly tsMs: number
  readonly snapshot: 'true' | 'last' | 'false'
  readonly txId: number | null
  readonly lsn: number | null
}

export function sourceValue(shape: TableShape, s: SourceInfo): Record<string, unknown> {
  return {
    version: CONNECTOR_VERSION,
    connector: 'postgresql',
    name: s.name,
    ts_ms: s.tsMs,
    snapshot: s.snapshot,
    db: s.db,
    schema: shape.schema,
    table: shape.table,
    txId: s.txId,
    lsn: s.lsn,
  }
}

export type Op = 'r' | 'c' | 'u' | 'd' | 't'

/** The envelope value of one change. */
export function envelope(
  shape: TableShape,
  op: Op,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  source: SourceInfo,
): Record<string, unknown> {
  return { before, after, source: sourceValue(shape, source), op, ts_ms: Date.now() }
}
