/**
 * MaskField (Kafka's `MaskField$Key` / `MaskField$Value`): replaces the listed fields' values
 * with the empty value of their type (false, 0, "", empty bytes, [], {}), or with `replacement`
 * for string and number fields (read as the field's number type). The type comes from the schema
 * when there is one, else from the value. Null fields and tombstones stay as they are; the
 * schema does not change.
 */
import { parseConfig, type ConfigField, type ConnectorConfig } from '../api/config-def.js'
import type { ConnectRecord } from '../api/records.js'
import type { SchemaType } from '../api/schema.js'
import type { Transformation } from '../api/transform.js'
import { ConnectError } from '../errors.js'
import { PART_FIELD, isFieldMap, notAStruct, readPart, resolvePart, writePart, type RecordPart } from './record-part.js'

export const MASK_FIELD_CONFIG: readonly ConfigField[] = [
  PART_FIELD,
  {
    name: 'fields',
    type: 'list',
    doc: 'The fields to mask.',
    check: (v) => ((v as string[]).length === 0 ? 'name at least one field' : undefined),
  },
  {
    name: 'replacement',
    type: 'string',
    default: '',
    doc: 'The value masked string and number fields get; empty: the type’s empty value.',
  },
]

const INT_RANGE: Partial<Record<SchemaType, readonly [number, number]>> = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  int32: [-(2 ** 31), 2 ** 31 - 1],
}

function typeOfValue(v: unknown): SchemaType | undefined {
  if (typeof v === 'boolean') return 'boolean'
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64'
  if (typeof v === 'bigint') return 'int64'
  if (typeof v === 'string') return 'string'
  if (v instanceof Uint8Array) return 'bytes'
  if (Array.isArray(v)) return 'array'
  // Without a schema an object is a map (Connect's schemaless data has no structs).
  if (v instanceof Map || isFieldMap(v)) return 'map'
  return undefined
}

function emptyValue(type: SchemaType, original: unknown): unknown {
  switch (type) {
    case 'boolean':
      return false
    case 'int8':
    case 'int16':
    case 'int32':
    case 'float32':
    case 'float64':
      return 0
    case 'int64':
      return typeof original === 'bigint' ? 0n : 0
    case 'string':
      return ''
    case 'bytes':
      return Buffer.alloc(0)
    case 'array':
      return []
    case 'map':
      return original instanceof Map ? new Map() : {}
    case 'struct':
      return undefined
  }
}

export class MaskField<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  readonly configDef = MASK_FIELD_CONFIG
  #part: RecordPart = 'value'
  #fields: readonly string[] = []
  #replacement: string | undefined

  constructor(readonly fixedPart?: RecordPart) {}

  configure(config: ConnectorConfig): void {
    this.#part = resolvePart(this.fixedPart, config)
    const c = parseConfig(MASK_FIELD_CONFIG, config)
    this.#fields = c.fields as string[]
    this.#replacement = c.replacement === '' ? undefined : String(c.replacement)
  }

  apply(record: R): R {
    const data = readPart(record, this.#part)
    if (data.value === null || data.value === undefined) return record
    if (!isFieldMap(data.value) || (data.schema !== undefined && data.schema.type !== 'struct'))
      throw notAStruct('MaskField', this.#part, data, record)
    const value: Record<string, unknown> = { ...data.value }
    for (const name of this.#fields) {
      let type: SchemaType | undefined
      if (data.schema !== undefined) {
        type = data.schema.fields?.find((f) => f.field === name)?.type
        if (type === undefined) throw this.#error(record, `the schema has no field "${name}"`)
      }
      const original = value[name]
      if (original === null || original === undefined) continue
      type ??= typeOfValue(original)
      value[name] = this.#masked(record, name, type, original)
    }
    return writePart(record, this.#part, value, data.schema)
  }

  #masked(record: ConnectRecord, name: string, type: SchemaType | undefined, original: unknown): unknown {
    if (type === undefined || type === 'struct')
      throw this.#error(record, `cannot mask "${name}", a ${type ?? typeof original}`)
    const r = this.#replacement
    if (r === undefined) return emptyValue(type, original)
    if (type === 'string') return r
    if (type === 'float32' || type === 'float64') {
      const n = Number(r)
      if (!Number.isFinite(n)) throw this.#error(record, `replacement "${r}" is not a number for "${name}"`)
      return n
    }
    if (type === 'int8' || type === 'int16' || type === 'int32' || type === 'int64') {
      if (!/^-?\d+$/.test(r.trim())) throw this.#error(record, `replacement "${r}" is not an integer for "${name}"`)
      const big = BigInt(r.trim())
      const range = INT_RANGE[type]
      if (range !== undefined && (big < BigInt(range[0]) || big > BigInt(range[1])))
        throw this.#error(record, `replacement "${r}" is out of range for ${type} field "${name}"`)
      return Number.isSafeInteger(Number(big)) ? Number(big) : big
    }
    throw this.#error(record, `replacement works on string and number fields; "${name}" is a ${type}`)
  }

  #error(record: ConnectRecord, message: string): ConnectError {
    return new ConnectError('TRANSFORM', `MaskField: ${message}`, { details: { topic: record.topic } })
  }
}
