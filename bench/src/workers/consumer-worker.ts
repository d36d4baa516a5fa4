/**
 * Consumer load generator with the SDK (one process; protocol in
 * ../worker-protocol.ts, counting in consumer-load.ts). Assigns every partition of the topic at
 * the beginning or the end, reports READY once the start positions are known, and on GO
 * consumes with run({ eachBatch }).
 */
import { connect } from '@sluice/client'
import { benchDataTransport, workerStdin, type ConsumerWorkerConfig } from '../worker-protocol.js'
import { awaitConsumed, ConsumedCounter } from './consumer-load.js'

const { config: raw, go, stop } = workerStdin()
const config = raw as ConsumerWorkerConfig

async function main(): Promise<void> {
  const dataTransport = benchDataTransport()
  const client = await connect({
    bootstrap: config.bootstrap,
    clientId: 'bench-consumer',
    ...(dataTransport !== undefined ? { dataTransport } : {}),
  })
  const consumer = client.consumer({
    maxWaitMs: config.maxWaitMs,
    maxPartitionBytes: config.maxPartitionBytes,
    maxBytes: config.maxBytes,
    offsetReset: config.from === 'beginning' ? 'earliest' : 'latest',
  })
  await consumer.assign([{ topic: config.topic }])
  process.stdout.write('READY\n')
  await go

  const counter = new ConsumedCounter(config)
  counter.start()
  const handle = consumer.run({
    eachBatch: ({ batch }) => counter.onBatch(batch.messages.map((m) => m.value)),
  })
  void handle.done.then(
    () => counter.end(),
    (err: unknown) => {
      process.stderr.write(`consumer run failed: ${String(err)}\n`)
      counter.end()
    },
  )
  const timedOut = await awaitConsumed(counter, config, stop)
  const result = counter.result(timedOut)
  await handle.stop()
  await client.close()
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`)
  process.exit(0)
}

main().catch((err: unknown) => {
  process.stderr.write(`consumer worker failed: ${(err as Error)?.stack ?? String(err)}\n`)
  process.exit(1)
})
