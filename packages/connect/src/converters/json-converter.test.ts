import { describe, expect, it } from 'vitest'
import type { Schema } from '../api/schema.js'
import { ConnectError } from '../errors.js'
import { JsonConverter } from './json-converter.js'

const rowSchema: Schema = {
  type: 'struct',
  name: 'shop.public.orders.Value',
  optional: false,
  fields: [
    { field: 'id', type: 'int64' },
    { field: 'qty', type: 'int32', optional: true },
    { field: 'price', type: 'float64' },
    { field: 'note', type: 'string', optional: true, default: 'none' },
    { field: 'blob', type: 'bytes', optional: true },
    { field: 'tags', type: 'array', items: { type: 'string' } },
    { field: 'attrs', type: 'map', keys: { type: 'string' }, values: { type: 'int32' }, optional: true },
    { field: 'byId', type: 'map', keys: { type: 'int32' }, values: { type: 'string' }, optional: true },
  ],
}

function caught(f: () => unknown): ConnectError {
  try {
    f()
  } catch (e) {
    if (e instanceof ConnectError) return e
    throw e
  }
  throw new Error('expected a ConnectError')
}

describe('JsonConverter with schemas (the default)', () => {
  const c = new JsonConverter()

  it("writes Kafka Connect's envelope: schema types, optional, name, fields with field, float64 as double", () => {
    const bytes = c.fromConnectData('t', {
      schema: rowSchema,
      value: { id: 1, price: 2.5, tags: ['a'], blob: Buffer.from([1, 2]) },
    })
    const json = JSON.parse(bytes!.toString())
    expect(Object.keys(json)).toEqual(['schema', 'payload'])
    expect(json.schema).toMatchObject({ type: 'struct', name: 'shop.public.orders.Value', optional: false })
    expect(json.schema.fields[0]).toEqual({ type: 'int64', optional: false, field: 'id' })
    expect(json.schema.fields[2]).toEqual({ type: 'double', optional: false, field: 'price' })
    expect(json.schema.fields[3]).toEqual({ type: 'string', optional: true, field: 'note', default: 'none' })
    expect(json.schema.fields[5]).toEqual({
      type: 'array',
      optional: false,
      field: 'tags',
      items: { type: 'string', optional: false },
    })
    expect(json.payload).toEqual({
      id: 1,
      qty: null,
      price: 2.5,
      note: 'none',
      blob: 'AQI=',
      tags: ['a'],
      attrs: null,
      byId: null,
    })
  })

  it('round-trips values through the envelope: int64 as number or bigint, bytes as Buffer, maps', () => {
    const value = {
      id: 2n ** 62n,
      qty: 3,
      price: 1,
      note: 'x',
      blob: Buffer.from('z'),
      tags: [],
      attrs: { a: 1 },
      byId: new Map([[7, 'seven']]),
    }
    const bytes = c.fromConnectData('t', { schema: rowSchema, value })
    const back = c.toConnectData('t', bytes)
    // The schema read back writes the same envelope (it spells out optional: false).
    expect(c.fromConnectData('t', back)).toEqual(bytes)
    expect(back.schema?.fields?.map((f) => [f.field, f.type])).toEqual(rowSchema.fields?.map((f) => [f.field, f.type]))
    expect(back.value).toEqual(value)
    const small = c.toConnectData('t', c.fromConnectData('t', { schema: rowSchema, value: { ...value, id: 5n } }))
    expect((small.value as { id: unknown }).id).toBe(5)
  })

  it('reads an envelope Kafka wrote (float as float32, schema null)', () => {
    const kafka =
      '{"schema":{"type":"struct","fields":[{"type":"float","optional":false,"field":"f"}],"optional":false},"payload":{"f":1.5}}'
    expect(c.toConnectData('t', Buffer.from(kafka))).toEqual({
      schema: { type: 'struct', optional: false, fields: [{ type: 'float32', optional: false, field: 'f' }] },
      value: { f: 1.5 },
    })
    expect(c.toConnectData('t', Buffer.from('{"schema":null,"payload":{"a":1}}'))).toEqual({ value: { a: 1 } })
  })

  it('records of one schema share one schema object when read (schemas.cache.size), none with size 0', () => {
    const bytes = c.fromConnectData('t', { schema: rowSchema, value: { id: 1, price: 1, tags: [] } })
    expect(c.toConnectData('t', bytes).schema).toBe(c.toConnectData('t', bytes).schema)
    const uncached = new JsonConverter({ 'schemas.cache.size': '0' })
    expect(uncached.toConnectData('t', bytes).schema).not.toBe(uncached.toConnectData('t', bytes).schema)
  })

  it('keeps a map key named __proto__ as a key', () => {
    const schema: Schema = { type: 'map', keys: { type: 'string' }, values: { type: 'int32' } }
    const back = c.toConnectData(
      't',
      Buffer.from(
        '{"schema":{"type":"map","keys":{"type":"string"},"values":{"type":"int32"}},"payload":{"__proto__":1}}',
      ),
    )
    expect(Object.keys(back.value as object)).toEqual(['__proto__'])
    expect(c.fromConnectData('t', { schema, value: back.value })!.toString()).toMatch(/"payload":\{"__proto__":1\}/)
  })

  it('writes a null value with a schema as an envelope (a tombstone has no schema)', () => {
    expect(c.fromConnectData('t', { schema: { type: 'string', optional: true }, value: null })!.toString()).toBe(
      '{"schema":{"type":"string","optional":true},"payload":null}',
    )
  })

  it('writes schemaless data with a null schema, and null (a tombstone) as null bytes', () => {
    expect(c.fromConnectData('t', { value: { a: 1 } })!.toString()).toBe('{"schema":null,"payload":{"a":1}}')
    expect(c.fromConnectData('t', { value: null })).toBeNull()
    expect(c.toConnectData('t', null)).toEqual({ value: null })
  })

  it('refuses values that do not fit the schema, naming the place', () => {
    expect(caught(() => c.fromConnectData('t', { schema: rowSchema, value: { price: 1, tags: [] } })).message).toMatch(
      /payload\.id: null for a required int64/,
    )
    const e = caught(() => c.fromConnectData('t', { schema: { type: 'int8' }, value: 300 }))
    expect(e.code).toBe('CONVERTER')
    expect(e.message).toMatch(/out of range for int8/)
    expect(caught(() => c.fromConnectData('t', { schema: { type: 'int64' }, value: 2 ** 60 })).message).toMatch(
      /as a bigint/,
    )
    expect(caught(() => c.fromConnectData('t', { schema: { type: 'string' }, value: 1 })).code).toBe('CONVERTER')
  })

  it('refuses bytes that are not JSON or not an envelope', () => {
    expect(caught(() => c.toConnectData('orders', Buffer.from('{oops'))).message).toMatch(
      /orders: the bytes are not JSON/,
    )
    expect(caught(() => c.toConnectData('t', Buffer.from('{"a":1}'))).message).toMatch(/schemas.enable=false/)
    expect(caught(() => c.toConnectData('t', Buffer.from('{"schema":{"type":"int32"},"payload":"x"}'))).code).toBe(
      'CONVERTER',
    )
    expect(caught(() => c.toConnectData('t', Buffer.from('{"schema":{"type":"weird"},"payload":1}'))).message).toMatch(
      /unknown schema type/,
    )
  })
})

describe('JsonConverter with schemas.enable=false', () => {
  const c = new JsonConverter({ 'schemas.enable': 'false' })

  it('writes plain JSON and reads it back without a schema', () => {
    const bytes = c.fromConnectData('t', { value: { a: 1, big: 2n ** 63n - 1n } })
    expect(bytes!.toString()).toBe('{"a":1,"big":9223372036854775807}')
    expect(c.toConnectData('t', bytes)).toEqual({ value: { a: 1, big: 2n ** 63n - 1n } })
  })

  it('still checks the value against a schema when one is given, but writes no envelope', () => {
    expect(c.fromConnectData('t', { schema: { type: 'int32' }, value: 5 })!.toString()).toBe('5')
  })

  it('refuses a bad schemas.enable as CONFIG naming the field', () => {
    const e = caught(() => new JsonConverter({ 'schemas.enable': 'yes' }))
    expect(e.code).toBe('CONFIG')
    expect(e.details.field).toBe('schemas.enable')
  })
})
