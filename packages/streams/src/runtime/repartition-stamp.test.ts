import { describe, expect, it } from 'vitest'
import { decodeStamp, encodeStamp, RepartitionStamper, STAMP_HEADER, stampOf } from './repartition-stamp.js'
import type { SinkRecord } from './task-contract.js'

const REP = 'app-words-repartition'

function record(topic: string, source?: { topic: string; partition: number; offset: bigint }): SinkRecord {
  return {
    topic,
    key: Buffer.from('k'),
    value: Buffer.from('v'),
    timestamp: 1,
    headers: [{ key: 'user', value: Buffer.from('x') }],
    ...(source !== undefined ? { source } : {}),
  }
}

describe('the repartition stamp (sluice.src header)', () => {
  it('round-trips, topic last so any name parses, and reads nothing from other values', () => {
    const s = { topic: 'my.odd:topic-1', partition: 5, offset: 2n ** 62n, index: 3 }
    expect(encodeStamp(s).toString('latin1')).toBe(`1:5:${2n ** 62n}:3:my.odd:topic-1`)
    expect(decodeStamp(encodeStamp(s))).toEqual(s)
    for (const bad of [null, '', '1:5:7:0:', '2:5:7:0:t', '1:-1:7:0:t', '1:5:x:0:t', '1:5:7:9999999999:t', '1:5'])
      expect(decodeStamp(bad === null ? null : Buffer.from(bad))).toBeUndefined()
    expect(decodeStamp(Buffer.alloc(600, 0x31))).toBeUndefined()
    expect(stampOf([{ key: 'other', value: Buffer.from('1:0:0:0:t') }])).toBeUndefined()
  })

  it('stamps each write to a repartition topic with its input position and an index per input record', () => {
    const sent: SinkRecord[] = []
    const stamper = new RepartitionStamper({ send: (r) => sent.push(r) }, new Set([REP, 'app-b-repartition']), true)
    const at = (offset: bigint) => ({ topic: 'lines', partition: 2, offset })
    stamper.send(record(REP, at(7n)))
    stamper.send(record(REP, at(7n)))
    stamper.send(record('app-b-repartition', at(7n)))
    stamper.send(record(REP, at(7n)))
    stamper.send(record(REP, at(9n)))
    stamper.send(record('output', at(9n)))
    // A punctuation's write (no input record) goes unstamped.
    stamper.send(record(REP))
    const stamps = sent.map((r) => (r.topic === 'output' ? 'output' : stampOf(r.headers)))
    expect(stamps).toEqual([
      { ...at(7n), index: 0 },
      { ...at(7n), index: 1 },
      { ...at(7n), index: 0 },
      { ...at(7n), index: 2 },
      { ...at(9n), index: 0 },
      'output',
      undefined,
    ])
    // The user's headers stay, before the stamp; output records pass unchanged.
    expect(sent[0]!.headers.map((h) => h.key)).toEqual(['user', STAMP_HEADER])
    expect(sent[5]!.headers).toEqual([{ key: 'user', value: Buffer.from('x') }])
  })

  it('drops an inherited stamp, and a task with state stores writes none', () => {
    const sent: SinkRecord[] = []
    const inherited = encodeStamp({ topic: 'upstream', partition: 0, offset: 3n, index: 0 })
    const withStamp = (source?: { topic: string; partition: number; offset: bigint }): SinkRecord => ({
      ...record(REP, source),
      headers: [{ key: STAMP_HEADER, value: inherited }],
    })
    const src = { topic: 'app-x-repartition', partition: 1, offset: 4n }
    new RepartitionStamper({ send: (r) => sent.push(r) }, new Set([REP]), true).send(withStamp(src))
    new RepartitionStamper({ send: (r) => sent.push(r) }, new Set([REP]), true).send(withStamp())
    new RepartitionStamper({ send: (r) => sent.push(r) }, new Set([REP]), false).send(withStamp(src))
    expect(sent.map((r) => r.headers.filter((h) => h.key === STAMP_HEADER).length)).toEqual([1, 0, 0])
    expect(stampOf(sent[0]!.headers)).toEqual({ ...src, index: 0 })
  })
})
