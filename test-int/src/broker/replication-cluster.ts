/**
 * Test harness for the replication integration tests: a real metadata server and real brokers
 * (ids 1..n) in this process, each stoppable and restartable on its own data dir with its own
 * options, plus helpers to look into their replicas. Everything stops when the test finishes.
 */
import path from 'node:path'
import { startMetadataServer } from '@sluice/metadata'
import { onTestFinished } from 'vitest'
import {
  brokerInternals,
  startBroker,
  type BrokerHandle,
  type BrokerOptions,
  type Partition,
} from '@sluice/broker/internal'
import { BrokerTestClient, createTopic, eventually, tempDir, uniqueTopic } from './harness.js'
import * as grpc from '@grpc/grpc-js'
import { GRPC_CHANNEL_OPTIONS, loadSluiceProto, type wire } from '@sluice/protocol'

/** Small timings so ISR changes happen within a test's patience. */
export const FAST_REPLICATION: Partial<BrokerOptions> = {
  replicaLagMaxMs: 1500,
  replicaFetchWaitMaxMs: 100,
  heartbeatIntervalMs: 300,
  sessionTimeoutMs: 4000,
  highWatermarkCheckpointIntervalMs: 200,
}

export class ReplicationCluster {
  readonly brokers = new Map<number, BrokerHandle>()
  readonly clients = new Map<number, BrokerTestClient>()
  readonly admin: wire.MetadataClient

  private constructor(
    readonly root: string,
    readonly metadataEndpoint: string,
    private readonly defaults: Partial<BrokerOptions>,
  ) {
    this.admin = new (loadSluiceProto().sluice.v1.Metadata)(
      metadataEndpoint,
      grpc.credentials.createInsecure(),
      GRPC_CHANNEL_OPTIONS,
    )
  }

  static async start(count: number, defaults: Partial<BrokerOptions> = FAST_REPLICATION): Promise<ReplicationCluster> {
    const root = await tempDir('replication')
    const metadata = await startMetadataServer({
      host: '127.0.0.1',
      port: 0,
      dataDir: path.join(root, 'metadata'),
      brokerSessionTimeoutMs: 4000,
    })
    const c = new ReplicationCluster(root, metadata.endpoint, defaults)
    onTestFinished(async () => {
      c.admin.close()
      await Promise.all([...c.brokers.values()].map((b) => b.stop()))
      await metadata.stop()
    })
    await Promise.all(Array.from({ length: count }, (_, i) => c.start(i + 1)))
    return c
  }

  async start(id: number, extra: Partial<BrokerOptions> = {}): Promise<BrokerHandle> {
    const b = await startBroker({
      brokerId: id,
      host: '127.0.0.1',
      port: 0,
      dataDir: path.join(this.root, `broker-${id}`),
      metadataEndpoints: [this.metadataEndpoint],
      ...this.defaults,
      ...extra,
    })
    this.brokers.set(id, b)
    this.clients.get(id)?.close()
    this.clients.set(id, new BrokerTestClient(b.endpoint))
    return b
  }

  async stop(id: number): Promise<void> {
    this.clients.get(id)?.close()
    this.clients.delete(id)
    await this.brokers.get(id)?.stop()
    this.brokers.delete(id)
  }

  client(id: number): BrokerTestClient {
    const c = this.clients.get(id)
    if (c === undefined) throw new Error(`broker ${id} is not running`)
    return c
  }

  /** The hosted replica of `topic`-0 on broker `id` (undefined when not hosted or not running). */
  replica(id: number, topic: string): Partition | undefined {
    const b = this.brokers.get(id)
    return b === undefined ? undefined : brokerInternals(b)?.context.replicas.get(topic, 0)
  }

  /** A topic with one partition on `replicas` (in preference order) and topic configs. */
  async topic(replicas: number[], configs: Record<string, string> = {}): Promise<string> {
    const name = uniqueTopic()
    await createTopic({ admin: this.admin } as never, {
      name,
      num_partitions: -1,
      replication_factor: -1,
      assignments: [{ partition: 0, replicas }],
      configs,
    })
    return name
  }

  /** The controller's view of `topic`-0 as a running broker's metadata cache shows it. */
  state(topic: string, via?: number): { leader: number; leaderEpoch: number; isr: readonly number[] } | undefined {
    const ids = via !== undefined ? [via] : [...this.brokers.keys()]
    for (const id of ids) {
      const s = brokerInternals(this.brokers.get(id)!)?.context.cache.partition(topic, 0)
      if (s !== undefined) return { leader: s.leader, leaderEpoch: s.leaderEpoch, isr: s.isr }
    }
    return undefined
  }

  /** Waits until every running broker's cache agrees on a state matching `pred`. */
  async waitForState(
    topic: string,
    pred: (s: { leader: number; leaderEpoch: number; isr: readonly number[] }) => boolean,
    what: string,
    timeoutMs = 15_000,
  ): Promise<{ leader: number; leaderEpoch: number; isr: readonly number[] }> {
    return await eventually(
      async () => {
        const states = [...this.brokers.keys()].map((id) => this.state(topic, id))
        const first = states[0]
        if (first === undefined || !states.every((s) => s !== undefined && pred(s))) return undefined
        // The leader must also act on it (its replica applied the state).
        const r = first.leader >= 0 ? this.replica(first.leader, topic) : undefined
        return first.leader < 0 || r?.isLeader === true ? first : undefined
      },
      what,
      timeoutMs,
    )
  }
}

/** Every stored batch of a replica's log, as bytes (for byte-for-byte comparisons). */
export async function logBytes(replica: Partition): Promise<Buffer> {
  const parts: Buffer[] = []
  let offset = replica.logStartOffset
  for (let i = 0; i < 10_000 && offset < replica.logEndOffset; i++) {
    const r = await replica.log.read(offset, 1 << 20, { minOneBatch: true })
    if (r.records.length === 0) break
    parts.push(r.records)
    offset = lastOffsetOf(r.records) + 1n
  }
  return Buffer.concat(parts)
}

function lastOffsetOf(records: Buffer): bigint {
  let pos = 0
  let last = -1n
  while (pos + 12 <= records.length) {
    const base = records.readBigInt64BE(pos)
    const size = records.readInt32BE(pos + 8)
    if (pos + 12 + size > records.length) break
    last = base + BigInt(records.readInt32BE(pos + 23))
    pos += 12 + size
  }
  return last
}
