/**
 * A producer without a network, for the append-path test and the client micro-benchmark: the
 * producer's Sender is replaced by a stand-in that, on the turn after a wake-up, drains every
 * ready batch and acknowledges it with the partition's next offsets (nothing is encoded or sent),
 * then wakes send() calls waiting for buffer space. The metadata cache knows one topic with
 * `partitions` partitions, all led by broker 1.
 */
import { silentLogger } from '../logger.js'
import type { ConnectionPool } from '../network/connection-pool.js'
import type { MetadataCache } from '../network/metadata-cache.js'
import { resolveConnectOptions } from '../options.js'
import type { RecordAccumulator } from '../producer/accumulator.js'
import { ProducerImpl, resolveProducerOptions, type ProducerOptions } from '../producer/producer.js'

export interface StandInProducer {
  readonly producer: ProducerImpl
  /** Turns in which the stand-in drained. */
  drains(): number
}

export function producerWithStandInSender(options: ProducerOptions, partitions: number): StandInProducer {
  const client = resolveConnectOptions({ bootstrap: ['127.0.0.1:1'] })
  const list = Array.from({ length: partitions }, (_, partition) => ({ partition, leader: 1 }))
  const cache = {
    topic: async (name: string) => ({ name, partitions: list }),
    leaderOf: () => ({ brokerId: 1, endpoint: '127.0.0.1:1' }),
    brokers: new Map(),
    refresh: async () => {},
    requestRefresh: () => {},
  } as unknown as MetadataCache
  const producer = new ProducerImpl(
    cache,
    {} as unknown as ConnectionPool,
    resolveProducerOptions(options, client),
    client,
    silentLogger,
  )
  const internals = producer as unknown as { acc: RecordAccumulator; sender: unknown; wakeSpaceWaiters: () => void }
  const next = new Array<bigint>(partitions).fill(0n)
  let scheduled = false
  let drains = 0
  internals.sender = {
    wakeup: () => {
      if (scheduled) return
      scheduled = true
      setImmediate(() => {
        scheduled = false
        drains++
        // One drain takes one batch per partition: repeat until every queue is empty.
        while (!internals.acc.isEmpty) {
          const d = internals.acc.drain({
            flush: true,
            muted: new Set(),
            leaderOf: () => 1,
            canSend: () => true,
            maxRequestBytes: 1 << 30,
          })
          for (const batches of d.byBroker.values()) {
            for (const b of batches) {
              internals.acc.release(b)
              b.complete({ baseOffset: options.acks === 0 ? -1n : next[b.partition]!, logAppendTimeMs: -1n })
              next[b.partition]! += BigInt(b.records.length)
            }
          }
        }
        internals.wakeSpaceWaiters()
      })
    },
    flush: async () => {},
    close: () => {},
  }
  return { producer, drains: () => drains }
}
