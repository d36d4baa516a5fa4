/**
 * ReplaceField (Kafka's `ReplaceField$Key` / `ReplaceField$Value`): keeps only the `include`d
 * fields (all when empty), drops the `exclude`d ones, then renames (`renames=old:new,…`). The
 * schema of a struct changes the same way. Kafka's older names for the lists (`whitelist`,
 * `blacklist`) are read too. Tombstones pass unchanged.
 */
import { parseConfig, type ConfigField, type ConnectorConfig } from '../api/config-def.js'
import type { ConnectRecord } from '../api/records.js'
import type { Schema } from '../api/schema.js'
import type { Transformation } from '../api/transform.js'
import { configError } from '../errors.js'
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

export const REPLACE_FIELD_CONFIG: readonly ConfigField[] = [
  PART_FIELD,
  { name: 'exclude', type: 'list', default: '', doc: 'Fields to drop (they win over include).' },
  { name: 'include', type: 'list', default: '', doc: 'Fields to keep; empty keeps all.' },
  { name: 'renames', type: 'list', default: '', doc: 'Renames, as old:new pairs.' },
]

export class ReplaceField<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  readonly configDef = REPLACE_FIELD_CONFIG
  #part: RecordPart = 'value'
  #exclude = new Set<string>()
  #include = new Set<string>()
  #renames = new Map<string, string>()
  readonly #schemas = new SchemaCache()

  constructor(readonly fixedPart?: RecordPart) {}

  configure(config: ConnectorConfig): void {
    this.#part = resolvePart(this.fixedPart, config)
    const withOldNames: Record<string, string> = { ...config }
    if (config.exclude === undefined && config.blacklist !== undefined) withOldNames.exclude = config.blacklist
    if (config.include === undefined && config.whitelist !== undefined) withOldNames.include = config.whitelist
    const c = parseConfig(REPLACE_FIELD_CONFIG, withOldNames)
    this.#exclude = new Set(c.exclude as string[])
    this.#include = new Set(c.include as string[])
    const renames = new Map<string, string>()
    for (const pair of c.renames as string[]) {
      const parts = pair.split(':').map((s) => s.trim())
      if (parts.length !== 2 || parts[0] === '' || parts[1] === '')
        throw configError('renames', `"${pair}" is not old:new`)
      if (renames.has(parts[0]!)) throw configError('renames', `"${parts[0]}" is renamed twice`)
      renames.set(parts[0]!, parts[1]!)
    }
    this.#renames = renames
  }

  #keeps(name: string): boolean {
    return !this.#exclude.has(name) && (this.#include.size === 0 || this.#include.has(name))
  }

  #renamed(name: string): string {
    return this.#renames.get(name) ?? name
  }

  apply(record: R): R {
    const data = readPart(record, this.#part)
    if (data.value === null || data.value === undefined) return record
    if (!isFieldMap(data.value) || (data.schema !== undefined && data.schema.type !== 'struct'))
      throw notAStruct('ReplaceField', this.#part, data, record)
    const value: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(data.value)) if (this.#keeps(k)) value[this.#renamed(k)] = v
    const schema = data.schema === undefined ? undefined : this.#schemas.get(data.schema, (s) => this.#replaced(s))
    return writePart(record, this.#part, value, schema)
  }

  #replaced(schema: Schema): Schema {
    const fields = (schema.fields ?? [])
      .filter((f) => this.#keeps(f.field))
      .map((f) => ({ ...f, field: this.#renamed(f.field) }))
    return { ...schema, fields }
  }
}
