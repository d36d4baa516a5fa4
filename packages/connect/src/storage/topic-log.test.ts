import type { ConsumerBatch, Logger, Producer, SluiceClient } from '@sluice/client'
import { describe, expect, it } from 'vitest'
import { READ_MARKER_KEY, TopicLog } from './topic-log.js'

const silent: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => silent }

interface Stored {
  offset: bigint
  key: Buffer | null
  value: Buffer | null
}

/**
 * A one-partition topic in memory: `records` hold what a consumer can deliver, `end` is the log
 * end offset, which a compacted tail (an empty batch) can put past the last record. The consumer
 * hands each new record to eachBatch; the producer appends at `end`.
 */
function fakeTopic(records: Array<[string, string | null]>, end: bigint) {
  const log: Stored[] = records.map(([k, v], i) => ({
    offset: BigInt(i),
    key: Buffer.from(k),
    value: v === null ? null : Buffer.from(v),
  }))
  const state = { end, delivered: 0, eachBatch: undefined as undefined | ((p: { batch: ConsumerBatch }) => void) }
  const deliver = (): void => {
    const fresh = log.slice(state.delivered)
    if (state.eachBatch === undefined || fresh.length === 0) return
    state.delivered = log.length
    state.eachBatch({
      batch: {
        topic: 't',
        partition: 0,
        highWatermark: state.end,
        messages: fresh.map((r) => ({ topic: 't', partition: 0, timestamp: 0n, headers: [], ...r })),
      },
    })
  }
  const client = {
    admin: () => ({
      listTopics: async () => ['t'],
      describeTopics: async () => [{ name: 't', partitions: [{ partition: 0 }] }],
      listOffsets: async () => [{ topic: 't', partition: 0, offset: state.end, timestamp: -1n }],
    }),
    consumer: () => ({
      assign: async () => [{ topic: 't', partition: 0 }],
      run: (o: { eachBatch: (p: { batch: ConsumerBatch }) => void }) => {
        state.eachBatch = o.eachBatch
        setImmediate(deliver)
        return { done: new Promise(() => {}), stop: async () => {} }
      },
      close: async () => {},
    }),
  } as unknown as SluiceClient
  const producer = {
    send: async (r: { records: Array<{ key: string; value: string | null }> }) => {
      for (const x of r.records)
        log.push({
          offset: state.end++,
          key: Buffer.from(x.key),
          value: x.value === null ? null : Buffer.from(x.value),
        })
      setImmediate(deliver)
    },
  } as unknown as Producer
  return { client, producer, log }
}

describe('TopicLog.readToEnd', () => {
  it('gets past a compacted tail that holds no record up to the end (a marker is written, not applied)', async () => {
    const { client, producer, log } = fakeTopic(
      [
        ['a', '1'],
        ['b', '2'],
      ],
      4n, // offsets 2 and 3: an empty batch left by the cleaner
    )
    const applied: string[] = []
    const topicLog = new TopicLog(client, producer, {
      topic: 't',
      partitions: 1,
      logger: silent,
      stallMs: 50,
      apply: (k) => applied.push(k!.toString()),
    })
    await topicLog.start()
    expect(applied).toEqual(['a', 'b'])
    expect(log.map((r) => [r.offset, r.key?.toString(), r.value])).toEqual([
      [0n, 'a', expect.any(Buffer)],
      [1n, 'b', expect.any(Buffer)],
      [4n, READ_MARKER_KEY, null],
    ])
    await topicLog.stop()
  })

  it('writes no marker when the records reach the end', async () => {
    const { client, producer, log } = fakeTopic([['a', '1']], 1n)
    const topicLog = new TopicLog(client, producer, {
      topic: 't',
      partitions: 1,
      logger: silent,
      stallMs: 10,
      apply: () => {},
    })
    await topicLog.start()
    await topicLog.readToEnd()
    expect(log).toHaveLength(1)
    await topicLog.stop()
  })
})
