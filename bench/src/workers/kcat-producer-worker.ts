/**
 * Producer load generator over the Kafka listener with librdkafka, through Debian's kcat (the
 * same worker protocol as producer-worker.ts; 'max' mode only). kafkajs cannot produce fast
 * enough to load a broker (it is CPU-bound near 60,000 records/s), so this is the scenario that
 * compares the broker's cost per MB over the Kafka listener with gRPC at a similar rate.
 *
 * Before READY it writes a file of newline-separated 100-byte values sized for the run; on GO
 * kcat sends the whole file (`-l`) with batching like the SDK's (linger 5 ms, 256 KiB batches,
 * librdkafka's sticky partitioner for keyless records) and the worker reports the records over
 * kcat's run time. The measured CPU is the worker's, not kcat's; the broker's is what matters.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { summarize, newHistogram } from '../histogram.js'
import { workerStdin, type ProducerWorkerConfig, type ProducerWorkerResult } from '../worker-protocol.js'

const { config: raw, go } = workerStdin()
const config = raw as ProducerWorkerConfig
/** Records per second kcat is assumed to reach at most, to size the file for the duration. */
const EXPECTED_MAX_RATE = 800_000

function writeValues(file: string, records: number): void {
  const line = Buffer.alloc(config.recordBytes + 1, 'x'.charCodeAt(0))
  line[config.recordBytes] = 0x0a
  const block = Buffer.concat(Array.from({ length: 10_000 }, () => line))
  const parts: Buffer[] = []
  for (let left = records; left > 0; left -= 10_000)
    parts.push(left >= 10_000 ? block : block.subarray(0, left * line.length))
  writeFileSync(file, Buffer.concat(parts))
}

async function main(): Promise<void> {
  if (config.mode !== 'max') throw new Error("the kcat worker runs 'max' mode only")
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-kcat-'))
  const file = path.join(dir, 'values.txt')
  const records = Math.ceil(((config.durationMs + config.warmupMs) / 1000) * EXPECTED_MAX_RATE)
  writeValues(file, records)
  process.stdout.write('READY\n')
  await go
  const acks = config.tuning.acks === 'all' ? '-1' : String(config.tuning.acks)
  const startMs = performance.now()
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      'kcat',
      [
        '-P',
        '-b',
        config.bootstrap.join(','),
        '-t',
        config.topic,
        '-l',
        '-z',
        'none',
        '-X',
        `acks=${acks}`,
        '-X',
        `linger.ms=${config.tuning.lingerMs}`,
        '-X',
        `batch.size=${config.tuning.batchBytes}`,
        '-X',
        'queue.buffering.max.kbytes=1048576',
        file,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    )
    child.on('error', reject)
    child.on('exit', (c) => resolve(c))
  })
  const windowMs = performance.now() - startMs
  rmSync(dir, { recursive: true, force: true })
  const result: ProducerWorkerResult = {
    records,
    bytes: records * config.recordBytes,
    windowMs: Math.round(windowMs),
    recordsPerSec: Math.round(records / (windowMs / 1000)),
    mbPerSec: Math.round(((records * config.recordBytes) / 1e6 / (windowMs / 1000)) * 10) / 10,
    totalRecords: records,
    ackLatency: summarize(newHistogram()),
    errors: code === 0 ? 0 : 1,
    firstError: code === 0 ? undefined : `kcat exited with code ${String(code)}`,
    cpuPercent: 0,
  }
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`)
  process.exit(0)
}

main().catch((err: unknown) => {
  process.stderr.write(`kcat producer worker failed: ${(err as Error)?.stack ?? String(err)}\n`)
  process.exit(1)
})
