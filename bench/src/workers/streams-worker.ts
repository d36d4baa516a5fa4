/**
 * Scenario 10's application (../scenarios/streams.ts) in its own process, started like every
 * other client worker (worker-protocol.ts: the same node flags, READY / GO / RESULT on stdio), so
 * the app's event loop, heap and CPU are its own and not the bench's. One worker runs one
 * StreamsApp: 'process' times input records/s from the first processed record to the
 * `records`-th; 'restore' times the restore a new instance with an empty state directory runs.
 */
import { Serdes, StreamsApp, StreamsBuilder } from '@sluice/streams'
import { cpuPercentSince, workerStdin, type StreamsWorkerConfig, type StreamsWorkerResult } from '../worker-protocol.js'

const { config: raw, go } = workerStdin()
const config = raw as StreamsWorkerConfig

function topology(): StreamsBuilder {
  const b = new StreamsBuilder()
  const input = b.stream(config.input, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
  if (config.topology === 'map') {
    input
      .filter((_k, v) => v.length > 0)
      .mapValues((v) => v.slice(0, 20))
      .to(config.output!, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
  } else {
    input.groupByKey().count({ name: 'counts', persistent: config.topology === 'count-lmdb' })
  }
  return b
}

async function main(): Promise<void> {
  const app = new StreamsApp(topology().build(), {
    applicationId: config.applicationId,
    bootstrap: config.bootstrap,
    stateDir: config.stateDir,
    commitIntervalMs: 1000,
  })
  process.stdout.write('READY\n')
  await go
  await app.start()
  const deadline = Date.now() + config.timeoutMs
  let result: StreamsWorkerResult | undefined
  let firstAt: number | undefined
  let startCpu = process.cpuUsage()
  while (result === undefined) {
    if (config.measure === 'process') {
      const processed = app.metrics().processed
      if (processed > 0 && firstAt === undefined) {
        firstAt = performance.now()
        startCpu = process.cpuUsage()
      }
      if (processed >= config.records) {
        const ms = performance.now() - firstAt!
        result = {
          recordsPerSec: (config.records / ms) * 1000,
          records: config.records,
          cpuPercent: cpuPercentSince(startCpu, firstAt!),
        }
      }
    } else {
      const r = app.metrics().restore
      if (r.restores > 0 && !r.active)
        result = { recordsPerSec: r.recordsPerSecond, records: r.totalRestoredRecords, cpuPercent: 0 }
    }
    if (result === undefined) {
      if (Date.now() > deadline) throw new Error(`${config.applicationId}: no result within ${config.timeoutMs} ms`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  await app.close()
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`)
  process.exit(0)
}

main().catch((err: unknown) => {
  process.stderr.write(`streams worker failed: ${(err as Error)?.stack ?? String(err)}\n`)
  process.exit(1)
})
