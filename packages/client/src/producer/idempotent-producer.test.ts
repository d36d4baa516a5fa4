/**
 * The idempotent producer against the fake broker (which enforces sequences like a real one):
 * options, sequence stamping, in-order recovery with several batches in flight when one fails,
 * dedup of a batch whose acknowledgement was lost, and the reset after a final failure.
 */
import { decodeRecordBatches, readBatchHeader, type SluiceError } from '@sluice/protocol'
import { afterEach, describe, expect, it } from 'vitest'
import { FakeCluster } from '../__fixtures__/fake-cluster.js'
import { connect, type SluiceClient } from '../index.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function setup(): Promise<{ cluster: FakeCluster; client: SluiceClient }> {
  const cluster = await FakeCluster.start([1])
  cleanups.push(async () => {
    await cluster.stop()
  })
  const client = await connect({
    bootstrap: cluster.bootstrap,
    retry: { retries: 3, initialBackoffMs: 5, maxBackoffMs: 20, factor: 2 },
    metadataMinRefreshMs: 0,
    requestTimeoutMs: 5000,
  })
  cleanups.push(async () => {
    await client.close()
  })
  cluster.createTopic('t', 1, () => 1)
  return { cluster, client }
}

function logValues(cluster: FakeCluster, tp = 't/0'): string[] {
  return (cluster.logs.get(tp) ?? []).flatMap((b) =>
    decodeRecordBatches(b.bytes).flatMap((d) => d.records.map((r) => r.value!.toString())),
  )
}

/** One send() per record, all started at once: one batch each (batchBytes 1), many in flight. */
function sendEach(client: SluiceClient, n: number, from = 0, options = {}): Array<Promise<bigint>> {
  const producer = client.producer({ lingerMs: 0, batchBytes: 1, maxInFlight: 5, ...options })
  return Array.from({ length: n }, (_, i) =>
    producer.send({ topic: 't', records: [{ value: `v${from + i}` }] }).then((m) => m[0]!.offset),
  )
}

describe('idempotent producer options', () => {
  it('is on by default with acks all, off by default with acks 1, and rejects contradictions with a TypeError', async () => {
    const { cluster, client } = await setup()
    await client.producer({ lingerMs: 0 }).send({ topic: 't', records: [{ value: 'a' }, { value: 'b' }] })
    const h = readBatchHeader(cluster.logs.get('t/0')![0]!.bytes)!
    expect([h.producerId, h.producerEpoch, h.baseSequence]).toEqual([1000n, 0, 0])
    await client.producer({ lingerMs: 0, acks: 1 }).send({ topic: 't', records: [{ value: 'c' }] })
    expect(readBatchHeader(cluster.logs.get('t/0')![1]!.bytes)!.producerId).toBe(-1n)
    expect(() => client.producer({ acks: 1, idempotent: true })).toThrow(TypeError)
    expect(() => client.producer({ acks: 0, idempotent: true })).toThrow(TypeError)
    expect(() => client.producer({ maxInFlight: 6, idempotent: true })).toThrow(TypeError)
    expect(() => client.producer({ idempotent: 'yes' as unknown as boolean })).toThrow(TypeError)
    // Unset with more than 5 in flight: idempotence turns off instead of failing.
    await client.producer({ lingerMs: 0, maxInFlight: 6 }).send({ topic: 't', records: [{ value: 'd' }] })
    expect(readBatchHeader(cluster.logs.get('t/0')![2]!.bytes)!.producerId).toBe(-1n)
  })
})

describe('idempotent producer recovery', () => {
  it('numbers batches per partition and keeps order when an early batch fails with several in flight', async () => {
    const { cluster, client } = await setup()
    const producer = client.producer({ lingerMs: 0, batchBytes: 1, maxInFlight: 5 })
    const send = (from: number, n: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          producer.send({ topic: 't', records: [{ value: `v${from + i}` }] }).then((m) => m[0]!.offset),
        ),
      )
    expect(await send(0, 3)).toEqual([0n, 1n, 2n])
    // The next request fails without appending: the ones in flight behind it come back
    // OUT_OF_ORDER, and everything is resent in sequence order.
    cluster.produceErrors.set('t/0', [7])
    const offsets = await send(3, 40)
    expect(offsets).toEqual(offsets.map((_, i) => BigInt(i + 3)))
    expect(logValues(cluster)).toEqual(Array.from({ length: 43 }, (_, i) => `v${i}`))
    const seqs = cluster.logs.get('t/0')!.map((b) => readBatchHeader(b.bytes)!.baseSequence)
    expect(seqs).toEqual(seqs.map((_, i) => i))
    expect(cluster.outOfOrderAnswers).toBeGreaterThan(0) // batches were in flight behind the failed one
  })

  it('a retried batch whose acknowledgement was lost is not appended twice and gets its original offset', async () => {
    const { cluster, client } = await setup()
    cluster.appendThenFail.set('t/0', [7, 7]) // REQUEST_TIMED_OUT after appending, twice
    const offsets = await Promise.all(sendEach(client, 30))
    expect(offsets).toEqual(offsets.map((_, i) => BigInt(i)))
    expect(logValues(cluster)).toEqual(Array.from({ length: 30 }, (_, i) => `v${i}`))
  })

  it('a final failure rejects that send and the ones queued behind it, then continues with a fresh producer id', async () => {
    const { cluster, client } = await setup()
    const first = await Promise.all(sendEach(client, 3))
    expect(first).toEqual([0n, 1n, 2n])
    cluster.produceErrors.set('t/0', [10]) // MESSAGE_TOO_LARGE: final
    const producer = client.producer({ lingerMs: 0, batchBytes: 1, maxInFlight: 5 })
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        producer.send({ topic: 't', records: [{ value: `w${i}` }] }).then(
          (m) => String(m[0]!.offset),
          (e: unknown) => (e as SluiceError).code,
        ),
      ),
    )
    expect(outcomes[0]).toBe('MESSAGE_TOO_LARGE')
    // The rest either failed with the same code (their sequences followed the hole) or were
    // appended later under a fresh producer id; none is out of order or appended twice.
    const appended = outcomes.filter((o) => /^\d+$/.test(o)).length
    expect(outcomes.every((o) => o === 'MESSAGE_TOO_LARGE' || /^\d+$/.test(o))).toBe(true)
    const later = await producer.send({ topic: 't', records: [{ value: 'after' }] })
    expect(later[0]!.offset).toBe(BigInt(3 + appended))
    const values = logValues(cluster)
    expect(values.slice(0, 3)).toEqual(['v0', 'v1', 'v2'])
    expect(values[values.length - 1]).toBe('after')
    expect(new Set(values).size).toBe(values.length)
    expect(cluster.initProducerIdCalls).toBe(3) // two producers, plus the reset
  })
})
