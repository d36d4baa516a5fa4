import { describe, expect, it } from 'vitest'
import { errorId, type wire } from '@sluice/protocol'
import { startHarness, waitFor, type FakeBroker, type Harness } from '../test-support/harness.js'

type AlterRes = wire.AlterPartitionResponse__Output

async function brokers(h: Harness, ids: number[]): Promise<FakeBroker[]> {
  const out: FakeBroker[] = []
  for (const id of ids) {
    const b = h.broker({ broker_id: id, port: 19000 + id, session_timeout_ms: 0 })
    await b.registered()
    out.push(b)
  }
  return out
}

async function state(h: Harness, topic: string): Promise<wire.PartitionState__Output> {
  const d = await h.call<wire.DescribeTopicsResponse__Output>('DescribeTopics', { names: [topic] })
  return d.topics[0]!.partitions[0]!
}

describe('controller: replication support', () => {
  it("moves leadership back to the preferred replica once it re-enters the ISR, and fences the deposed leader's ISR changes", async () => {
    const h = await startHarness()
    const [b1, b2] = await brokers(h, [1, 2, 3])
    const res = await h.call<wire.CreateTopicsResponse__Output>('CreateTopics', {
      topics: [
        {
          name: 'pref',
          num_partitions: -1,
          replication_factor: -1,
          configs: {},
          assignments: [{ partition: 0, replicas: [1, 2, 3] }],
        },
      ],
    })
    expect(res.topics[0]!.error_code).toBe(0)
    const initial = await state(h, 'pref')
    b1!.cancel() // the preferred leader is lost: broker 2 takes over with a new leader epoch
    await waitFor(() => b2!.view().partitions.get('pref-0')?.leader === 2, 'failover to broker 2')
    const failedOver = await state(h, 'pref')
    expect(failedOver).toMatchObject({ leader: 2, leader_epoch: initial.leader_epoch + 1, isr: [2, 3] })

    // An ISR change quoting the leader epoch from before the failover is refused and changes nothing.
    const stale = await h.call<AlterRes>('AlterPartition', {
      broker_id: 2,
      broker_epoch: b2!.epoch,
      topic: 'pref',
      partition: 0,
      leader_epoch: initial.leader_epoch,
      partition_epoch: failedOver.partition_epoch,
      new_isr: [2],
    })
    expect(stale.error_code).toBe(errorId('FENCED_LEADER_EPOCH'))
    expect(await state(h, 'pref')).toEqual(failedOver)

    const [b1again] = await brokers(h, [1])
    // Back, but not in sync: nothing moves until the leader adds it to the ISR.
    const grow = await h.call<AlterRes>('AlterPartition', {
      broker_id: 2,
      broker_epoch: b2!.epoch,
      topic: 'pref',
      partition: 0,
      leader_epoch: failedOver.leader_epoch,
      partition_epoch: failedOver.partition_epoch,
      new_isr: [2, 3, 1],
    })
    expect(grow).toMatchObject({ error_code: 0, state: { leader: 2, isr: [2, 3, 1] } })
    await waitFor(
      () => b1again!.view().partitions.get('pref-0')?.leader === 1,
      'automatic preferred-leader election',
      10_000,
    )
    expect(await state(h, 'pref')).toMatchObject({
      leader: 1,
      leader_epoch: failedOver.leader_epoch + 1,
      isr: [2, 3, 1],
    })
  })
})
