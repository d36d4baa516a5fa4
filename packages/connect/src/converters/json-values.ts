/**
 * Connect data to JSON values and back, following a schema (the JSON converter with schemas).
 * The representation of connect data is the one docs/connect.md §Converters describes: structs
 * as plain objects, int64 as number (safe range) or bigint, bytes as Buffer, maps with string
 * keys as plain objects and other maps as Map. A value that does not fit its schema is a
 * ConnectError 'CONVERTER' naming where in the value it is.
 */
import type { Schema } from '../api/schema.js'
import { ConnectError } from '../errors.js'
import { setOwn, type JsonValue } from './json-text.js'

const INT_RANGE: Readonly<Record<string, readonly [number, number]>> = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  int32: [-(2 ** 31), 2 ** 31 - 1],
}
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

function bad(path: string, message: string): never {
  throw new ConnectError('CONVERTER', `${path}: ${message}`, { details: { path } })
}

function describe(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (v instanceof Uint8Array) return 'bytes'
  return `a ${typeof v}`
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) && !(v instanceof Map)
}

/** A value absent or null: the schema's default, null when optional, else an error. */
function nullOrDefault(schema: Schema, path: string): unknown {
  if (schema.default !== undefined) return schema.default
  if (schema.optional === true) return null
  return bad(path, `null for a required ${schema.type}`)
}

function checkedInt64(v: unknown, path: string): number | bigint {
  if (typeof v === 'bigint') {
    if (v < INT64_MIN || v > INT64_MAX) bad(path, `${v} is out of range for int64`)
    return Number.isSafeInteger(Number(v)) && BigInt(Number(v)) === v ? Number(v) : v
  }
  if (typeof v === 'number' && Number.isInteger(v)) {
    if (!Number.isSafeInteger(v)) bad(path, `${v} is not exact as a number; pass an int64 this large as a bigint`)
    return v
  }
  return bad(path, `expected an int64, got ${describe(v)}`)
}

function checkedInt(schema: Schema, v: unknown, path: string): number {
  const n = typeof v === 'bigint' ? Number(v) : v
  const [lo, hi] = INT_RANGE[schema.type]!
  if (typeof n !== 'number' || !Number.isInteger(n)) return bad(path, `expected an ${schema.type}, got ${describe(v)}`)
  if (n < lo || n > hi) bad(path, `${String(v)} is out of range for ${schema.type}`)
  return n
}

/** Connect data (with its schema) as the JSON value the envelope's payload holds. */
export function dataToJson(schema: Schema, value: unknown, path = 'payload'): unknown {
  if (value === null || value === undefined) {
    const v = nullOrDefault(schema, path)
    return v === null ? null : dataToJson({ ...schema, default: undefined }, v, path)
  }
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
      return checkedInt(schema, value, path)
    case 'int64':
      return checkedInt64(value, path)
    case 'float32':
    case 'float64':
      if (typeof value === 'number') return value
      if (typeof value === 'bigint') return Number(value)
      return bad(path, `expected a ${schema.type}, got ${describe(value)}`)
    case 'boolean':
      if (typeof value !== 'boolean') bad(path, `expected a boolean, got ${describe(value)}`)
      return value
    case 'string':
      if (typeof value !== 'string') bad(path, `expected a string, got ${describe(value)}`)
      return value
    case 'bytes':
      if (!(value instanceof Uint8Array)) bad(path, `expected bytes (a Buffer), got ${describe(value)}`)
      return value
    case 'array': {
      if (!Array.isArray(value)) bad(path, `expected an array, got ${describe(value)}`)
      const items = schema.items!
      return value.map((item, i) => dataToJson(items, item, `${path}[${i}]`))
    }
    case 'map':
      return mapToJson(schema, value, path)
    case 'struct': {
      if (!isPlainObject(value)) bad(path, `expected a struct (an object), got ${describe(value)}`)
      const out: Record<string, unknown> = {}
      for (const f of schema.fields ?? []) out[f.field] = dataToJson(f, value[f.field], `${path}.${f.field}`)
      return out
    }
  }
}

function mapToJson(schema: Schema, value: unknown, path: string): unknown {
  const keys = schema.keys!
  const values = schema.values!
  let entries: [unknown, unknown][]
  if (value instanceof Map) entries = [...value.entries()]
  else if (isPlainObject(value)) entries = Object.entries(value)
  else return bad(path, `expected a map, got ${describe(value)}`)
  if (keys.type === 'string') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of entries) {
      if (typeof k !== 'string') bad(path, `a map with string keys has the key ${describe(k)}`)
      setOwn(out, k, dataToJson(values, v, `${path}.${k}`))
    }
    return out
  }
  // Not string keys: pairs, as Connect's JSON writes such maps.
  return entries.map(([k, v], i) => [dataToJson(keys, k, `${path}[${i}].key`), dataToJson(values, v, `${path}[${i}]`)])
}

/** The envelope payload's JSON value as connect data of `schema`. */
export function jsonToData(schema: Schema, json: JsonValue | undefined, path = 'payload'): unknown {
  if (json === null || json === undefined) return nullOrDefault(schema, path)
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
      return checkedInt(schema, json, path)
    case 'int64':
      return checkedInt64(json, path)
    case 'float32':
    case 'float64':
      if (typeof json === 'number') return json
      if (typeof json === 'bigint') return Number(json)
      return bad(path, `expected a ${schema.type}, got ${describe(json)}`)
    case 'boolean':
      if (typeof json !== 'boolean') bad(path, `expected a boolean, got ${describe(json)}`)
      return json
    case 'string':
      if (typeof json !== 'string') bad(path, `expected a string, got ${describe(json)}`)
      return json
    case 'bytes':
      if (typeof json !== 'string') bad(path, `expected bytes (a base64 string), got ${describe(json)}`)
      return Buffer.from(json, 'base64')
    case 'array': {
      if (!Array.isArray(json)) bad(path, `expected an array, got ${describe(json)}`)
      const items = schema.items!
      return json.map((item, i) => jsonToData(items, item, `${path}[${i}]`))
    }
    case 'map':
      return jsonToMap(schema, json, path)
    case 'struct': {
      if (!isPlainObject(json)) bad(path, `expected a struct (an object), got ${describe(json)}`)
      const out: Record<string, unknown> = {}
      for (const f of schema.fields ?? []) out[f.field] = jsonToData(f, json[f.field], `${path}.${f.field}`)
      return out
    }
  }
}

function jsonToMap(schema: Schema, json: JsonValue, path: string): unknown {
  const keys = schema.keys!
  const values = schema.values!
  if (keys.type === 'string' && isPlainObject(json)) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(json)) setOwn(out, k, jsonToData(values, v, `${path}.${k}`))
    return out
  }
  if (!Array.isArray(json)) return bad(path, `expected a map, got ${describe(json)}`)
  const out = new Map<unknown, unknown>()
  json.forEach((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) bad(`${path}[${i}]`, 'a map entry must be a [key, value] pair')
    out.set(jsonToData(keys, pair[0], `${path}[${i}].key`), jsonToData(values, pair[1], `${path}[${i}]`))
  })
  if (keys.type === 'string') return Object.fromEntries(out)
  return out
}
