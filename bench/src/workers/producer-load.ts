/**
 * The measured loop every producer worker runs, whatever client sends (producer-worker.ts: the
 * SDK over gRPC; kafkajs-producer-worker.ts: kafkajs over the Kafka listener). A worker supplies
 * how to build one record and how to send a list of them; this file owns the timing, so both
 * clients are measured the same way.
 *
 * 'max' mode: `outstandingSends` sends of `chunkRecords` pre-generated records are kept in flight;
 * throughput counts the records acknowledged between the end of the warm-up and the end of
 * sending.
 * 'rate' mode: record i is *intended* to be sent at t0 + i / rate; a timer sends what is due;
 * each value starts with its intended time (process.hrtime.bigint(), the system-wide
 * CLOCK_MONOTONIC, so a consumer process can compare) and a sequence number. Ack latency is
 * measured from the intended time, so a stalled loop cannot hide its stall (coordinated
 * omission). With `oneInFlight`, what falls due while a send is out goes in the next send.
 */
import { randomFillSync } from 'node:crypto'
import { newHistogram, recordUs, summarize } from '../histogram.js'
import { cpuPercentSince, type ProducerWorkerConfig, type ProducerWorkerResult } from '../worker-protocol.js'

export interface ProducerClient<R> {
  /** One record of the value; `partition` when the load pins it. */
  record(value: Buffer, partition: number | undefined): R
  send(records: R[]): Promise<unknown>
  /** 'rate' mode: at most one send outstanding (clients without their own in-flight limit). */
  readonly oneInFlight?: boolean
}

export function valuePool(count: number, bytes: number): Buffer[] {
  const all = Buffer.allocUnsafe(count * bytes)
  randomFillSync(all)
  return Array.from({ length: count }, (_, i) => all.subarray(i * bytes, (i + 1) * bytes))
}

/** Pre-built send() chunks; `partitionOf(i, chunk)` pins record i of chunk `chunk`, or leaves it to the client. */
function buildChunks<R>(
  config: ProducerWorkerConfig,
  client: ProducerClient<R>,
  partitionOf: (i: number, chunk: number) => number | undefined,
): R[][] {
  const chunk = config.chunkRecords
  const minRecords = Math.max(8 * chunk, config.partitioning === 'spread' ? config.partitions : 0)
  const chunkCount = Math.ceil(minRecords / chunk)
  const values = valuePool(Math.min(chunkCount * chunk, 4096), config.recordBytes)
  return Array.from({ length: chunkCount }, (_, c) =>
    Array.from({ length: chunk }, (_, j) => {
      const i = c * chunk + j
      return client.record(values[i % values.length]!, partitionOf(i, c))
    }),
  )
}

/** Runs the measured load from GO on; resolves with the result the worker prints. */
export async function runProducerLoad<R>(
  config: ProducerWorkerConfig,
  client: ProducerClient<R>,
  partitionOf: (i: number, chunk: number) => number | undefined,
): Promise<ProducerWorkerResult> {
  const chunks = config.mode === 'max' ? buildChunks(config, client, partitionOf) : []
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
      const p: Promise<void> = client
        .send(records)
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
        if (due > seq && !(client.oneInFlight === true && pending.size > 0)) {
          const intended: bigint[] = []
          const records: R[] = []
          for (; seq < due; seq++) {
            const at = t0 + BigInt(Math.round(seq * intervalNs))
            const value = Buffer.allocUnsafe(Math.max(12, config.recordBytes))
            filler.copy(value)
            value.writeBigInt64BE(at, 0)
            value.writeUInt32BE(seq, 8)
            intended.push(at)
            records.push(client.record(value, undefined))
          }
          const p: Promise<void> = client
            .send(records)
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
              // What fell due while this send was out goes now, not at the next timer tick.
              if (client.oneInFlight === true && seq * intervalNs <= Number(process.hrtime.bigint() - t0)) {
                setImmediate(tick)
              }
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
  return {
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
}
