/**
 * Consumer load generator (one process; protocol in ../worker-protocol.ts). Assigns every
 * partition of the topic at the beginning or the end, reports READY once the start positions are
 * known, and on GO consumes with run({ eachBatch }), counting records (and value bytes).
 *
 * Drain mode (`expectRecords`): stops once that many records arrived; the window is GO to the
 * last record. Otherwise it runs until STOP and counts what arrived after the warm-up.
 * Latency mode: each value starts with its producer-intended send time (CLOCK_MONOTONIC ns, see
 * producer-worker.ts); latency = arrival - intended, into an HDR histogram.
 */
import { connect } from '@sluice/client'
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
  const client = await connect({ bootstrap: config.bootstrap, clientId: 'bench-consumer' })
  const consumer = client.consumer({
    maxWaitMs: config.maxWaitMs,
    maxPartitionBytes: config.maxPartitionBytes,
    maxBytes: config.maxBytes,
    offsetReset: config.from === 'beginning' ? 'earliest' : 'latest',
  })
  await consumer.assign([{ topic: config.topic }])
  process.stdout.write('READY\n')
  await go

  const hist = newHistogram()
  const startMs = performance.now()
  const startCpu = process.cpuUsage()
  const warmEndMs = config.expectRecords === undefined ? startMs + config.warmupMs : startMs
  let total = 0
  let counted = 0
  let bytes = 0
  let lastMs = startMs
  let finish!: () => void
  const done = new Promise<void>((resolve) => {
    finish = resolve
  })
  const handle = consumer.run({
    eachBatch: ({ batch }) => {
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
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    finish()
  }, config.timeoutMs)
  void stop.then(finish)
  void handle.done.then(finish, (err: unknown) => {
    process.stderr.write(`consumer run failed: ${String(err)}\n`)
    finish()
  })
  await done
  clearTimeout(timer)
  const endMs = config.expectRecords !== undefined ? lastMs : performance.now()
  const windowMs = Math.max(1, endMs - warmEndMs)
  const cpuPercent = cpuPercentSince(startCpu, startMs)
  await handle.stop()
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
  await client.close()
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`)
  process.exit(0)
}

main().catch((err: unknown) => {
  process.stderr.write(`consumer worker failed: ${(err as Error)?.stack ?? String(err)}\n`)
  process.exit(1)
})
