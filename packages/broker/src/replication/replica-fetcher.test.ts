import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { errorId, ManualClock } from '@sluice/protocol'
import { partitionKey } from '../metadata-cache.js'
import type { Partition } from '../partition.js'
import type { FollowerFetchAnswer, FollowerFetchPartitionAnswer, FollowerFetchRequest } from './follower-fetch-types.js'
import { ReplicaFetcher } from './replica-fetcher.js'
import type { ReplicaFetchConnection } from './replica-fetch-transport.js'

/** Lets the fetch loop run up to its next wait. */
async function turn(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve))
}

describe('ReplicaFetcher', () => {
  it('while the source broker is unknown, looks it up again exactly every backoff (50 ms) on its clock, and stop() ends the wait', async () => {
    const clock = new ManualClock()
    let lookups = 0
    const fetcher = new ReplicaFetcher({
      brokerId: 1,
      sourceBrokerId: 2,
      resolveEndpoint: () => {
        lookups++
        return undefined
      },
      connect: () => {
        throw new Error('no endpoint, so no connection')
      },
      brokerEpoch: () => 1n,
      waitMaxMs: 500,
      minBytes: 1,
      maxBytesPerPartition: 1024,
      logger: pino({ level: 'silent' }),
      clock,
    })
    await turn()
    expect(lookups).toBe(1)
    clock.advance(49)
    await turn()
    expect(lookups).toBe(1)
    clock.advance(1)
    await turn()
    expect(lookups).toBe(2)
    clock.advance(50)
    await turn()
    expect(lookups).toBe(3)
    await fetcher.stop()
    expect(clock.pendingTimers).toBe(0)
  })

  it('gives up on a connection whose answer is overdue, and never on one that answers in time', async () => {
    // The first connection never answers; every later one answers each fetch after 5 ms. The
    // deadline is waitMaxMs 10 + grace 40 = 50 ms, re-armed for every fetch.
    const connections: string[] = []
    let answered = 0
    let stopAnswering = false
    const answerSoon = (req: FollowerFetchRequest): Promise<FollowerFetchAnswer> =>
      new Promise((resolve) => {
        if (stopAnswering) return // the connection went quiet: this fetch is never answered
        setTimeout(() => {
          answered++
          resolve({ correlationId: req.correlationId, errorCode: 0, errorMessage: '', topics: [] })
        }, 5)
      })
    const connect = (): ReplicaFetchConnection => {
      const silent = connections.length === 0 || stopAnswering
      connections.push(silent ? 'silent' : 'answering')
      return { fetch: silent ? () => new Promise<never>(() => {}) : answerSoon, close: () => {} }
    }
    const fetcher = new ReplicaFetcher({
      brokerId: 1,
      sourceBrokerId: 2,
      resolveEndpoint: () => ({ address: '127.0.0.1:1', transport: 'kafka' }),
      connect,
      brokerEpoch: () => 1n,
      waitMaxMs: 10,
      minBytes: 1,
      maxBytesPerPartition: 1024,
      logger: pino({ level: 'silent' }),
      responseGraceMs: 40,
    })
    const replica = {
      key: 't\u00000',
      topic: 't',
      partition: 0,
      logEndOffset: 0n,
      logStartOffset: 0n,
      lastFetchedEpoch: -1,
    }
    fetcher.add(replica as unknown as Partition, 0)
    const deadline = Date.now() + 5000
    while (connections.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    expect(connections).toEqual(['silent', 'answering'])
    // 40 answers of 5 ms each span four deadlines: none may fire while answers keep coming.
    while (answered < 40 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    expect(answered).toBeGreaterThanOrEqual(40)
    expect(connections).toEqual(['silent', 'answering'])
    // And a connection that goes quiet later is given up on too: the deadline is re-armed each time.
    stopAnswering = true
    while (connections.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    expect(connections).toEqual(['silent', 'answering', 'silent'])
    await fetcher.stop()
  })

  it("asks from each replica's own offsets and applies the answer: records and HW, truncation, divergence, log start, backoff", async () => {
    const calls: string[] = []
    const replica = (partition: number, logEndOffset: bigint): Partition =>
      ({
        key: partitionKey('t', partition),
        topic: 't',
        partition,
        logEndOffset,
        logStartOffset: 0n,
        highWatermark: 0n,
        lastFetchedEpoch: 1,
        // This follower's epoch 1 ends at 6.
        log: {
          endOffsetForEpoch: (e: number) => (e === 1 ? { epoch: 1, endOffset: 6n } : { epoch: -1, endOffset: -1n }),
        },
        appendAsFollower: async (records: Buffer, epoch: number) => {
          calls.push(`${partition} append ${records.toString()} @${epoch}`)
        },
        updateFollowerHighWatermark: (hw: bigint) => {
          calls.push(`${partition} hw ${hw}`)
        },
        truncateTo: async (offset: bigint, epoch: number) => {
          calls.push(`${partition} truncate ${offset} @${epoch}`)
        },
        followLeaderLogStart: async (offset: bigint, epoch: number) => {
          calls.push(`${partition} log start ${offset} @${epoch}`)
        },
      }) as unknown as Partition
    const answer = (partition: number, more: Partial<FollowerFetchPartitionAnswer>): FollowerFetchPartitionAnswer => ({
      partition,
      errorCode: 0,
      errorMessage: '',
      highWatermark: 0n,
      logStartOffset: 0n,
      logEndOffset: -1n,
      records: Buffer.alloc(0),
      divergingEpoch: undefined,
      ...more,
    })
    const OUT_OF_RANGE = errorId('OFFSET_OUT_OF_RANGE')
    const requests: FollowerFetchRequest[] = []
    let inFlight: ((e: Error) => void) | undefined
    const connection: ReplicaFetchConnection = {
      fetch: (req) => {
        requests.push(req)
        if (requests.length > 1) return new Promise((_, reject) => (inFlight = reject)) // answered once only
        return Promise.resolve({
          correlationId: req.correlationId,
          errorCode: 0,
          errorMessage: '',
          topics: [
            {
              topic: 't',
              partitions: [
                answer(0, { records: Buffer.from('batch'), highWatermark: 12n, logStartOffset: 3n }),
                // Past the leader's end, which Kafka does not tell (-1): the high watermark stands in.
                answer(1, { errorCode: OUT_OF_RANGE, highWatermark: 3n }),
                answer(2, { divergingEpoch: { epoch: 1, endOffset: 4n } }),
                // Behind the leader's log start.
                answer(3, { errorCode: OUT_OF_RANGE, highWatermark: 20n, logStartOffset: 7n, logEndOffset: 20n }),
                answer(4, { errorCode: errorId('UNKNOWN_TOPIC_ID') }),
              ],
            },
          ],
        })
      },
      close: (reason) => inFlight?.(reason),
    }
    const fetcher = new ReplicaFetcher({
      brokerId: 1,
      sourceBrokerId: 2,
      resolveEndpoint: () => ({ address: '127.0.0.1:1', transport: 'kafka' }),
      connect: () => connection,
      brokerEpoch: () => 7n,
      waitMaxMs: 10,
      minBytes: 1,
      maxBytesPerPartition: 1024,
      logger: pino({ level: 'silent' }),
    })
    const ends = [5n, 10n, 8n, 0n, 2n]
    for (const [partition, end] of ends.entries()) fetcher.add(replica(partition, end), 5)
    const deadline = Date.now() + 5000
    while (requests.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    await fetcher.stop()

    const first = requests[0]!
    expect([first.replicaId, first.replicaEpoch, first.topics.map((t) => t.topic)]).toEqual([1, 7n, ['t']])
    expect(first.topics[0]!.partitions).toEqual(
      ends.map((end, partition) => ({
        partition,
        currentLeaderEpoch: 5,
        fetchOffset: end,
        lastFetchedEpoch: 1,
        logStartOffset: 0n,
        partitionMaxBytes: 1024,
      })),
    )
    expect(calls.sort()).toEqual([
      '0 append batch @5',
      '0 hw 12',
      '0 log start 3 @5',
      '1 truncate 3 @5',
      '2 truncate 4 @5', // min(leader's end of epoch 1, ours, our log end)
      '3 log start 7 @5',
    ])
    // The partition that answered an error backs off; the others are asked again at once.
    expect(requests[1]!.topics[0]!.partitions.map((p) => p.partition)).toEqual([0, 1, 2, 3])
  })
})
