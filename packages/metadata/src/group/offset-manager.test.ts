import { describe, expect, it } from 'vitest'
import { pino } from 'pino'
import { SluiceError } from '@sluice/protocol'
import { OffsetManager, commitFailure } from './offset-manager.js'
import { decodeOffsetKey, encodeOffsetKey, encodeOffsetValue } from './offset-records.js'
import type { OffsetRecord, OffsetsLog } from './offsets-log.js'

/** An in-memory offsets topic whose appends the test acknowledges (or fails) by hand. */
class FakeLog implements OffsetsLog {
  readonly records: OffsetRecord[] = []
  readonly pending: Array<{ records: readonly OffsetRecord[]; ack: () => void; fail: (e: Error) => void }> = []
  topic = true
  readFailures = 0

  exists(): boolean {
    return this.topic
  }
  async append(_groupId: string, records: readonly OffsetRecord[]): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.pending.push({
        records,
        ack: () => {
          this.records.push(...records)
          resolve()
        },
        fail: reject,
      })
    })
  }

  async readAll(onRecord: (key: Buffer, value: Buffer | null) => void): Promise<void> {
    if (this.readFailures-- > 0) throw new SluiceError('NETWORK_EXCEPTION', 'broker unreachable')
    for (const r of this.records) onRecord(r.key, r.value)
  }

  async close(): Promise<void> {}
}

const silent = pino({ level: 'silent' })
const value = (
  offset: bigint,
  ts = 1,
): { offset: bigint; leaderEpoch: number; metadata: string; commitTimestamp: number } => ({
  offset,
  leaderEpoch: 0,
  metadata: '',
  commitTimestamp: ts,
})
const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve()
}

describe('OffsetManager', () => {
  it('caches a commit only once the log acknowledged it; a failed write changes nothing', async () => {
    const log = new FakeLog()
    const m = new OffsetManager(log, silent)
    await m.startLoading({ timeoutMs: 1000, retryMs: 1 })
    const c = m.commit('g', [{ topic: 't', partition: 0, value: value(5n) }])
    await flush()
    expect(m.get('g', 't', 0)).toBeUndefined()
    log.pending[0]!.ack()
    await c
    expect(m.get('g', 't', 0)?.offset).toBe(5n)
    const failing = m.commit('g', [{ topic: 't', partition: 0, value: value(9n) }])
    await flush()
    log.pending[1]!.fail(new SluiceError('NOT_ENOUGH_REPLICAS'))
    await expect(failing).rejects.toThrow()
    expect(m.get('g', 't', 0)?.offset).toBe(5n)
  })

  it('an older write acknowledged after a newer one does not overwrite it, not even a deletion', async () => {
    const log = new FakeLog()
    const m = new OffsetManager(log, silent)
    await m.startLoading({ timeoutMs: 1000, retryMs: 1 })
    const first = m.commit('g', [{ topic: 't', partition: 0, value: value(1n) }])
    const second = m.delete('g', [{ topic: 't', partition: 0 }])
    await flush()
    log.pending[1]!.ack()
    await second
    log.pending[0]!.ack()
    await first
    expect(m.get('g', 't', 0)).toBeUndefined()
    expect(m.hasGroup('g')).toBe(false)
  })

  it('rebuilds the cache by replaying the log (tombstones included), retrying a failed read; loaded turns true only then', async () => {
    const log = new FakeLog()
    const k = (p: number): Buffer => encodeOffsetKey({ group: 'g', topic: 't', partition: p })
    log.records.push(
      { key: k(0), value: encodeOffsetValue(value(3n)) },
      { key: k(1), value: encodeOffsetValue(value(4n)) },
      { key: Buffer.from('0002000167', 'hex'), value: Buffer.from('garbage') },
      { key: k(0), value: encodeOffsetValue(value(8n)) },
      { key: k(1), value: null },
    )
    log.readFailures = 2
    const m = new OffsetManager(log, silent)
    const loading = m.startLoading({ timeoutMs: 1000, retryMs: 1 })
    expect(m.loaded).toBe(false)
    await loading
    expect(m.loaded).toBe(true)
    expect(m.list('g').map((o) => [o.partition, o.offset])).toEqual([[0, 8n]])
  })

  it('expires offsets of empty groups by the later of commit time and emptiness, with tombstones; active groups keep theirs', async () => {
    const log = new FakeLog()
    const m = new OffsetManager(log, silent)
    await m.startLoading({ timeoutMs: 1000, retryMs: 1 })
    const commits = [
      m.commit('empty', [
        { topic: 't', partition: 0, value: value(1n, 100) },
        { topic: 't', partition: 1, value: value(1n, 900) },
      ]),
      m.commit('active', [{ topic: 't', partition: 0, value: value(1n, 100) }]),
    ]
    await flush()
    for (const p of log.pending) p.ack()
    await Promise.all(commits)
    const sweep = m.expire(1500, 1000, (g) => (g === 'empty' ? 200 : undefined))
    await flush()
    log.pending[2]!.ack()
    expect(await sweep).toEqual(['empty'])
    expect(m.list('empty').map((o) => o.partition)).toEqual([1])
    expect(m.list('active')).toHaveLength(1)
    const tomb = log.records.at(-1)!
    expect(tomb.value).toBeNull()
    expect(decodeOffsetKey(tomb.key)).toEqual({ group: 'empty', topic: 't', partition: 0 })
  })

  it('maps write failures to what a committing client should see', () => {
    expect(commitFailure(new SluiceError('MESSAGE_TOO_LARGE')).code).toBe('INVALID_COMMIT_OFFSET_SIZE')
    expect(commitFailure(new SluiceError('NOT_ENOUGH_REPLICAS')).code).toBe('COORDINATOR_NOT_AVAILABLE')
    expect(commitFailure(new Error('boom')).code).toBe('COORDINATOR_NOT_AVAILABLE')
  })
})
