/**
 * Producer load generator (one process; protocol in ../worker-protocol.ts).
 *
 * 'max' mode: record values are generated before GO and reused (the producer copies them into
 * its batches when it encodes), so the run measures the client and the cluster, not data
 * generation. `outstandingSends` send() calls of `chunkRecords` records are kept in flight; the
 * producer's own bufferBytes back-pressure decides the pace. Throughput counts the records
 * acknowledged between the end of the warm-up and the end of sending.
 *
 * 'rate' mode: record i is *intended* to be sent at t0 + i / rate. A 1 ms timer sends every
 * record that is due; each value starts with its intended time (process.hrtime.bigint(), the
 * system-wide CLOCK_MONOTONIC, so a consumer process can compare) and a sequence number. Ack
 * latency is measured from the intended time, so a stalled loop cannot hide its stall
 * (coordinated omission).
 */
import { randomFillSync } from 'node:crypto'
import { connect, type ProducerRecord } from '@sluice/client'
import { newHistogram, recordUs, summarize } from '../histogram.js'
import {
  cpuPercentSince,
  workerStdin,
  type ProducerWorkerConfig,
  type ProducerWorkerResult,
} from '../worker-protocol.js'

const { config: raw, go } = workerStdin()
const config = raw as ProducerWorkerConfig

function valuePool(count: number, bytes: number): Buffer[] {
  const all = Buffer.allocUnsafe(count * bytes)
  randomFillSync(all)
  return Array.from({ length: count }, (_, i) => all.subarray(i * bytes, (i + 1) * bytes))
}

/** Pre-built send() chunks; with 'spread', record j of the cycle goes to partition j % partitions. */
function buildChunks(): ProducerRecord[][] {
  const chunk = config.chunkRecords
  const minRecords = Math.max(8 * chunk, config.partitioning === 'spread' ? config.partitions : 0)
  const chunkCount = Math.ceil(minRecords / chunk)
  const values = valuePool(Math.min(chunkCount * chunk, 4096), config.recordBytes)
  const chunks: ProducerRecord[][] = []
  for (let c = 0; c < chunkCount; c++) {
    const records: ProducerRecord[] = []
    for (let j = 0; j < chunk; j++) {
      const i = c * chunk + j
      const r: ProducerRecord = { value: values[i % values.length]! }
      if (config.partitioning === 'spread') r.partition = i % config.partitions
      records.push(r)
    }
    chunks.push(records)
  }
  return chunks
}

async function main(): Promise<void> {
  const client = await connect({ bootstrap: config.bootstrap, clientId: 'bench-producer' })
  const producer = client.producer({
    acks: config.tuning.acks,
    lingerMs: config.tuning.lingerMs,
    batchBytes: config.tuning.batchBytes,
    maxInFlight: config.tuning.maxInFlight,
    bufferBytes: config.tuning.bufferBytes,
    compression: 'none',
  })
  const chunks = config.mode === 'max' ? buildChunks() : []
  // One warm-up send so metadata and streams exist before the clock starts.
  await producer.send({ topic: config.topic, records: [{ value: Buffer.alloc(config.recordBytes) }] })
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
    const inflight = new Set<Promise<void>>()
    let k = 0
    while (performance.now() < stopAtMs && errors === 0) {
      while (inflight.size >= config.outstandingSends) await Promise.race(inflight)
      const records = chunks[k++ % chunks.length]!
      const sentMs = performance.now()
      const p: Promise<void> = producer
        .send({ topic: config.topic, records })
        .then(() => {
          const now = performance.now()
          totalRecords += records.length
          if (now >= warmEndMs && now <= stopAtMs) windowRecords += records.length
          if (sentMs >= warmEndMs) recordUs(hist, (now - sentMs) * 1000)
        }, onError)
        .finally(() => {
          inflight.delete(p)
        })
      inflight.add(p)
    }
    await Promise.all(inflight)
  } else {
    const rate = config.ratePerSec ?? 10_000
    const intervalNs = 1e9 / rate
    const t0 = process.hrtime.bigint()
    const warmEndNs = t0 + BigInt(config.warmupMs) * 1_000_000n
    const stopNs = warmEndNs + BigInt(config.durationMs) * 1_000_000n
    const filler = valuePool(1, Math.max(12, config.recordBytes))[0]!
    let seq = 0
    const pending = new Set<Promise<void>>()
    await new Promise<void>((resolve) => {
      const tick = (): void => {
        const now = process.hrtime.bigint()
        const due = Math.min(Math.floor(Number(now - t0) / intervalNs) + 1, Math.ceil(Number(stopNs - t0) / intervalNs))
        if (due > seq) {
          const intended: bigint[] = []
          const records: ProducerRecord[] = []
          for (; seq < due; seq++) {
            const at = t0 + BigInt(Math.round(seq * intervalNs))
            const value = Buffer.allocUnsafe(Math.max(12, config.recordBytes))
            filler.copy(value)
            value.writeBigInt64BE(at, 0)
            value.writeUInt32BE(seq, 8)
            intended.push(at)
            records.push({ value })
          }
          const p: Promise<void> = producer
            .send({ topic: config.topic, records })
            .then(() => {
              const ackNs = process.hrtime.bigint()
              totalRecords += records.length
              for (const at of intended) {
                if (at < warmEndNs) continue
                windowRecords++
                recordUs(hist, Number(ackNs - at) / 1000)
              }
            }, onError)
            .finally(() => {
              pending.delete(p)
            })
          pending.add(p)
        }
        if (now >= stopNs) resolve()
        // Sleep until the next record is due (at least the 1 ms timer floor): every wake-up of
        // this process costs CPU on the same cores the brokers use (wakeup-probe.ts), so a low
        // rate must not pay for 1,000 wake-ups a second.
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
  await client.close()
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`)
  process.exit(0)
}

main().catch((err: unknown) => {
  process.stderr.write(`producer worker failed: ${(err as Error)?.stack ?? String(err)}\n`)
  process.exit(1)
})
