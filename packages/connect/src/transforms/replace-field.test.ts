import { describe, expect, it } from 'vitest'
import { isConnectError } from '../errors.js'
import { schemaless, sinkRecord } from './__fixtures__/records.js'
import { ReplaceField } from './replace-field.js'

function configured(config: Record<string, string>): ReplaceField {
  const t = new ReplaceField('value')
  t.configure(config)
  return t
}

describe('ReplaceField', () => {
  it('renames and excludes fields of a struct value and its schema', () => {
    const out = configured({ renames: 'email:mail, age:years', exclude: 'age' }).apply(sinkRecord())
    expect(out.value).toEqual({ id: 7, mail: 'a@b.c' })
    expect(out.valueSchema?.fields?.map((f) => f.field)).toEqual(['id', 'mail'])
    expect(out.valueSchema?.name).toBe('shop.users.Value')
  })

  it('keeps only included fields (schemaless too), with the old name whitelist', () => {
    expect(
      configured({ include: 'id,age' })
        .apply(sinkRecord())
        .valueSchema?.fields?.map((f) => f.field),
    ).toEqual(['id', 'age'])
    expect(configured({ whitelist: 'a' }).apply(schemaless({ a: 1, b: 2 })).value).toEqual({ a: 1 })
  })

  it('refuses a bad renames list as CONFIG naming renames', () => {
    for (const renames of ['a', 'a:b:c', ':b', 'a:b,a:c']) {
      let err: unknown
      try {
        configured({ renames })
      } catch (e) {
        err = e
      }
      expect(isConnectError(err, 'CONFIG') && err.details.field).toBe('renames')
    }
  })

  it('passes tombstones through', () => {
    const r = schemaless(null)
    expect(configured({ exclude: 'a' }).apply(r)).toBe(r)
  })
})
