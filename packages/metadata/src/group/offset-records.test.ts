import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  decodeOffsetKey,
  decodeOffsetValue,
  encodeOffsetKey,
  encodeOffsetValue,
  javaStringHash,
  partitionForGroup,
} from './offset-records.js'

describe('__consumer_offsets records', () => {
  it("places groups on Kafka's partitions: abs(String.hashCode) % n", () => {
    expect(partitionForGroup('my-group', 50)).toBe(12)
    expect(partitionForGroup('test', 50)).toBe(48)
    expect(javaStringHash('my-group')).toBe(-1_906_497_762)
    // Utils.abs(Integer.MIN_VALUE) is 0: "polygenelubricants".hashCode() == Integer.MIN_VALUE.
    expect(javaStringHash('polygenelubricants')).toBe(-2147483648)
    expect(partitionForGroup('polygenelubricants', 50)).toBe(0)
  })

  it('encodes keys (v1) and values (v3) exactly as Kafka does', () => {
    expect(encodeOffsetKey({ group: 'g', topic: 't', partition: 2 }).toString('hex')).toBe(
      '0001' + '0001' + '67' + '0001' + '74' + '00000002',
    )
    expect(encodeOffsetValue({ offset: 5n, leaderEpoch: -1, metadata: 'm', commitTimestamp: 7 }).toString('hex')).toBe(
      '0003' + '0000000000000005' + 'ffffffff' + '0001' + '6d' + '0000000000000007',
    )
  })

  it('round-trips any key and value; other record kinds and garbage decode to undefined', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (group, topic, partition) => {
        expect(decodeOffsetKey(encodeOffsetKey({ group, topic, partition }))).toEqual({ group, topic, partition })
      }),
    )
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
        fc.integer({ min: -1, max: 2 ** 31 - 1 }),
        fc.string(),
        fc.integer({ min: 0, max: 2 ** 45 }),
        (offset, leaderEpoch, metadata, commitTimestamp) => {
          expect(decodeOffsetValue(encodeOffsetValue({ offset, leaderEpoch, metadata, commitTimestamp }))).toEqual({
            offset,
            leaderEpoch,
            metadata,
            commitTimestamp,
          })
        },
      ),
    )
    expect(decodeOffsetKey(Buffer.from('000200016700', 'hex'))).toBeUndefined() // group metadata key v2
    expect(decodeOffsetKey(Buffer.from('00010005ab', 'hex'))).toBeUndefined()
    expect(decodeOffsetValue(Buffer.from('0003', 'hex'))).toBeUndefined()
    // value v1 carries an expire timestamp
    const v1 = Buffer.from('0001' + '0000000000000009' + '0000' + '0000000000000003' + '0000000000000004', 'hex')
    expect(decodeOffsetValue(v1)).toEqual({ offset: 9n, leaderEpoch: -1, metadata: '', commitTimestamp: 3 })
  })
})
