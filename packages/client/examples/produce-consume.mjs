#!/usr/bin/env node
// A runnable SDK example: create a topic, produce keyed records, read them back.
// Start a cluster first (`npx -y pnpm@10.34.9 dev`), then: node packages/client/examples/produce-consume.mjs
// SLUICE_BOOTSTRAP overrides the bootstrap address (default 127.0.0.1:9192, broker 1's gRPC port under `sluice dev`).
import { connect, isSluiceError } from '@sluice/client'

const bootstrap = (process.env.SLUICE_BOOTSTRAP ?? '127.0.0.1:9192').split(',')
const topic = process.argv[2] ?? 'payments'

const client = await connect({ bootstrap, clientId: 'example' })
try {
  try {
    await client.admin().createTopics([{ name: topic, numPartitions: 6 }])
    console.log(`created topic ${topic}`)
  } catch (err) {
    if (!isSluiceError(err, 'TOPIC_ALREADY_EXISTS')) throw err
  }

  const producer = client.producer({ acks: 'all', lingerMs: 5, compression: 'lz4' })
  const records = Array.from({ length: 10 }, (_, i) => ({
    key: `user-${i % 3}`,
    value: JSON.stringify({ cents: 100 * i }),
  }))
  const acks = await producer.send({ topic, records })
  for (const a of acks) console.log(`acknowledged: partition ${a.partition} offset ${a.offset}`)
  await producer.close()

  // Read back exactly what was written: one partition, from the first acknowledged offset.
  const first = acks[0]
  const wanted = acks.filter((a) => a.partition === first.partition).length
  const consumer = client.consumer({ maxWaitMs: 500 })
  await consumer.assign([{ topic, partition: first.partition }])
  consumer.seek({ topic, partition: first.partition, offset: first.offset })
  let seen = 0
  for await (const m of consumer) {
    console.log(`consumed: partition ${m.partition} offset ${m.offset} key ${m.key} value ${m.value}`)
    if (++seen === wanted) break
  }
  await consumer.close()
} finally {
  await client.close()
}
