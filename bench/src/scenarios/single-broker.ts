/**
 * Scenarios on one broker (replication factor 1):
 *   1  one producer, acks=1, 6 partitions;
 *   4  one consumer reading scenario 1's topic from the beginning;
 *   5  a producer and a consumer at once (fresh topic, consumer from the beginning);
 *   7  record size sweep, 10 B .. 100 KiB (acks=1, 6 partitions);
 *   9a fsync durability: flush=fsync, acks=all: throughput, and latency at 10,000 records/s.
 *   1k, 4k scenarios 1 and 4 with kafkajs 2.2.4 over the Kafka listener instead of the SDK over
 *      gRPC (4k reads scenario 1's topic, so both consumers read the same batches);
 *   1r scenario 1 with librdkafka (kcat -P) over the Kafka listener, fast enough to compare the
 *      broker's CPU per MB with scenario 1's at a similar rate.
 */
import { startBenchCluster, type BenchCluster } from '../bench-cluster.js'
import { runLoad } from '../run-load.js'
import type { BenchClient } from '../worker-protocol.js'
import {
  consumerConfig,
  loadRow,
  logRow,
  noteLoad,
  notePids,
  producerConfig,
  profileFlags,
  wants,
  type BenchContext,
} from './context.js'
import { runLatency } from './latency.js'

const SIZES: ReadonlyArray<[string, number]> = [
  ['10B', 10],
  ['100B', 100],
  ['1KiB', 1024],
  ['10KiB', 10 * 1024],
  ['100KiB', 100 * 1024],
]

export async function runSingleBroker(ctx: BenchContext): Promise<void> {
  if (!['1', '4', '5', '7', '9', '1k', '4k', '1r'].some((id) => wants(ctx, id))) return
  ctx.log('single-broker cluster (1 metadata + 1 broker process)')
  const cluster = await startBenchCluster({ brokers: 1, profileDir: ctx.profileDir })
  notePids(ctx, 'single-broker cluster:', cluster.pids)
  try {
    let s1Total: number | undefined
    if (wants(ctx, '1') || wants(ctx, '4') || wants(ctx, '4k')) {
      await cluster.createTopic({ name: 'bench-s1', partitions: 6, replicationFactor: 1 })
      const out = await runLoad(cluster, {
        producer: producerConfig(ctx, cluster, 'bench-s1', 6, { tuning: { acks: 1 } }),
        producerFlags: profileFlags(ctx),
      })
      s1Total = out.producer?.totalRecords
      noteLoad(ctx, 'scenario 1', out)
      const row = loadRow('1', 'producer, 1 broker', 'RF1 acks=1 6p', out)
      ctx.rows.push(row)
      logRow(ctx, row)
    }
    if (wants(ctx, '4') && s1Total !== undefined) {
      await drainRow(ctx, cluster, '4', 'consumer from beginning', s1Total, 'sluice')
    }
    if (wants(ctx, '1k')) {
      // kafkajs has no linger: one send() is one batch, sized like the SDK's batchBytes.
      await kafkaProducerRow(ctx, cluster, '1k', 'producer, kafkajs (Kafka listener)', {
        client: 'kafkajs',
        chunkRecords: Math.floor(ctx.tuning.batchBytes / 100),
      })
    }
    if (wants(ctx, '1r')) {
      await kafkaProducerRow(ctx, cluster, '1r', 'producer, kcat/librdkafka (Kafka listener)', { client: 'kcat' })
    }
    if (wants(ctx, '4k') && s1Total !== undefined) {
      await drainRow(ctx, cluster, '4k', 'consumer, kafkajs (Kafka listener)', s1Total, 'kafkajs')
    }
    if (wants(ctx, '5')) {
      await cluster.createTopic({ name: 'bench-s5', partitions: 6, replicationFactor: 1 })
      const out = await runLoad(cluster, {
        producer: producerConfig(ctx, cluster, 'bench-s5', 6, { tuning: { acks: 1 } }),
        consumer: consumerConfig(cluster, 'bench-s5', { warmupMs: ctx.mode.warmupMs }),
      })
      const c = out.consumer
      const row = loadRow('5', 'producer + consumer', 'RF1 acks=1 6p', out, [
        `consumer: ${c?.recordsPerSec.toLocaleString('en-US') ?? '-'} rec/s, ${c?.mbPerSec ?? '-'} MB/s while the producer ran`,
      ])
      ctx.rows.push(row)
      logRow(ctx, row)
    }
    if (wants(ctx, '7')) {
      for (const [label, bytes] of SIZES) {
        const topic = `bench-s7-${label.toLowerCase()}`
        await cluster.createTopic({ name: topic, partitions: 6, replicationFactor: 1 })
        const out = await runLoad(cluster, {
          producer: producerConfig(ctx, cluster, topic, 6, {
            recordBytes: bytes,
            chunkRecords: Math.max(1, Math.min(1000, Math.floor(1_000_000 / bytes))),
            durationMs: ctx.mode.sizeDurationMs,
            tuning: { acks: 1 },
          }),
        })
        const row = loadRow(`7/${label}`, `record size ${label}`, 'RF1 acks=1 6p', out)
        ctx.rows.push(row)
        logRow(ctx, row)
      }
    }
    if (wants(ctx, '9')) {
      await cluster.createTopic({
        name: 'bench-s9-fsync',
        partitions: 6,
        replicationFactor: 1,
        configs: { flush: 'fsync' },
      })
      const out = await runLoad(cluster, {
        producer: producerConfig(ctx, cluster, 'bench-s9-fsync', 6, { tuning: { acks: 'all' } }),
      })
      const row = loadRow('9/fsync', 'fsync durability, 1 broker', 'RF1 flush=fsync acks=all 6p', out)
      ctx.rows.push(row)
      logRow(ctx, row)
      const lat = await runLatency(
        ctx,
        cluster,
        'bench-s9-fsync',
        '9/fsync-lat',
        'fsync: latency @10k/s',
        'RF1 flush=fsync acks=all 6p',
        ctx.mode.full ? ctx.mode.latencyDurationMs : 4000,
      )
      ctx.rows.push(lat)
      logRow(ctx, lat)
    }
  } finally {
    await cluster.stop()
  }
}

/** Scenario 4 or 4k: one consumer reads scenario 1's topic from the beginning to its end. */
async function drainRow(
  ctx: BenchContext,
  cluster: BenchCluster,
  id: string,
  title: string,
  records: number,
  client: BenchClient,
): Promise<void> {
  const out = await runLoad(cluster, {
    consumer: consumerConfig(cluster, 'bench-s1', { client, expectRecords: records }),
    consumerFlags: profileFlags(ctx),
  })
  noteLoad(ctx, `scenario ${id}`, out)
  const notes =
    out.consumer?.timedOut === true ? [`timed out after ${out.consumer.totalRecords} of ${records} records`] : []
  const row = loadRow(id, title, `${records.toLocaleString('en-US')} records of 6p`, out, notes)
  ctx.rows.push(row)
  logRow(ctx, row)
}

/** Scenario 1's load through the Kafka listener (1k, 1r), on a fresh topic of its own. */
async function kafkaProducerRow(
  ctx: BenchContext,
  cluster: BenchCluster,
  id: string,
  title: string,
  over: { client: BenchClient; chunkRecords?: number },
): Promise<void> {
  const topic = `bench-s${id}`
  await cluster.createTopic({ name: topic, partitions: 6, replicationFactor: 1 })
  const out = await runLoad(cluster, {
    producer: producerConfig(ctx, cluster, topic, 6, { ...over, tuning: { acks: 1 } }),
    producerFlags: over.client === 'kcat' ? [] : profileFlags(ctx),
  })
  noteLoad(ctx, `scenario ${id}`, out)
  const row = loadRow(id, title, 'RF1 acks=1 6p', out)
  ctx.rows.push(row)
  logRow(ctx, row)
}
