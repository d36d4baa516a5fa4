/**
 * A REAL in-process cluster for the SDK's integration tests: one metadata service and N brokers
 * on 127.0.0.1 port 0 (gRPC and Kafka listeners) in a fresh temp dir, and a connected client; plus the waits and reads those
 * tests share. The caller stops it (afterAll / onTestFinished).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBroker, type BrokerHandle, type BrokerOptions } from '@sluice/broker'
import { startMetadataServer, type MetadataServerHandle, type MetadataServerOptions } from '@sluice/metadata'
import { connect, type ConnectOptions, type ConsumerMessage, type SluiceClient } from '@sluice/client'

export interface RealCluster {
  readonly dir: string
  readonly metadata: MetadataServerHandle
  readonly brokers: BrokerHandle[]
  readonly client: SluiceClient
  stop(): Promise<void>
}

export interface RealClusterOptions {
  /** Temp dir name prefix. */
  readonly prefix: string
  readonly brokers?: number
  readonly defaultReplicationFactor?: number
  readonly metadata?: Partial<MetadataServerOptions>
  readonly broker?: Partial<BrokerOptions>
  readonly connect?: Partial<ConnectOptions>
}

export async function startRealCluster(options: RealClusterOptions): Promise<RealCluster> {
  const dir = await mkdtemp(join(tmpdir(), options.prefix))
  let metadata: MetadataServerHandle | undefined
  const brokers: BrokerHandle[] = []
  let client: SluiceClient | undefined
  const stop = async (): Promise<void> => {
    await client?.close().catch(() => {})
    for (const b of brokers) await b.stop().catch(() => {})
    await metadata?.stop().catch(() => {})
    await rm(dir, { recursive: true, force: true })
  }
  try {
    metadata = await startMetadataServer({
      host: '127.0.0.1',
      port: 0,
      dataDir: join(dir, 'meta'),
      defaultReplicationFactor: options.defaultReplicationFactor ?? 1,
      ...options.metadata,
    })
    for (let id = 1; id <= (options.brokers ?? 1); id++) {
      brokers.push(
        await startBroker({
          brokerId: id,
          host: '127.0.0.1',
          port: 0,
          dataDir: join(dir, `b${id}`),
          metadataEndpoints: [metadata.endpoint],
          // A Kafka listener too, so the SDK's data path runs over Kafka (its default transport).
          kafkaPort: 0,
          ...options.broker,
        }),
      )
    }
    client = await connect({ bootstrap: brokers.map((b) => b.endpoint), ...options.connect })
    return { dir, metadata, brokers, client, stop }
  } catch (e) {
    await stop()
    throw e
  }
}

/** Polls `check` (a throw counts as false) until it holds, or fails after `timeoutMs`. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}

/** Creates a topic and waits until every partition has a leader. */
export async function createTopicWithLeaders(
  client: SluiceClient,
  name: string,
  partitions: number,
  replicationFactor = 1,
): Promise<void> {
  await client.admin().createTopics([{ name, numPartitions: partitions, replicationFactor }])
  await until(`leaders for ${name}`, async () => {
    const [d] = await client.admin().describeTopics([name])
    return d!.partitions.length === partitions && d!.partitions.every((p) => p.leader >= 0)
  })
}

/** The first `n` messages of every partition of `topic` from the beginning (an assigned consumer). */
export async function readMessages(
  client: SluiceClient,
  topic: string,
  n: number,
  options: { timeoutMs?: number; maxWaitMs?: number } = {},
): Promise<ConsumerMessage[]> {
  const consumer = client.consumer({
    offsetReset: 'earliest',
    ...(options.maxWaitMs !== undefined ? { maxWaitMs: options.maxWaitMs } : {}),
  })
  await consumer.assign([{ topic }])
  const out: ConsumerMessage[] = []
  const deadline = setTimeout(() => {
    void consumer.close()
  }, options.timeoutMs ?? 30_000)
  try {
    for await (const m of consumer) {
      out.push(m)
      if (out.length >= n) break
    }
  } finally {
    clearTimeout(deadline)
    await consumer.close()
  }
  return out
}
