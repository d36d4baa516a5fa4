/**
 * Producer load generator over the Kafka listener with kafkajs 2.2.4 (the same worker protocol
 * and measured loop as producer-worker.ts, which uses the SDK over gRPC). kafkajs has no linger:
 * every send() is one Produce request; in 'rate' mode one send is outstanding at a time (the
 * SDK's latency tuning is maxInFlight 1), so what falls due meanwhile goes in the next request.
 */
import { CompressionTypes, Kafka, logLevel, type Message } from 'kafkajs'
import { workerStdin, type ProducerWorkerConfig } from '../worker-protocol.js'
import { runProducerLoad } from './producer-load.js'

const { config: raw, go } = workerStdin()
const config = raw as ProducerWorkerConfig
const acks = config.tuning.acks === 'all' ? -1 : config.tuning.acks

async function main(): Promise<void> {
  const kafka = new Kafka({ clientId: 'bench-kafkajs-producer', brokers: config.bootstrap, logLevel: logLevel.NOTHING })
  const producer = kafka.producer({ allowAutoTopicCreation: false })
  await producer.connect()
  const send = (messages: Message[]) =>
    producer.send({ topic: config.topic, messages, acks, compression: CompressionTypes.None })
  await send([{ value: Buffer.alloc(config.recordBytes) }])
  process.stdout.write('READY\n')
  await go
  const result = await runProducerLoad<Message>(
    config,
    {
      record: (value, partition) => (partition === undefined ? { value } : { value, partition }),
      send,
      oneInFlight: true,
    },
    // kafkajs's default partitioner spreads keyless records one by one, so a send() becomes a
    // small batch per partition. 'sticky' sends each chunk to one partition, as the SDK's (and
    // the Java client's) sticky partitioner does, so both clients write batches of one size.
    (i, chunk) => (config.partitioning === 'spread' ? i % config.partitions : chunk % config.partitions),
  )
  await producer.disconnect()
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`)
  process.exit(0)
}

main().catch((err: unknown) => {
  process.stderr.write(`kafkajs producer worker failed: ${(err as Error)?.stack ?? String(err)}\n`)
  process.exit(1)
})
