import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription } from './consumer-protocol.js'

describe('consumer protocol metadata (Kafka ConsumerProtocolSubscription / Assignment)', () => {
  it("writes Kafka's byte layout: v0 subscription and v3 assignment", () => {
    expect(encodeSubscription({ topics: ['t'] }, 0).toString('hex')).toBe('0000' + '00000001' + '000174' + 'ffffffff')
    expect(
      encodeSubscription({ topics: ['t'], ownedPartitions: [{ topic: 't', partition: 2 }], generationId: 7 }).toString(
        'hex',
      ),
    ).toBe(
      '0003' +
        '00000001' +
        '000174' +
        'ffffffff' +
        '00000001' +
        '000174' +
        '00000001' +
        '00000002' +
        '00000007' +
        'ffff',
    )
    expect(
      encodeAssignment({
        partitions: [
          { topic: 'ab', partition: 0 },
          { topic: 'ab', partition: 5 },
        ],
      }).toString('hex'),
    ).toBe('0003' + '00000001' + '00026162' + '00000002' + '00000000' + '00000005' + 'ffffffff')
  })

  it('round-trips any subscription and assignment', () => {
    const tp = fc.record({ topic: fc.string({ maxLength: 20 }), partition: fc.integer({ min: 0, max: 10_000 }) })
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 20 })),
        fc.array(tp),
        fc.option(fc.uint8Array({ maxLength: 16 })),
        fc.integer({ min: -1, max: 1 << 30 }),
        fc.option(fc.string({ maxLength: 8 })),
        (topics, owned, userData, generationId, rackId) => {
          // Owned partitions come back grouped by topic (the wire groups them).
          const grouped = [...new Set(owned.map((o) => o.topic))].flatMap((t) => owned.filter((o) => o.topic === t))
          const s = {
            topics,
            ownedPartitions: grouped,
            userData: userData === null ? null : Buffer.from(userData),
            generationId,
            rackId,
          }
          expect(decodeSubscription(encodeSubscription(s))).toEqual(s)
          const a = { partitions: grouped, userData: s.userData }
          expect(decodeAssignment(encodeAssignment(a))).toEqual(a)
        },
      ),
      { numRuns: 200 },
    )
  })

  it('reads older versions with defaults, and newer versions as the newest known one', () => {
    expect(
      decodeSubscription(encodeSubscription({ topics: ['x'], ownedPartitions: [{ topic: 'x', partition: 1 }] }, 1)),
    ).toEqual({
      topics: ['x'],
      userData: null,
      ownedPartitions: [{ topic: 'x', partition: 1 }],
      generationId: -1,
      rackId: null,
    })
    const v9 = Buffer.concat([encodeSubscription({ topics: ['x'] }), Buffer.from('future fields')])
    v9.writeInt16BE(9, 0)
    expect(decodeSubscription(v9).topics).toEqual(['x'])
    expect(decodeAssignment(Buffer.alloc(0))).toEqual({ partitions: [], userData: null })
  })

  it('rejects malformed bytes with a typed error, never a crash', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        for (const decode of [decodeSubscription, decodeAssignment]) {
          try {
            decode(Buffer.from(bytes))
          } catch (err) {
            expect(err).toMatchObject({ code: 'INVALID_REQUEST' })
          }
        }
      }),
      { numRuns: 300 },
    )
    expect(() => decodeSubscription(Buffer.from('0003ffffffff', 'hex'))).toThrow(/bad array length/)
  })
})
