/**
 * DeleteRecords with replication: the leader answers only once every follower in the ISR moved
 * its own log start offset up to the requested offset (they learn it from fetch responses and
 * report theirs in fetch requests), and REQUEST_TIMED_OUT when an ISR follower does not.
 */
import { describe, expect, it } from 'vitest'
import { errorId, type wire } from '@sluice/protocol'
import { brokerInternals } from '@sluice/broker/internal'
import { batch, onlyPartition, unaryCall } from '../../src/broker/harness.js'
import { FAST_REPLICATION, ReplicationCluster } from '../../src/broker/replication-cluster.js'

type Client = ReturnType<ReplicationCluster['client']>

async function produce(client: Client, topic: string, values: string[]): Promise<void> {
  const r = onlyPartition(
    await client.produce({
      acks: -1,
      timeout_ms: 10_000,
      topics: [{ topic, partitions: [{ partition: 0, records: batch(values) }] }],
    }),
  )
  expect(r.error_code).toBe(0)
}

function deleteRecords(client: Client, topic: string, offset: string, timeoutMs: number) {
  return unaryCall<wire.DeleteRecordsRequest, wire.DeleteRecordsResponse__Output>(
    (r, cb) => client.raw.DeleteRecords(r, cb),
    { timeout_ms: timeoutMs, topics: [{ topic, partitions: [{ partition: 0, offset }] }] },
  )
}

describe('DeleteRecords with replication', () => {
  it('answers once every ISR follower moved its log start offset, and times out while one does not fetch', async () => {
    // A long lag limit: a follower that stops fetching stays in the ISR for the whole test.
    const c = await ReplicationCluster.start(3, { ...FAST_REPLICATION, replicaLagMaxMs: 60_000 })
    const topic = await c.topic([1, 2, 3])
    await c.waitForState(topic, (s) => s.leader === 1 && s.isr.length === 3, 'leader 1 with a full ISR')
    for (let i = 0; i < 5; i++) await produce(c.client(1), topic, [`a${i}`, `b${i}`])

    const ok = onlyPartition(await deleteRecords(c.client(1), topic, '6', 10_000))
    expect([ok.error_code, ok.low_watermark]).toEqual([0, '6'])
    // Answered: so the followers already hold nothing below 6.
    for (const id of [1, 2, 3]) expect(c.replica(id, topic)!.logStartOffset).toBe(6n)

    // Broker 3 stops fetching (its session stays, so it stays in the ISR).
    await brokerInternals(c.brokers.get(3)!)!.fetchers.stop()
    const started = Date.now()
    const timedOut = onlyPartition(await deleteRecords(c.client(1), topic, '8', 300))
    expect(timedOut.error_code).toBe(errorId('REQUEST_TIMED_OUT'))
    expect(timedOut.error_message).toMatch(/low watermark/)
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    // The leader moved its own start all the same; broker 2 follows, broker 3 cannot.
    expect(c.replica(1, topic)!.logStartOffset).toBe(8n)
    expect(c.replica(3, topic)!.logStartOffset).toBe(6n)
    expect(c.state(topic)!.isr).toHaveLength(3)
  })
})
