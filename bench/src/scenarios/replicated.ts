/**
 * Scenarios on three brokers (replication factor 3, 6 partitions, leaders spread):
 *   2  one producer, acks=1;
 *   3  acks=all, min.insync.replicas=2;
 *   6  end-to-end latency at 10,000 records/s, acks=all, min.insync.replicas=2; then the same
 *      at 200 records/s (6/200: one record every 5 ms, so nothing queues: the latency of the
 *      produce -> replicate -> consume chain itself on this machine);
 *   9b replication durability with fsync on top (flush=fsync, acks=all), for comparison with
 *      9a (fsync alone, one broker) and 3 (replication alone);
 *   6k scenario 6 with kafkajs 2.2.4 producing and consuming over the Kafka listener.
 * After each throughput run the followers' log bytes are compared with the leaders': while
 * replication is not built, followers hold nothing and the row says so.
 */
import { startBenchCluster, type BenchCluster } from '../bench-cluster.js'
import type { ScenarioRow } from '../results.js'
import { runLoad } from '../run-load.js'
import {
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

async function replicationNote(cluster: BenchCluster, topic: string): Promise<{ note: string; replicating: boolean }> {
  const { leaderBytes, followerBytesPerReplica } = await cluster.replicationCheck(topic)
  const pct = leaderBytes > 0 ? (followerBytesPerReplica / leaderBytes) * 100 : 0
  const replicating = pct >= 50
  const mb = (b: number): string => (b / 1e6).toFixed(1)
  return {
    replicating,
    note: replicating
      ? `replicating: followers hold ${pct.toFixed(0)} % of the leaders' ${mb(leaderBytes)} MB`
      : `NOT REPLICATING YET: leaders hold ${mb(leaderBytes)} MB, each follower replica set ${mb(followerBytesPerReplica)} MB ` +
        '(replication is being built; this measures the leader path only)',
  }
}

async function throughputRow(
  ctx: BenchContext,
  cluster: BenchCluster,
  id: string,
  title: string,
  setup: string,
  topic: string,
  configs: Record<string, string>,
  acks: 1 | 'all',
): Promise<ScenarioRow> {
  await cluster.createTopic({ name: topic, partitions: 6, replicationFactor: 3, configs })
  const out = await runLoad(cluster, {
    producer: producerConfig(ctx, cluster, topic, 6, { tuning: { acks } }),
    producerFlags: profileFlags(ctx),
  })
  noteLoad(ctx, `scenario ${id}`, out)
  const check = await replicationNote(cluster, topic)
  const row = loadRow(id, title, setup, out, [check.note])
  row.extra = { ...row.extra, replicating: check.replicating }
  return row
}

export async function runReplicated(ctx: BenchContext): Promise<void> {
  if (!['2', '3', '6', '9', '6k'].some((id) => wants(ctx, id))) return
  ctx.log('three-broker cluster (1 metadata + 3 broker processes)')
  const cluster = await startBenchCluster({ brokers: 3, profileDir: ctx.profileDir })
  notePids(ctx, 'three-broker cluster:', cluster.pids)
  try {
    const add = (row: ScenarioRow): void => {
      ctx.rows.push(row)
      logRow(ctx, row)
    }
    if (wants(ctx, '2')) {
      add(await throughputRow(ctx, cluster, '2', 'producer, 3 brokers', 'RF3 acks=1 6p', 'bench-s2', {}, 1))
    }
    if (wants(ctx, '3')) {
      add(
        await throughputRow(
          ctx,
          cluster,
          '3',
          'producer, acks=all',
          'RF3 acks=all minISR2 6p',
          'bench-s3',
          { 'min.insync.replicas': '2' },
          'all',
        ),
      )
    }
    if (wants(ctx, '6')) {
      await latencyTopic(cluster, 'bench-s6')
      const row = await runLatency(
        ctx,
        cluster,
        'bench-s6',
        '6',
        'end-to-end latency @10k/s',
        'RF3 acks=all minISR2 6p',
      )
      row.notes.push((await replicationNote(cluster, 'bench-s6')).note)
      add(row)
      await latencyTopic(cluster, 'bench-s6-200')
      add(
        await runLatency(
          ctx,
          cluster,
          'bench-s6-200',
          '6/200',
          'end-to-end latency @200/s',
          'RF3 acks=all minISR2 6p',
          ctx.mode.latencyDurationMs,
          200,
        ),
      )
    }
    if (wants(ctx, '6k')) {
      await latencyTopic(cluster, 'bench-s6k')
      // kafkajs on both ends, over the Kafka listener: acks=-1, one request in flight.
      add(
        await runLatency(
          ctx,
          cluster,
          'bench-s6k',
          '6k',
          'end-to-end latency @10k/s, kafkajs',
          'RF3 acks=all minISR2 6p',
          ctx.mode.latencyDurationMs,
          undefined,
          'kafkajs',
        ),
      )
    }
    if (wants(ctx, '9')) {
      add(
        await throughputRow(
          ctx,
          cluster,
          '9/rf3+fsync',
          'replication + fsync',
          'RF3 flush=fsync acks=all minISR2 6p',
          'bench-s9-rf3-fsync',
          { 'min.insync.replicas': '2', flush: 'fsync' },
          'all',
        ),
      )
    }
  } finally {
    await cluster.stop()
  }
}

/** A topic of scenario 6's shape: 6 partitions, RF3, min.insync.replicas 2. */
export async function latencyTopic(cluster: BenchCluster, name: string): Promise<void> {
  await cluster.createTopic({ name, partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } })
}
