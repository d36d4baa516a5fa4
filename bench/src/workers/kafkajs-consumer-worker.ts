/**
 * Consumer load generator over the Kafka listener with kafkajs 2.2.4 (the same protocol and
 * config as consumer-worker.ts). kafkajs consumes only in a group: a fresh group per run, so
 * 'beginning' reads from the log start and 'end' from the end. READY once the group is joined;
 * batches that arrive before GO are held until GO (so the join is not in the measured window).
 */
import { Kafka, logLevel } from 'kafkajs'
import { newHistogram, recordUs, summarize } from '../histogram.js'
import {
  cpuPercentSince,
  workerStdin,
  type ConsumerWorkerConfig,
  type ConsumerWorkerResult,
} from '../worker-protocol.js'

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

  const hist = newHistogram()
  let startMs = 0
  let startCpu = process.cpuUsage()
  let warmEndMs = 0
  let started = false
  let total = 0
  let counted = 0
  let bytes = 0
  let lastMs = 0
  let finish!: () => void
  const done = new Promise<void>((resolve) => {
    finish = resolve
  })
  void go.then(() => {
    started = true
    startMs = performance.now()
    startCpu = process.cpuUsage()
    warmEndMs = config.expectRecords === undefined ? startMs + config.warmupMs : startMs
  })
  await consumer.run({
    eachBatch: async ({ batch }) => {
      if (!started) await go
      const now = performance.now()
      const n = batch.messages.length
      total += n
      lastMs = now
      if (now >= warmEndMs) {
        counted += n
        for (const m of batch.messages) bytes += m.value?.length ?? 0
        if (config.latency) {
          const nowNs = process.hrtime.bigint()
          for (const m of batch.messages) {
            if (m.value === null || m.value.length < 12) continue
            recordUs(hist, Number(nowNs - m.value.readBigInt64BE(0)) / 1000)
          }
        }
      }
      if (config.expectRecords !== undefined && total >= config.expectRecords) finish()
    },
  })
  await joined
  process.stdout.write('READY\n')
  await go
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    finish()
  }, config.timeoutMs)
  void stop.then(finish)
  await done
  clearTimeout(timer)
  const endMs = config.expectRecords !== undefined ? lastMs : performance.now()
  const windowMs = Math.max(1, endMs - warmEndMs)
  const cpuPercent = cpuPercentSince(startCpu, startMs)
  await consumer.disconnect()
  const result: ConsumerWorkerResult = {
    records: counted,
    bytes,
    windowMs: Math.round(windowMs),
    recordsPerSec: Math.round(counted / (windowMs / 1000)),
    mbPerSec: Math.round((bytes / 1e6 / (windowMs / 1000)) * 10) / 10,
    totalRecords: total,
    latency: config.latency ? summarize(hist) : undefined,
    cpuPercent,
    timedOut,
  }
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`)
  process.exit(0)
}

main().catch((err: unknown) => {
  process.stderr.write(`kafkajs consumer worker failed: ${(err as Error)?.stack ?? String(err)}\n`)
  process.exit(1)
})
