/**
 * The producer's per-record append path (ProducerImpl.appendAndWait) without a network: a
 * stand-in sender acknowledges every ready batch on the next turn with per-partition offsets.
 * Partition choice must be exactly what asking the PartitionChooser for every record gives
 * (the sticky shortcut may not change it), and the RecordMetadata must carry contiguous offsets
 * per partition, in input order, the record timestamps, or -1n offsets for acks=0.
 */
import type { RecordInput } from '@sluice/protocol'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { producerWithStandInSender } from '../__fixtures__/stand-in-sender.js'
import { RecordAccumulator } from './accumulator.js'
import { PartitionChooser } from './partitioner.js'
import { estimateRecordBytes } from './producer-batch.js'
import type { ProducerRecord, RecordMetadata } from './producer.js'

const PARTITIONS = 6
/** A deterministic Math.random (both the producer's chooser and the reference read it). */
function seededRandom(seed: number): () => number {
  let s = seed
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648
    return s / 2147483648
  }
}

afterEach(() => {
  vi.restoreAllMocks()
})

/**
 * Mixed records: keyless runs, keyed records, explicit partitions. Keyless records count 100
 * bytes (estimateRecordBytes: 21 + 79), so a batch of batchBytes 61 + 1000 is exactly full after
 * ten of them and the sticky partition moves on; a keyed or explicit record in between makes it
 * overflow into a new batch of the same partition instead (every 7th call has longer values).
 */
function mixedCall(call: number): ProducerRecord[] {
  return Array.from({ length: 400 }, (_, i) => {
    const value = Buffer.alloc(call % 7 === 6 ? 20 + ((i * 13) % 90) : 79, i & 0xff)
    if (i % 50 === 17) return { key: `k-${i % 7}`, value }
    if (i % 61 === 5) return { value, partition: (i + call) % PARTITIONS }
    return { value }
  })
}

/**
 * What the producer must choose: the chooser asked for every record, appends to a reference
 * accumulator, and every batch taken away once a call completes (the stand-in sender drains all).
 */
function referencePartitions(calls: ProducerRecord[][], batchBytes: number, random: () => number): number[][] {
  const chooser = new PartitionChooser({ keylessStrategy: 'sticky', random })
  const acc = new RecordAccumulator({ batchBytes, lingerMs: 5 })
  return calls.map((records) => {
    const partitions = records.map((r) => {
      const key = r.key === undefined || r.key === null ? null : Buffer.from(r.key)
      const value = r.value as Buffer
      const p = chooser.choose('t', { key, value, partition: r.partition }, PARTITIONS, (q) => acc.hasOpenBatch('t', q))
      const input: RecordInput = { key, value, timestamp: 0n }
      acc.add('t', p, input, estimateRecordBytes(input))
      return p
    })
    while (!acc.isEmpty)
      acc.drain({ flush: true, muted: new Set(), leaderOf: () => 1, canSend: () => true, maxRequestBytes: 1 << 30 })
    return partitions
  })
}

function expectContiguousOffsets(results: RecordMetadata[][]): void {
  const next = new Array<bigint>(PARTITIONS).fill(0n)
  for (const meta of results) {
    for (const m of meta) {
      expect(m.topic).toBe('t')
      expect(m.offset).toBe(next[m.partition])
      next[m.partition]! += 1n
    }
  }
}

describe('producer append path', () => {
  it('chooses exactly the partitions the chooser gives per record (sticky, keyed, explicit), batches filling mid-call', async () => {
    const batchBytes = 61 + 1000
    const calls = Array.from({ length: 7 }, (_, c) => mixedCall(c))
    vi.spyOn(Math, 'random').mockImplementation(seededRandom(42))
    const { producer } = producerWithStandInSender({ acks: 1, lingerMs: 5, batchBytes }, PARTITIONS)
    const results: RecordMetadata[][] = []
    for (const records of calls) results.push(await producer.send({ topic: 't', records }))
    vi.restoreAllMocks()
    const expected = referencePartitions(calls, batchBytes, seededRandom(42))
    expect(results.map((meta) => meta.map((m) => m.partition))).toEqual(expected)
    // The sticky partition did move on within calls (the shortcut was exercised across batch ends).
    expect(
      new Set(expected[0]!.filter((_, i) => calls[0]![i]!.key === undefined && calls[0]![i]!.partition === undefined))
        .size,
    ).toBeGreaterThan(2)
    expectContiguousOffsets(results)
  })

  it('keeps offsets contiguous and in input order while send() waits for buffer space mid-call', async () => {
    const { producer, drains } = producerWithStandInSender(
      { acks: 1, lingerMs: 5, batchBytes: 2000, bufferBytes: 5000 },
      PARTITIONS,
    )
    const results: RecordMetadata[][] = []
    for (let c = 0; c < 3; c++) results.push(await producer.send({ topic: 't', records: mixedCall(c) }))
    expect(drains()).toBeGreaterThan(10) // 3 x ~30 KB through a 5 KB buffer: it had to wait
    expect(results.flat()).toHaveLength(1200)
    expectContiguousOffsets(results)
    // Keyless records between two waits still form sticky runs: one partition per open batch.
    for (const meta of results) expect(new Set(meta.map((m) => m.partition)).size).toBeGreaterThan(1)
  })

  it('resolves each record with its own timestamp, and offsets -1n with acks=0', async () => {
    const { producer } = producerWithStandInSender({ acks: 0, lingerMs: 0 }, PARTITIONS)
    const records: ProducerRecord[] = [
      { value: 'a', timestamp: 5 },
      { value: 'b', timestamp: 7n },
      { value: 'c', timestamp: new Date(9) },
    ]
    const meta = await producer.send({ topic: 't', records })
    expect(meta.map((m) => [m.offset, m.timestamp])).toEqual([
      [-1n, 5n],
      [-1n, 7n],
      [-1n, 9n],
    ])
    const { producer: acked } = producerWithStandInSender({ acks: 1, lingerMs: 0 }, PARTITIONS)
    const before = BigInt(Date.now())
    const out = await acked.send({
      topic: 't',
      records: [{ value: 'x' }, { value: 'y', timestamp: 3 }, { value: 'z' }],
    })
    expect(out.map((m) => m.offset)).toEqual([0n, 1n, 2n])
    expect(out[0]!.timestamp).toBeGreaterThanOrEqual(before)
    expect(out[1]!.timestamp).toBe(3n)
    expect(out[2]!.timestamp).toBe(out[0]!.timestamp)
  })
})
