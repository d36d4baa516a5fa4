/**
 * Producer load generator over the Kafka listener with kafkajs 2.2.4 (the same protocol and
 * config as producer-worker.ts, which uses the SDK over gRPC). kafkajs has no linger: every
 * send() is one Produce request, so 'max' mode keeps `outstandingSends` sends of `chunkRecords`
 * records in flight, and 'rate' mode sends what is due on each timer tick as one request.
 * Values, timing and latency are measured exactly as in producer-worker.ts.
 */
import { randomFillSync } from 'node:crypto'
import { CompressionTypes, Kafka, logLevel, type Message } from 'kafkajs'
import { newHistogram, recordUs, summarize } from '../histogram.js'
import {
  cpuPercentSince,
  workerStdin,
  type ProducerWorkerConfig,
  type ProducerWorkerResult,
} from '../worker-protocol.js'

const { config: raw, go } = workerStdin()
const config = raw as ProducerWorkerConfig
const acks = config.tuning.acks === 'all' ? -1 : config.tuning.acks

function buildChunks(): Message[][] {
  const chunk = config.chunkRecords
  const chunkCount = Math.ceil(Math.max(8 * chunk, config.partitions) / chunk)
  const all = Buffer.allocUnsafe(Math.min(chunkCount * chunk, 4096) * config.recordBytes)
  randomFillSync(all)
  const values = Array.from({ length: all.length / config.recordBytes }, (_, i) =>
    all.subarray(i * config.recordBytes, (i + 1) * config.recordBytes),
  )
  return Array.from({ length: chunkCount }, (_, c) =>
    Array.from({ length: chunk }, (_, j) => {
      const i = c * chunk + j
      // kafkajs's default partitioner spreads keyless records one by one, so a send() becomes a
      // small batch per partition. 'sticky' sends each chunk to one partition, as the SDK's (and
      // the Java client's) sticky partitioner does, so both clients write batches of one size.
      const partition = config.partitioning === 'spread' ? i % config.partitions : c % config.partitions
      return { value: values[i % values.length]!, partition }
    }),
  )
}

async function main(): Promise<void> {
  const kafka = new Kafka({ clientId: 'bench-kafkajs-producer', brokers: config.bootstrap, logLevel: logLevel.NOTHING })
  const producer = kafka.producer({ allowAutoTopicCreation: false })
  await producer.connect()
  const send = (messages: Message[]) =>
    producer.send({ topic: config.topic, messages, acks, compression: CompressionTypes.None })
  await send([{ value: Buffer.alloc(config.recordBytes) }])
  process.stdout.write('READY\n')
  await go

  const hist = newHistogram()
  const startMs = performance.now()
  const startCpu = process.cpuUsage()
  const warmEndMs = startMs + config.warmupMs
  const stopAtMs = warmEndMs + config.durationMs
  let windowRecords = 0
  let totalRecords = 0
  let errors = 0
  let firstError: string | undefined
  const onError = (err: unknown): void => {
    errors++
    firstError ??= String((err as Error)?.message ?? err)
  }

  if (config.mode === 'max') {
    const chunks = buildChunks()
    const inflight = new Set<Promise<void>>()
    let k = 0
    while (performance.now() < stopAtMs && errors === 0) {
      while (inflight.size >= config.outstandingSends) await Promise.race(inflight)
      const messages = chunks[k++ % chunks.length]!
      const sentMs = performance.now()
      const p: Promise<void> = send(messages)
        .then(() => {
          const now = performance.now()
          totalRecords += messages.length
          if (now >= warmEndMs && now <= stopAtMs) windowRecords += messages.length
          if (sentMs >= warmEndMs) recordUs(hist, (now - sentMs) * 1000)
        }, onError)
        .finally(() => inflight.delete(p))
      inflight.add(p)
    }
    await Promise.all(inflight)
  } else {
    const intervalNs = 1e9 / (config.ratePerSec ?? 10_000)
    const t0 = process.hrtime.bigint()
    const warmEndNs = t0 + BigInt(config.warmupMs) * 1_000_000n
    const stopNs = warmEndNs + BigInt(config.durationMs) * 1_000_000n
    let seq = 0
    const pending = new Set<Promise<void>>()
    await new Promise<void>((resolve) => {
      const tick = (): void => {
        const now = process.hrtime.bigint()
        const due = Math.min(Math.floor(Number(now - t0) / intervalNs) + 1, Math.ceil(Number(stopNs - t0) / intervalNs))
        // One request in flight at a time, like the SDK's latency tuning (maxInFlight 1): what is
        // due meanwhile goes in the next request.
        if (due > seq && pending.size === 0) {
          const intended: bigint[] = []
          const messages: Message[] = []
          for (; seq < due; seq++) {
            const at = t0 + BigInt(Math.round(seq * intervalNs))
            const value = Buffer.alloc(Math.max(12, config.recordBytes))
            value.writeBigInt64BE(at, 0)
            value.writeUInt32BE(seq, 8)
            intended.push(at)
            messages.push({ value })
          }
          const p: Promise<void> = send(messages)
            .then(() => {
              const ackNs = process.hrtime.bigint()
              totalRecords += messages.length
              for (const at of intended) {
                if (at < warmEndNs) continue
                windowRecords++
                recordUs(hist, Number(ackNs - at) / 1000)
              }
            }, onError)
            .finally(() => {
              pending.delete(p)
              if (seq * intervalNs <= Number(process.hrtime.bigint() - t0)) setImmediate(tick)
            })
          pending.add(p)
        }
        if (now >= stopNs) resolve()
        else setTimeout(tick, Math.max(1, Math.floor((seq * intervalNs - Number(process.hrtime.bigint() - t0)) / 1e6)))
      }
      tick()
    })
    await Promise.all(pending)
  }
  const endMs = performance.now()
  const windowMs = config.mode === 'max' ? Math.min(endMs, stopAtMs) - warmEndMs : config.durationMs
  const result: ProducerWorkerResult = {
    records: windowRecords,
    bytes: windowRecords * config.recordBytes,
    windowMs: Math.round(windowMs),
    recordsPerSec: Math.round(windowRecords / (windowMs / 1000)),
    mbPerSec: Math.round(((windowRecords * config.recordBytes) / 1e6 / (windowMs / 1000)) * 10) / 10,
    totalRecords: totalRecords + 1,
    ackLatency: summarize(hist),
    errors,
    firstError,
    cpuPercent: cpuPercentSince(startCpu, startMs),
  }
  await producer.disconnect()
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`)
  process.exit(0)
}

main().catch((err: unknown) => {
  process.stderr.write(`kafkajs producer worker failed: ${(err as Error)?.stack ?? String(err)}\n`)
  process.exit(1)
})
