/**
 * InsertField (Kafka's `InsertField$Key` / `InsertField$Value`): adds fields to a struct or map
 * key or value: the record's topic, partition, offset (sink records only) and timestamp, and a
 * static field with a fixed string. A field name ending in `!` is a required field of the new
 * schema, `?` (or nothing) an optional one. Tombstones pass unchanged.
 */
import { parseConfig, type ConfigField, type ConnectorConfig } from '../api/config-def.js'
import type { ConnectRecord } from '../api/records.js'
import type { Field, Schema } from '../api/schema.js'
import type { Transformation } from '../api/transform.js'
import { ConnectError, configError } from '../errors.js'
import {
  PART_FIELD,
  SchemaCache,
  isFieldMap,
  notAStruct,
  readPart,
  resolvePart,
  writePart,
  type RecordPart,
} from './record-part.js'

const TIMESTAMP_SCHEMA_NAME = 'org.apache.kafka.connect.data.Timestamp'

interface InsertSpec {
  readonly name: string
  readonly optional: boolean
}

function spec(raw: unknown): InsertSpec | undefined {
  const s = String(raw ?? '').trim()
  if (s === '') return undefined
  if (s.endsWith('!')) return { name: s.slice(0, -1), optional: false }
  if (s.endsWith('?')) return { name: s.slice(0, -1), optional: true }
  return { name: s, optional: true }
}

const fieldDoc = (what: string) => `Field name for ${what}; suffix ! for a required field, ? for an optional one.`

export const INSERT_FIELD_CONFIG: readonly ConfigField[] = [
  PART_FIELD,
  { name: 'topic.field', type: 'string', default: '', doc: fieldDoc('the topic') },
  { name: 'partition.field', type: 'string', default: '', doc: fieldDoc('the partition') },
  { name: 'offset.field', type: 'string', default: '', doc: fieldDoc('the offset (sink connectors only)') },
  { name: 'timestamp.field', type: 'string', default: '', doc: fieldDoc('the record timestamp') },
  { name: 'static.field', type: 'string', default: '', doc: fieldDoc('the static value') },
  { name: 'static.value', type: 'string', default: '', doc: 'The static field’s value.' },
]

type Inserted = { readonly spec: InsertSpec; readonly schema: Schema; readonly read: (r: ConnectRecord) => unknown }

export class InsertField<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  readonly configDef = INSERT_FIELD_CONFIG
  #part: RecordPart = 'value'
  #fields: Inserted[] = []
  readonly #schemas = new SchemaCache()

  constructor(readonly fixedPart?: RecordPart) {}

  configure(config: ConnectorConfig): void {
    this.#part = resolvePart(this.fixedPart, config)
    const c = parseConfig(INSERT_FIELD_CONFIG, config)
    const fields: Inserted[] = []
    const add = (name: string, type: Schema, read: (r: ConnectRecord) => unknown) => {
      const s = spec(c[name])
      if (s !== undefined) fields.push({ spec: s, schema: { ...type, optional: s.optional }, read })
    }
    add('topic.field', { type: 'string' }, (r) => r.topic)
    add('partition.field', { type: 'int32' }, (r) => r.partition ?? null)
    add('offset.field', { type: 'int64' }, (r) => {
      const offset = (r as { offset?: unknown }).offset
      if (typeof offset !== 'bigint')
        throw new ConnectError('TRANSFORM', 'InsertField: offset.field works on sink records only', {
          details: { topic: r.topic },
        })
      return Number.isSafeInteger(Number(offset)) ? Number(offset) : offset
    })
    add('timestamp.field', { type: 'int64', name: TIMESTAMP_SCHEMA_NAME }, (r) => r.timestamp ?? null)
    const staticValue = String(c['static.value'])
    add('static.field', { type: 'string' }, () => staticValue)
    if (c['static.field'] !== '' && staticValue === '')
      throw configError('static.value', 'static.field is set, so static.value must be too')
    const names = new Set<string>()
    for (const f of fields) {
      if (names.has(f.spec.name))
        throw configError('static.field', `two inserted fields are both named "${f.spec.name}"`)
      names.add(f.spec.name)
    }
    this.#fields = fields
  }

  apply(record: R): R {
    const data = readPart(record, this.#part)
    if (data.value === null || data.value === undefined) return record
    if (this.#fields.length === 0) return record
    if (data.schema !== undefined) {
      if (data.schema.type !== 'struct' || !isFieldMap(data.value))
        throw notAStruct('InsertField', this.#part, data, record)
      const schema = this.#schemas.get(data.schema, (s) => this.#withFields(s))
      const value: Record<string, unknown> = { ...data.value }
      for (const f of this.#fields) value[f.spec.name] = f.read(record)
      return writePart(record, this.#part, value, schema)
    }
    if (!isFieldMap(data.value)) throw notAStruct('InsertField', this.#part, data, record)
    const value: Record<string, unknown> = { ...data.value }
    for (const f of this.#fields) value[f.spec.name] = f.read(record)
    return writePart(record, this.#part, value, undefined)
  }

  #withFields(schema: Schema): Schema {
    const inserted = new Set(this.#fields.map((f) => f.spec.name))
    const kept = (schema.fields ?? []).filter((f) => !inserted.has(f.field))
    const added: Field[] = this.#fields.map((f) => ({ ...f.schema, field: f.spec.name }))
    return { ...schema, fields: [...kept, ...added] }
  }
}
