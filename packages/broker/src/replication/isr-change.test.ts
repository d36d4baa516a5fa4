import { describe, expect, it } from 'vitest'
import { ManualClock, errorId, type wire } from '@sluice/protocol'
import { PendingIsrChange, type IsrChangeRequest } from './isr-change.js'

function harness() {
  const sent: IsrChangeRequest[] = []
  const answers: Array<(r: wire.AlterPartitionResponse__Output | Error) => void> = []
  const events: string[] = []
  const current = { leaderEpoch: 3, partitionEpoch: 7 }
  const clock = new ManualClock()
  const change = new PendingIsrChange({
    send: async (req) => {
      sent.push(req)
      const r = await new Promise<wire.AlterPartitionResponse__Output | Error>((resolve) => answers.push(resolve))
      if (r instanceof Error) throw r
      return r
    },
    retryBackoffMs: 5,
    onCommitted: (s) => events.push(`committed ${s.isr.join()}`),
    onDropped: () => events.push('dropped'),
    onSendError: () => events.push('send error'),
    current: () => current,
    clock,
  })
  const state = (isr: number[], leaderEpoch = 3, partitionEpoch = 8): wire.PartitionState__Output => ({
    topic: 't',
    partition: 0,
    leader: 1,
    leader_epoch: leaderEpoch,
    replicas: [1, 2, 3],
    isr,
    controller_epoch: 1,
    partition_epoch: partitionEpoch,
    topic_id: '',
  })
  const tick = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await Promise.resolve()
  }
  return { change, sent, answers, events, state, tick, current, clock }
}

describe('PendingIsrChange', () => {
  it('counts a proposed addition in the maximal ISR until the controller commits it; one request at a time', async () => {
    const h = harness()
    expect(h.change.propose({ newIsr: [1, 2, 3], leaderEpoch: 3, partitionEpoch: 7 })).toBe(true)
    expect(h.change.propose({ newIsr: [1, 2], leaderEpoch: 3, partitionEpoch: 7 })).toBe(false)
    expect(h.change.maximal([1, 2])).toEqual([1, 2, 3])
    h.answers.shift()!({ error_code: 0, error_message: '', state: h.state([1, 2, 3]) })
    await h.tick()
    expect(h.events).toEqual(['committed 1,2,3'])
    expect(h.change.active).toBe(false)
    expect(h.change.maximal([1, 2])).toEqual([1, 2])
  })

  it('keeps the proposal and retries after a lost answer, until a newer partition state arrives', async () => {
    const h = harness()
    h.change.propose({ newIsr: [1, 2, 3], leaderEpoch: 3, partitionEpoch: 7 })
    h.answers.shift()!(new Error('unavailable'))
    await h.tick()
    expect(h.change.maximal([1, 2])).toEqual([1, 2, 3]) // it may have been committed
    h.clock.advance(4) // the retry waits the whole backoff (5 ms)
    expect(h.sent).toHaveLength(1)
    h.clock.advance(1)
    expect(h.sent).toHaveLength(2)
    h.answers.shift()!({ error_code: errorId('FENCED_LEADER_EPOCH'), error_message: 'stale', state: null })
    await h.tick()
    expect(h.change.active).toBe(true)
    h.change.onState(3, 8) // the controller's update shows the new partition epoch
    expect(h.change.active).toBe(false)
    expect(h.events).toEqual(['send error', 'dropped'])
    h.change.cancel()
  })

  it('drops the proposal when a newer state arrived while the request was in flight and it then failed', async () => {
    const h = harness()
    h.change.propose({ newIsr: [1, 2], leaderEpoch: 3, partitionEpoch: 7 })
    h.change.onState(3, 8) // in flight: the answer decides
    expect(h.change.active).toBe(true)
    h.current.partitionEpoch = 8
    h.answers.shift()!({ error_code: errorId('FENCED_LEADER_EPOCH'), error_message: 'stale', state: null })
    await h.tick()
    expect(h.change.active).toBe(false)
    expect(h.sent).toHaveLength(1)
  })

  it('drops a proposal the controller rejected as invalid (nothing was written)', async () => {
    const h = harness()
    h.change.propose({ newIsr: [1, 4], leaderEpoch: 3, partitionEpoch: 7 })
    h.answers.shift()!({ error_code: errorId('INVALID_REQUEST'), error_message: 'not alive', state: null })
    await h.tick()
    expect(h.change.active).toBe(false)
    expect(h.events).toEqual(['dropped'])
  })
})
