/**
 * Consumer load generator over the Kafka listener with kafkajs 2.2.4 (the same worker protocol
 * and counting as consumer-worker.ts). kafkajs consumes only in a group: a fresh group per run,
 * so 'beginning' reads from the log start and 'end' from the end. READY once the group is
 * joined; batches that arrive before GO wait for GO, so the join is not in the measured window.
 * Offsets are not committed (autoCommit off): the SDK's bench consumer is assigned and commits
 * nothing either, and kafkajs commits in its fetch loop, so with commits on every fetch waits
 * for an OffsetCommit round (a replicated write of __consumer_offsets) before the next one.
 */
import { Kafka, logLevel } from 'kafkajs'
import { workerStdin, type ConsumerWorkerConfig } from '../worker-protocol.js'
import { awaitConsumed, ConsumedCounter } from './consumer-load.js'

const { config: raw, go, stop } = workerStdin()
const config = raw as ConsumerWorkerConfig

async function main(): Promise<void> {
  const kafka = new Kafka({ clientId: 'bench-kafkajs-consumer', brokers: config.bootstrap, logLevel: logLevel.NOTHING })
  const consumer = kafka.consumer({
    groupId: `bench-kafkajs-${process.pid}-${Date.now()}`,
    maxWaitTimeInMs: config.maxWaitMs,
    maxBytesPerPartition: config.maxPartitionBytes,
    maxBytes: config.maxBytes,
  })
  await consumer.connect()
  await consumer.subscribe({ topic: config.topic, fromBeginning: config.from === 'beginning' })
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()))
  const counter = new ConsumedCounter(config)
  void go.then(() => counter.start())
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      await go
      counter.onBatch(batch.messages.map((m) => m.value))
    },
  })
  await joined
  process.stdout.write('READY\n')
  await go
  const timedOut = await awaitConsumed(counter, config, stop)
  const result = counter.result(timedOut)
  await consumer.disconnect()
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`)
  process.exit(0)
}

main().catch((err: unknown) => {
  process.stderr.write(`kafkajs consumer worker failed: ${(err as Error)?.stack ?? String(err)}\n`)
  process.exit(1)
})
