/**
 * Connect schemas as Kafka's JsonConverter writes them in the envelope's `"schema"`: the same
 * member names (`type`, `optional`, `name`, `version`, `doc`, `parameters`, `default`, `fields`
 * with `field`, `items`, `keys`, `values`), and the JSON names of the float types: Connect's
 * float32 and float64 are "float" and "double" there.
 */
import type { Field, Schema, SchemaType } from '../api/schema.js'
import { ConnectError } from '../errors.js'
import type { JsonValue } from './json-text.js'

const TO_JSON_TYPE: Readonly<Record<SchemaType, string>> = {
  int8: 'int8',
  int16: 'int16',
  int32: 'int32',
  int64: 'int64',
  float32: 'float',
  float64: 'double',
  boolean: 'boolean',
  string: 'string',
  bytes: 'bytes',
  array: 'array',
  map: 'map',
  struct: 'struct',
}

const FROM_JSON_TYPE: ReadonlyMap<string, SchemaType> = new Map<string, SchemaType>([
  ...Object.entries(TO_JSON_TYPE).map(([k, v]) => [v, k as SchemaType] as const),
  // Accepted on read too: a schema written by a tool that used Connect's own type names.
  ['float32', 'float32'],
  ['float64', 'float64'],
])

/** The envelope form of a schema. `defaultJson` writes a default value in JSON form. */
export function schemaToJson(schema: Schema, defaultJson: (s: Schema, v: unknown) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { type: TO_JSON_TYPE[schema.type], optional: schema.optional === true }
  if (schema.type === 'struct')
    out.fields = (schema.fields ?? []).map((f) => ({ ...schemaToJson(f, defaultJson), field: f.field }))
  if (schema.type === 'array') {
    if (schema.items === undefined) throw new ConnectError('CONVERTER', 'an array schema needs items')
    out.items = schemaToJson(schema.items, defaultJson)
  }
  if (schema.type === 'map') {
    if (schema.keys === undefined || schema.values === undefined)
      throw new ConnectError('CONVERTER', 'a map schema needs keys and values')
    out.keys = schemaToJson(schema.keys, defaultJson)
    out.values = schemaToJson(schema.values, defaultJson)
  }
  if (schema.name !== undefined) out.name = schema.name
  if (schema.version !== undefined) out.version = schema.version
  if (schema.doc !== undefined) out.doc = schema.doc
  if (schema.parameters !== undefined) out.parameters = schema.parameters
  if (schema.default !== undefined) out.default = defaultJson(schema, schema.default)
  return out
}

function isObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * A schema from its envelope form; 'CONVERTER' naming the path on a malformed one.
 * `defaultData` reads a default value of that schema.
 */
export function schemaFromJson(
  json: JsonValue,
  defaultData: (s: Schema, v: JsonValue) => unknown,
  path = 'schema',
): Schema {
  if (!isObject(json)) throw new ConnectError('CONVERTER', `${path} must be an object`)
  const typeName = json.type
  const type = typeof typeName === 'string' ? FROM_JSON_TYPE.get(typeName) : undefined
  if (type === undefined)
    throw new ConnectError('CONVERTER', `${path}.type: unknown schema type ${JSON.stringify(typeName)}`)
  const s: { -readonly [K in keyof Field]?: Field[K] } = { type, optional: json.optional === true }
  if (typeof json.name === 'string') s.name = json.name
  if (typeof json.version === 'number') s.version = json.version
  if (typeof json.doc === 'string') s.doc = json.doc
  if (isObject(json.parameters)) {
    const params: Record<string, string> = {}
    for (const [k, v] of Object.entries(json.parameters)) params[k] = String(v)
    s.parameters = params
  }
  if (type === 'struct') {
    const fields = json.fields
    if (!Array.isArray(fields)) throw new ConnectError('CONVERTER', `${path}.fields: a struct schema needs fields`)
    s.fields = fields.map((f, i) => {
      const p = `${path}.fields[${i}]`
      if (!isObject(f) || typeof f.field !== 'string') throw new ConnectError('CONVERTER', `${p}.field: missing`)
      return { ...schemaFromJson(f, defaultData, p), field: f.field }
    })
  }
  if (type === 'array') {
    if (json.items === undefined) throw new ConnectError('CONVERTER', `${path}.items: an array schema needs items`)
    s.items = schemaFromJson(json.items, defaultData, `${path}.items`)
  }
  if (type === 'map') {
    if (json.keys === undefined || json.values === undefined)
      throw new ConnectError('CONVERTER', `${path}: a map schema needs keys and values`)
    s.keys = schemaFromJson(json.keys, defaultData, `${path}.keys`)
    s.values = schemaFromJson(json.values, defaultData, `${path}.values`)
  }
  if (json.default !== undefined && json.default !== null) s.default = defaultData(s as Schema, json.default)
  return s as Schema
}
