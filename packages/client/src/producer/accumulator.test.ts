import { describe, expect, it } from 'vitest'
import { ManualClock } from '@sluice/protocol'
import { BATCH_OVERHEAD_BYTES, RecordAccumulator, type DrainOptions } from './accumulator.js'

const rec = (n: number): { value: Buffer } => ({ value: Buffer.alloc(n) })

/** add() and what its batch says about the record: new batch, full with it. */
function append(
  acc: RecordAccumulator,
  topic: string,
  partition: number,
  record: { value: Buffer },
  sizeBytes: number,
): { batch: ReturnType<RecordAccumulator['add']>; newBatch: boolean; full: boolean } {
  const batch = acc.add(topic, partition, record, sizeBytes)
  return { batch, newBatch: batch.records.length === 1, full: batch.closed }
}

function drainOpts(over: Partial<DrainOptions> = {}): DrainOptions {
  return {
    flush: false,
    muted: new Set(),
    leaderOf: (_t, p) => p % 2, // even partitions on broker 0, odd on broker 1
    canSend: () => true,
    maxRequestBytes: 1 << 30,
    ...over,
  }
}

describe('RecordAccumulator', () => {
  it('holds a batch until lingerMs has passed', () => {
    const clock = new ManualClock(1000)
    const acc = new RecordAccumulator({ batchBytes: 10_000, lingerMs: 5, clock })
    append(acc, 't', 0, rec(10), 30)
    append(acc, 't', 0, rec(10), 30)
    let d = acc.drain(drainOpts())
    expect(d.byBroker.size).toBe(0)
    expect(d.nextReadyMs).toBe(1005)
    clock.advance(4)
    expect(acc.drain(drainOpts()).byBroker.size).toBe(0)
    clock.advance(1)
    d = acc.drain(drainOpts())
    const batches = d.byBroker.get(0)!
    expect(batches).toHaveLength(1)
    expect(batches[0]!.records).toHaveLength(2)
    expect(acc.isEmpty).toBe(true)
  })

  it('closes a batch at batchBytes and sends it without waiting for linger', () => {
    const acc = new RecordAccumulator({
      batchBytes: BATCH_OVERHEAD_BYTES + 100,
      lingerMs: 60_000,
      clock: new ManualClock(),
    })
    const a = append(acc, 't', 0, rec(1), 50)
    expect(a.newBatch).toBe(true)
    expect(a.full).toBe(false)
    const b = append(acc, 't', 0, rec(1), 50)
    expect(b.full).toBe(true)
    expect(b.batch).toBe(a.batch)
    expect(acc.hasOpenBatch('t', 0)).toBe(false)
    const c = append(acc, 't', 0, rec(1), 50) // goes to a new batch
    expect(c.newBatch).toBe(true)
    expect(c.batch).not.toBe(a.batch)
    const d = acc.drain(drainOpts())
    // Only the head (full) batch goes; one batch per partition per drain keeps order.
    expect(d.byBroker.get(0)!.map((x) => x.records.length)).toEqual([2])
    // The second batch is now the head; it is not full and lingers.
    expect(acc.drain(drainOpts()).byBroker.size).toBe(0)
  })

  it('starts a new batch when the next record would overflow the current one', () => {
    const acc = new RecordAccumulator({ batchBytes: BATCH_OVERHEAD_BYTES + 100, lingerMs: 0, clock: new ManualClock() })
    const a = append(acc, 't', 0, rec(1), 60)
    const b = append(acc, 't', 0, rec(1), 60)
    expect(b.batch).not.toBe(a.batch)
    expect(a.batch.closed).toBe(true)
    // A record bigger than batchBytes still gets a batch of its own.
    const big = append(acc, 't', 0, rec(1), 1000)
    expect(big.batch.records).toHaveLength(1)
    expect(big.full).toBe(true)
  })

  it('batches per partition and groups ready batches into one request per broker', () => {
    const acc = new RecordAccumulator({ batchBytes: 1 << 20, lingerMs: 0, clock: new ManualClock() })
    for (let p = 0; p < 6; p++) for (let i = 0; i < 3; i++) append(acc, 't', p, rec(5), 30)
    append(acc, 'u', 1, rec(5), 30)
    const d = acc.drain(drainOpts())
    expect([...d.byBroker.keys()].sort()).toEqual([0, 1])
    const b0 = d.byBroker
      .get(0)!
      .map((b) => `${b.topic}/${b.partition}:${b.records.length}`)
      .sort()
    const b1 = d.byBroker
      .get(1)!
      .map((b) => `${b.topic}/${b.partition}:${b.records.length}`)
      .sort()
    expect(b0).toEqual(['t/0:3', 't/2:3', 't/4:3'])
    expect(b1).toEqual(['t/1:3', 't/3:3', 't/5:3', 'u/1:1'])
  })

  it('skips muted partitions, brokers without a free slot, and unknown leaders', () => {
    const acc = new RecordAccumulator({ batchBytes: 1 << 20, lingerMs: 0, clock: new ManualClock() })
    for (let p = 0; p < 4; p++) append(acc, 't', p, rec(5), 30)
    const d = acc.drain(
      drainOpts({
        muted: new Set(['t\u00000']),
        canSend: (b) => b !== 1,
        leaderOf: (_t, p) => (p === 2 ? undefined : p % 2),
      }),
    )
    expect(d.unknownLeader).toBe(true)
    expect([...d.byBroker.keys()]).toEqual([])
    // Nothing was lost: everything is still queued.
    expect(
      acc
        .queued()
        .map((b) => b.partition)
        .sort(),
    ).toEqual([0, 1, 2, 3])
  })

  it('stops adding to a request at maxRequestBytes (but always sends one batch)', () => {
    const acc = new RecordAccumulator({ batchBytes: 1 << 20, lingerMs: 0, clock: new ManualClock() })
    for (let p = 0; p < 3; p++) append(acc, 't', p * 2, rec(5), 1000)
    const d = acc.drain(drainOpts({ maxRequestBytes: 1500 }))
    expect(d.byBroker.get(0)).toHaveLength(1)
    expect(acc.queued()).toHaveLength(2)
  })

  it('sends everything on flush, honours retry backoff, and keeps retried batches first', () => {
    const clock = new ManualClock()
    const acc = new RecordAccumulator({ batchBytes: 1 << 20, lingerMs: 60_000, clock })
    append(acc, 't', 0, rec(5), 30)
    const first = acc.drain(drainOpts({ flush: true })).byBroker.get(0)![0]!
    append(acc, 't', 0, rec(5), 30) // a later batch for the same partition
    first.retryAtMs = 50
    acc.reenqueue(first)
    expect(acc.drain(drainOpts({ flush: true })).byBroker.size).toBe(0)
    clock.advance(50)
    const again = acc.drain(drainOpts({ flush: true })).byBroker.get(0)!
    expect(again).toEqual([first])
  })

  it('expires batches older than the delivery timeout and tracks buffered bytes', () => {
    const clock = new ManualClock()
    const acc = new RecordAccumulator({ batchBytes: 1 << 20, lingerMs: 60_000, clock })
    append(acc, 't', 0, rec(5), 30)
    append(acc, 't', 1, rec(5), 40)
    expect(acc.bufferedBytes).toBe(70)
    clock.advance(99)
    expect(acc.expire(100)).toHaveLength(0)
    clock.advance(1)
    const expired = acc.expire(100)
    expect(expired.map((b) => b.partition).sort()).toEqual([0, 1])
    for (const b of expired) acc.release(b)
    expect(acc.bufferedBytes).toBe(0)
    expect(acc.isEmpty).toBe(true)
  })
})
