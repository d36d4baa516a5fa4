/**
 * Producer load generator with the SDK (one process; protocol in
 * ../worker-protocol.ts, the measured loop in producer-load.ts). Record values are generated
 * before GO and reused (the producer copies them into its batches when it encodes), so the run
 * measures the client and the cluster, not data generation; the producer's own bufferBytes
 * back-pressure decides the pace.
 */
import { connect, type ProducerRecord } from '@sluice/client'
import { benchDataTransport, workerStdin, type ProducerWorkerConfig } from '../worker-protocol.js'
import { runProducerLoad } from './producer-load.js'

const { config: raw, go } = workerStdin()
const config = raw as ProducerWorkerConfig

async function main(): Promise<void> {
  const dataTransport = benchDataTransport()
  const client = await connect({
    bootstrap: config.bootstrap,
    clientId: 'bench-producer',
    ...(dataTransport !== undefined ? { dataTransport } : {}),
  })
  const producer = client.producer({
    acks: config.tuning.acks,
    lingerMs: config.tuning.lingerMs,
    batchBytes: config.tuning.batchBytes,
    maxInFlight: config.tuning.maxInFlight,
    bufferBytes: config.tuning.bufferBytes,
    compression: 'none',
  })
  // One warm-up send so metadata and streams exist before the clock starts.
  await producer.send({ topic: config.topic, records: [{ value: Buffer.alloc(config.recordBytes) }] })
  process.stdout.write('READY\n')
  await go
  const result = await runProducerLoad<ProducerRecord>(
    config,
    {
      record: (value, partition) => (partition === undefined ? { value } : { value, partition }),
      send: (records) => producer.send({ topic: config.topic, records }),
    },
    // 'sticky' leaves keyless records to the SDK's sticky partitioner.
    (i) => (config.partitioning === 'spread' ? i % config.partitions : undefined),
  )
  await client.close()
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`)
  process.exit(0)
}

main().catch((err: unknown) => {
  process.stderr.write(`producer worker failed: ${(err as Error)?.stack ?? String(err)}\n`)
  process.exit(1)
})
