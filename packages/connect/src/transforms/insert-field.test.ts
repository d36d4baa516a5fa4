import { describe, expect, it } from 'vitest'
import type { SinkRecord } from '../api/records.js'
import { ConnectError } from '../errors.js'
import { schemaless, sinkRecord, userSchema } from './__fixtures__/records.js'
import { InsertField } from './insert-field.js'

function configured(part: 'key' | 'value' | undefined, config: Record<string, string>): InsertField {
  const t = new InsertField(part)
  t.configure(config)
  return t
}

describe('InsertField', () => {
  it('adds topic, partition, offset, timestamp and a static field to a struct value and its schema', () => {
    const t = configured('value', {
      'topic.field': 'src_topic!',
      'partition.field': 'src_partition',
      'offset.field': 'src_offset?',
      'timestamp.field': 'ts',
      'static.field': 'origin',
      'static.value': 'pg-1',
    })
    const out = t.apply(sinkRecord())
    expect(out.value).toEqual({
      id: 7,
      email: 'a@b.c',
      age: 30,
      src_topic: 'users',
      src_partition: 2,
      src_offset: 41,
      ts: 1_700_000_000_000,
      origin: 'pg-1',
    })
    expect(out.valueSchema?.name).toBe('shop.users.Value')
    expect(out.valueSchema?.fields?.slice(3)).toEqual([
      { field: 'src_topic', type: 'string', optional: false },
      { field: 'src_partition', type: 'int32', optional: true },
      { field: 'src_offset', type: 'int64', optional: true },
      { field: 'ts', type: 'int64', name: 'org.apache.kafka.connect.data.Timestamp', optional: true },
      { field: 'origin', type: 'string', optional: true },
    ])
    // The input schema is untouched and the new one is reused for the next record.
    expect(userSchema.fields).toHaveLength(3)
    expect(t.apply(sinkRecord()).valueSchema).toBe(out.valueSchema)
    expect((out as SinkRecord).offset).toBe(41n)
  })

  it('adds to a schemaless map key with $Key', () => {
    const out = configured('key', { 'topic.field': 't' }).apply(schemaless(1, { key: { id: 1 } }))
    expect(out.key).toEqual({ id: 1, t: 'users' })
    expect(out.value).toBe(1)
  })

  it('passes tombstones through and refuses a non-struct value as TRANSFORM', () => {
    const t = configured('value', { 'topic.field': 't' })
    const tomb = schemaless(null)
    expect(t.apply(tomb)).toBe(tomb)
    expect(() => t.apply(schemaless('text'))).toThrow(ConnectError)
    expect(() => t.apply(schemaless({ a: 1 }, { valueSchema: { type: 'string' } }))).toThrow(/must be a struct/)
  })

  it('refuses offset.field on a source record', () => {
    expect(() => configured('value', { 'offset.field': 'o' }).apply(schemaless({}))).toThrow(/sink records only/)
  })

  it('reads the part from `part` when the type does not say, and refuses a contradicting one', () => {
    expect(configured(undefined, { part: 'key', 'topic.field': 't' }).apply(schemaless(null, { key: {} })).key).toEqual(
      {
        t: 'users',
      },
    )
    expect(() => configured('value', { part: 'key' })).toThrow(/contradicts/)
    expect(() => configured(undefined, { 'static.field': 's' })).toThrow(/static.value/)
  })
})
