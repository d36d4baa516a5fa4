import { describe, expect, it } from 'vitest'
import type { Schema } from '../api/schema.js'
import { schemaless, sinkRecord } from './__fixtures__/records.js'
import { MaskField } from './mask-field.js'

function configured(config: Record<string, string>): MaskField {
  const t = new MaskField('value')
  t.configure(config)
  return t
}

describe('MaskField', () => {
  it('replaces fields with the empty value of their schema type, schema unchanged', () => {
    const r = sinkRecord()
    const out = configured({ fields: 'email,age,id' }).apply(r)
    expect(out.value).toEqual({ id: 0, email: '', age: 0 })
    expect(out.valueSchema).toBe(r.valueSchema)
  })

  it('masks schemaless values by their type', () => {
    const out = configured({ fields: 'b,s,n,f,buf,arr,map,big,nil' }).apply(
      schemaless({
        b: true,
        s: 'x',
        n: 5,
        f: 1.5,
        buf: Buffer.from('x'),
        arr: [1],
        map: { a: 1 },
        big: 2n ** 70n,
        nil: null,
      }),
    )
    expect(out.value).toEqual({
      b: false,
      s: '',
      n: 0,
      f: 0,
      buf: Buffer.alloc(0),
      arr: [],
      map: {},
      big: 0n,
      nil: null,
    })
  })

  it('uses replacement for strings and numbers, typed by the schema', () => {
    const out = configured({ fields: 'email,age', replacement: '99' }).apply(sinkRecord())
    expect(out.value).toEqual({ id: 7, email: '99', age: 99 })
    const schema: Schema = { type: 'struct', fields: [{ field: 'small', type: 'int8' }] }
    expect(() =>
      configured({ fields: 'small', replacement: '1000' }).apply(schemaless({ small: 1 }, { valueSchema: schema })),
    ).toThrow(/out of range for int8/)
    expect(() => configured({ fields: 'age', replacement: '***' }).apply(sinkRecord())).toThrow(/not an integer/)
    expect(() => configured({ fields: 'b', replacement: 'x' }).apply(schemaless({ b: true }))).toThrow(
      /string and number/,
    )
  })

  it('refuses a field the schema does not have, a struct field, and an empty field list', () => {
    expect(() => configured({ fields: 'nope' }).apply(sinkRecord())).toThrow(/no field "nope"/)
    const nested: Schema = { type: 'struct', fields: [{ field: 'inner', type: 'struct', fields: [] }] }
    expect(() => configured({ fields: 'inner' }).apply(schemaless({ inner: {} }, { valueSchema: nested }))).toThrow(
      /cannot mask/,
    )
    expect(() => configured({ fields: '' })).toThrow(/fields/)
  })
})
