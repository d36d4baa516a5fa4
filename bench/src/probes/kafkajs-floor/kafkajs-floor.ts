/**
 * Scenario 6j, the kafkajs floor (`--only 6j`): the kafkajs producer worker of scenario 6k, same
 * loop, rate and tuning (acks -1, one send outstanding), against a Kafka stand-in that answers
 * every Produce at once and stores nothing (kafka-stand-in.ts, its own process). Its ack latency
 * is what kafkajs itself takes per send on this machine (its encoding, its promise chain, its
 * wake-ups) plus one loopback round trip: the floor under scenario 6k's producer side, whatever
 * the broker does. Run with 6 and 6k (`--only 6,6k,6j`) to read the three side by side.
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { registerChild } from '../../children.js'
import type { ScenarioRow } from '../../results.js'
import { logRow, type BenchContext } from '../../scenarios/context.js'
import { type ProducerWorkerResult, startWorker } from '../../worker-protocol.js'

const RATES: ReadonlyArray<{ rate: number; label: string }> = [
  { rate: 200, label: '200' },
  { rate: 10_000, label: '10k' },
]

export async function runKafkajsFloor(ctx: BenchContext): Promise<void> {
  if (ctx.only?.has('6j') !== true) return
  ctx.log('scenario 6j: kafkajs producer against a Kafka stand-in that answers at once (the kafkajs floor)')
  for (const { rate, label } of RATES) {
    const standIn = await startStandInProcess(6)
    try {
      const worker = startWorker<ProducerWorkerResult>('producer', {
        client: 'kafkajs',
        bootstrap: [`127.0.0.1:${standIn.port}`],
        topic: 'stand-in',
        partitions: 6,
        recordBytes: 100,
        tuning: { acks: 'all', lingerMs: 0, batchBytes: 256 * 1024, maxInFlight: 1, bufferBytes: 32 * 1024 * 1024 },
        mode: 'rate',
        ratePerSec: rate,
        chunkRecords: 1000,
        outstandingSends: 1,
        partitioning: 'sticky',
        warmupMs: ctx.mode.latencyWarmupMs,
        durationMs: ctx.mode.latencyDurationMs,
      })
      try {
        await worker.ready
        worker.go()
        const result = await worker.result
        const row: ScenarioRow = {
          id: `6j/${label}`,
          title: `kafkajs floor @${rate.toLocaleString('en-US')}/s (stand-in answers at once)`,
          setup: 'kafkajs producer -> Kafka stand-in, acks -1, one send outstanding',
          recordsPerSec: result.recordsPerSec,
          latency: result.ackLatency,
          latencyKind: 'kafkajs producer ack from intended send time, against a stand-in',
          usage: {
            producer: { cpuPercent: result.cpuPercent, rssMaxMb: 0, rssLastMb: 0, windowMs: result.windowMs },
          },
          extra: { producer: result },
          notes: result.errors > 0 ? [`${result.errors} errors, first: ${result.firstError}`] : [],
        }
        const k = ctx.rows.find((r) => r.id === '6k')?.extra?.producer as ProducerWorkerResult | undefined
        if (k !== undefined && label === '10k')
          row.notes.push(
            `scenario 6k's kafkajs producer ack in this run: p50 ${k.ackLatency.p50Ms} / p99 ${k.ackLatency.p99Ms} ms`,
          )
        ctx.rows.push(row)
        logRow(ctx, row)
      } finally {
        worker.kill()
      }
    } finally {
      standIn.close()
    }
  }
}

async function startStandInProcess(partitions: number): Promise<{ port: number; close(): void }> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'kafka-stand-in.js')
  const child = spawn(process.execPath, [script, String(partitions)], { stdio: ['pipe', 'pipe', 'inherit'] })
  registerChild(child)
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the Kafka stand-in did not start')), 15_000)
    child.once('exit', (code) => reject(new Error(`the Kafka stand-in exited with ${code}`)))
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('PORT ')) return
      clearTimeout(timer)
      resolve(Number(line.slice(5)))
    })
  })
  return {
    port,
    close: () => {
      child.stdin?.end()
      setTimeout(() => child.kill('SIGKILL'), 2000).unref()
    },
  }
}
