import { describe, expect, it } from 'vitest'
import { JsonConverter } from '../../converters/json-converter.js'
import { envelope, keyValue, rowValue, tableShape } from './change-envelope.js'
import { formatLsn, parseLsn } from './lsn.js'
import { columnValue, dateDays, timeMicros, timestampMicros, zonedTimestamp } from './pg-types.js'
import { microsToIso, paramValue } from './sink-columns.js'

describe('PostgreSQL types as connect data', () => {
  it('reads integers, floats, booleans, numeric, json and bytea from their text form', () => {
    expect(columnValue(21, '-7')).toBe(-7)
    expect(columnValue(23, '2147483647')).toBe(2147483647)
    expect(columnValue(20, '9007199254740993')).toBe(9007199254740993n)
    expect(columnValue(20, '42')).toBe(42)
    expect(columnValue(701, '0.1')).toBe(0.1)
    expect(columnValue(16, 't')).toBe(true)
    expect(columnValue(16, 'f')).toBe(false)
    expect(columnValue(1700, '12345678901234567890.000001')).toBe('12345678901234567890.000001')
    expect(columnValue(3802, '{"a": 1}')).toBe('{"a": 1}')
    expect(columnValue(17, '\\x00ff10')).toEqual(Buffer.from([0, 255, 16]))
    expect(columnValue(25, null)).toBeNull()
    expect(columnValue(999_999, '{1,2}')).toBe('{1,2}') // unknown types keep their text
  })

  it('reads timestamps as microseconds (MicroTimestamp), dates as days, timestamptz as ISO in UTC', () => {
    expect(timestampMicros('1970-01-01 00:00:00.000001')).toBe(1)
    expect(timestampMicros('2024-02-29 12:34:56.123456')).toBe(Date.UTC(2024, 1, 29, 12, 34, 56) * 1000 + 123456)
    expect(timestampMicros('1969-12-31 23:59:59.5')).toBe(-500_000)
    expect(dateDays('1970-01-02')).toBe(1)
    expect(dateDays('1969-12-31')).toBe(-1)
    expect(timeMicros('01:00:00.25')).toBe(3_600_250_000)
    expect(zonedTimestamp('2024-02-29 12:34:56.5+00')).toBe('2024-02-29T12:34:56.5Z')
    expect(zonedTimestamp('2024-02-29 12:34:56+05:30')).toBe('2024-02-29T12:34:56+05:30')
  })

  it('writes them back as PostgreSQL accepts them (the sink)', () => {
    const us = timestampMicros('2024-02-29 12:34:56.123456')
    expect(microsToIso(us)).toBe('2024-02-29T12:34:56.123456')
    expect(microsToIso(-500_000)).toBe('1969-12-31T23:59:59.500000')
    expect(paramValue({ type: 'int32', name: 'io.debezium.time.Date' }, 1)).toBe('1970-01-02')
    expect(paramValue({ type: 'int64' }, 9007199254740993n)).toBe('9007199254740993')
  })

  it('reads and writes LSNs', () => {
    expect(parseLsn('16/B374D848')).toBe(0x16 * 2 ** 32 + 0xb374d848)
    expect(formatLsn(parseLsn('16/B374D848'))).toBe('16/B374D848')
    expect(formatLsn(0)).toBe('0/0')
  })
})

describe("Debezium's envelope", () => {
  const shape = tableShape(
    'shop',
    'public',
    'orders',
    [
      { name: 'id', typeOid: 20 },
      { name: 'note', typeOid: 25 },
      { name: 'at', typeOid: 1114 },
    ],
    ['id'],
  )

  it('names the topic and schemas as Debezium does and keys by the primary key', () => {
    expect(shape.topic).toBe('shop.public.orders')
    expect(shape.keySchema).toMatchObject({
      name: 'shop.public.orders.Key',
      fields: [{ field: 'id', type: 'int64', optional: false }],
    })
    expect(shape.envelopeSchema.name).toBe('shop.public.orders.Envelope')
    expect(shape.envelopeSchema.fields!.map((f) => f.field)).toEqual(['before', 'after', 'source', 'op', 'ts_ms'])
    const row = rowValue(shape, { id: '5', note: null, at: '2024-01-01 00:00:00' })
    expect(keyValue(shape, row)).toEqual({ id: 5 })
  })

  it('is written by the JSON converter with schemas in the shape Debezium consumers read', () => {
    const after = rowValue(shape, { id: '5', note: 'hi', at: '1970-01-01 00:00:01' })
    const value = envelope(shape, 'c', null, after, {
      db: 'shop',
      name: 'shop',
      tsMs: 1000,
      snapshot: 'false',
      txId: 771,
      lsn: 123,
    })
    const json = new JsonConverter()
    const bytes = json.fromConnectData('shop.public.orders', { schema: shape.envelopeSchema, value })!
    const written = JSON.parse(bytes.toString('utf8'))
    expect(written.schema.name).toBe('shop.public.orders.Envelope')
    expect(written.schema.fields[0]).toMatchObject({
      field: 'before',
      type: 'struct',
      optional: true,
      name: 'shop.public.orders.Value',
    })
    expect(written.schema.fields[1].fields[2]).toMatchObject({
      field: 'at',
      type: 'int64',
      name: 'io.debezium.time.MicroTimestamp',
    })
    expect(written.payload).toMatchObject({
      before: null,
      after: { id: 5, note: 'hi', at: 1_000_000 },
      source: {
        connector: 'postgresql',
        name: 'shop',
        db: 'shop',
        schema: 'public',
        table: 'orders',
        txId: 771,
        lsn: 123,
        snapshot: 'false',
        ts_ms: 1000,
      },
      op: 'c',
    })
    expect(json.toConnectData('shop.public.orders', bytes).value).toMatchObject({ op: 'c', after: { id: 5 } })
  })
})
