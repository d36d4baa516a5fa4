import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isSluiceError } from '@sluice/protocol'
import { MAX_CACHED_BATCHES, ProducerStateTable, type ProducerBatchInfo } from './producer-state-table.js'
import { decodeSnapshot, encodeSnapshot } from './producer-state-snapshot.js'
import { INT32_MAX, decrementSequence, incrementSequence, inSequence } from './sequence.js'

function info(pid: bigint, epoch: number, base: number, count: number, ts = 1000n): ProducerBatchInfo {
  return { producerId: pid, producerEpoch: epoch, baseSequence: base, lastOffsetDelta: count - 1, maxTimestamp: ts }
}

function outcome(t: ProducerStateTable, batches: ProducerBatchInfo[]): string {
  try {
    const c = t.checkLeaderAppend(batches)
    return c.kind === 'duplicate' ? `dup@${c.batch.firstOffset}` : 'append'
  } catch (err) {
    if (isSluiceError(err)) return err.code
    throw err
  }
}

describe('sequence arithmetic', () => {
  it('wraps at Int32.MAX in both directions', () => {
    expect(incrementSequence(INT32_MAX, 1)).toBe(0)
    expect(incrementSequence(INT32_MAX - 1, 3)).toBe(1)
    expect(incrementSequence(5, 3)).toBe(8)
    expect(decrementSequence(1, 3)).toBe(INT32_MAX - 1)
    expect(inSequence(INT32_MAX, 0)).toBe(true)
    expect(inSequence(4, 5)).toBe(true)
    expect(inSequence(4, 6)).toBe(false)
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: INT32_MAX }),
        fc.integer({ min: 0, max: 1 << 20 }),
        (s, n) => decrementSequence(incrementSequence(s, n), n) === s,
      ),
    )
  })
})

describe('ProducerStateTable', () => {
  it('checks in Kafka order: fenced epoch, duplicate, new epoch at 0, next sequence', () => {
    const t = new ProducerStateTable()
    expect(outcome(t, [info(7n, 2, 40, 3)])).toBe('append') // unknown producer: any sequence
    t.recordBatch(info(7n, 2, 40, 3), 100n)
    expect(outcome(t, [info(7n, 2, 40, 3)])).toBe('dup@100')
    expect(outcome(t, [info(7n, 2, 43, 1)])).toBe('append')
    expect(outcome(t, [info(7n, 2, 44, 1)])).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER')
    expect(outcome(t, [info(7n, 2, 41, 2)])).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER') // overlaps, not a cached batch
    expect(outcome(t, [info(7n, 1, 43, 1)])).toBe('INVALID_PRODUCER_EPOCH')
    expect(outcome(t, [info(7n, 3, 5, 1)])).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER')
    expect(outcome(t, [info(7n, 3, 0, 1)])).toBe('append')
    expect(outcome(t, [info(-1n, -1, -1, 1)])).toBe('append') // not idempotent: no checks
    expect(outcome(t, [info(7n, -1, 0, 1)])).toBe('INVALID_RECORD')
  })

  it('checks the batches of one request as a chain and answers a duplicate for the whole request', () => {
    const t = new ProducerStateTable()
    t.recordBatch(info(1n, 0, 0, 2), 0n)
    expect(outcome(t, [info(1n, 0, 2, 2), info(1n, 0, 4, 1)])).toBe('append')
    expect(outcome(t, [info(1n, 0, 2, 2), info(1n, 0, 5, 1)])).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER')
    expect(outcome(t, [info(1n, 0, 2, 2), info(1n, 0, 0, 2)])).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER')
    expect(outcome(t, [info(1n, 0, 0, 2), info(1n, 0, 2, 1)])).toBe('dup@0')
  })

  it('keeps only the last 5 batches, clears them on an epoch bump, and wraps sequences', () => {
    const t = new ProducerStateTable()
    let seq = INT32_MAX - 4
    for (let i = 0; i < 8; i++) {
      t.recordBatch(info(3n, 0, seq, 2), BigInt(i * 2))
      seq = incrementSequence(seq, 2)
    }
    expect(t.get(3n)!.batches).toHaveLength(MAX_CACHED_BATCHES)
    expect(t.get(3n)!.batches.map((b) => b.firstOffset)).toEqual([6n, 8n, 10n, 12n, 14n])
    expect(outcome(t, [info(3n, 0, seq, 1)])).toBe('append')
    expect(seq).toBe(11) // wrapped past Int32.MAX
    t.recordBatch(info(3n, 1, 0, 1), 100n)
    expect(t.get(3n)!.batches).toHaveLength(1)
  })

  it('expires producers idle for the expiration time, measured from batch timestamps', () => {
    const t = new ProducerStateTable()
    t.recordBatch(info(1n, 0, 0, 1, 1_000n), 0n)
    t.recordBatch(info(2n, 0, 0, 1, 5_000n), 1n)
    expect(t.expire(10_000n, 6_000n)).toBe(1)
    expect([t.get(1n), t.get(2n) !== undefined]).toEqual([undefined, true])
    // An expired producer is unknown again: it may continue at any sequence.
    expect(outcome(t, [info(1n, 0, 17, 1)])).toBe('append')
  })

  it('round-trips through the snapshot encoding and rejects a corrupt snapshot', () => {
    const t = new ProducerStateTable()
    t.recordBatch(info(9n, 4, INT32_MAX, 3, 77n), 12n)
    const text = encodeSnapshot({ offset: 15n, producers: [...t.all()] })
    const back = decodeSnapshot(text)
    expect(back?.offset).toBe(15n)
    expect(back?.producers).toEqual([...t.all()])
    expect(decodeSnapshot(text.replace('"15"', '"16"'))).toBeUndefined()
    expect(decodeSnapshot('garbage')).toBeUndefined()
    expect(decodeSnapshot('')).toBeUndefined()
  })

  // A model of the client/broker contract: per producer, the history of appended batches per
  // epoch. Random interleavings of new, duplicate, gapped, fenced and epoch-bumping batches must
  // get the model's answer, and the log must hold every sequence of an epoch exactly once, in order.
  it('matches a model under random interleavings of new, duplicate and out-of-order batches', () => {
    const op = fc.record({
      pid: fc.integer({ min: 0, max: 2 }),
      kind: fc.constantFrom('new', 'new', 'new', 'dup', 'gap', 'stale', 'bump', 'bump-bad'),
      count: fc.integer({ min: 1, max: 4 }),
      pick: fc.nat(),
    })
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 120 }), (ops) => {
        const t = new ProducerStateTable()
        interface Appended {
          epoch: number
          first: number
          last: number
          offset: bigint
          count: number
        }
        const model = new Map<number, { epoch: number; next: number; history: Appended[] }>()
        const log: Array<{ pid: number } & Appended> = []
        let leo = 0n
        for (const o of ops) {
          const m = model.get(o.pid)
          const pid = BigInt(o.pid)
          let batch: ProducerBatchInfo
          let expected: string
          if (m === undefined) {
            // First batch of a producer: any start sequence; producer 0 starts near the wrap.
            const start = o.pid === 0 ? INT32_MAX - 3 : o.pick % 1000
            batch = info(pid, 0, start, o.count)
            expected = 'append'
          } else if (o.kind === 'new') {
            batch = info(pid, m.epoch, m.next, o.count)
            expected = 'append'
          } else if (o.kind === 'dup') {
            const h = m.history[o.pick % m.history.length]!
            batch = info(pid, h.epoch, h.first, h.count)
            const sameEpoch = m.history.filter((x) => x.epoch === m.epoch)
            const recent = sameEpoch.slice(-MAX_CACHED_BATCHES)
            expected =
              h.epoch < m.epoch
                ? 'INVALID_PRODUCER_EPOCH'
                : recent.includes(h)
                  ? `dup@${h.offset}`
                  : 'OUT_OF_ORDER_SEQUENCE_NUMBER'
          } else if (o.kind === 'gap') {
            batch = info(pid, m.epoch, incrementSequence(m.next, 1 + (o.pick % 3)), o.count)
            expected = 'OUT_OF_ORDER_SEQUENCE_NUMBER'
          } else if (o.kind === 'stale') {
            if (m.epoch === 0) continue
            batch = info(pid, m.epoch - 1, m.next, o.count)
            expected = 'INVALID_PRODUCER_EPOCH'
          } else if (o.kind === 'bump') {
            batch = info(pid, m.epoch + 1, 0, o.count)
            expected = 'append'
          } else {
            batch = info(pid, m.epoch + 1, 1 + (o.pick % 5), o.count)
            expected = 'OUT_OF_ORDER_SEQUENCE_NUMBER'
          }
          expect(outcome(t, [batch])).toBe(expected)
          if (expected !== 'append') continue
          t.recordBatch(batch, leo)
          const a: Appended = {
            epoch: batch.producerEpoch,
            first: batch.baseSequence,
            last: incrementSequence(batch.baseSequence, o.count - 1),
            offset: leo,
            count: o.count,
          }
          const state = m ?? { epoch: 0, next: 0, history: [] }
          state.epoch = a.epoch
          state.next = incrementSequence(a.last, 1)
          state.history.push(a)
          model.set(o.pid, state)
          log.push({ pid: o.pid, ...a })
          leo += BigInt(o.count)
        }
        // Exactly once and in order: within a producer epoch, each appended batch follows the previous one.
        for (const pid of model.keys()) {
          const mine = log.filter((x) => x.pid === pid)
          for (let i = 1; i < mine.length; i++) {
            const prev = mine[i - 1]!
            const cur = mine[i]!
            expect(
              cur.epoch === prev.epoch ? inSequence(prev.last, cur.first) : cur.epoch > prev.epoch && cur.first === 0,
            ).toBe(true)
          }
        }
      }),
      { numRuns: 300 },
    )
  })
})
