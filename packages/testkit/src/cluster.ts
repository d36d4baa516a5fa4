/**
 * An in-process cluster for integration tests: one metadata service and N brokers in this
 * process, on 127.0.0.1 port 0, each with its own data dir under one root. `startCluster`
 * returns once every broker is registered and visible in DescribeCluster, so a test can create
 * topics right away. The servers are imported lazily: the CLI imports testkit for its spawn
 * helpers and should not load broker and metadata code it never runs.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { BrokerHandle, BrokerOptions } from '@sluice/broker'
import type { MetadataServerHandle, MetadataServerOptions } from '@sluice/metadata'
import type { Logger } from 'pino'
import { defaultTestLogger } from './logger.js'
import { track } from './tracker.js'
import { waitForBrokers } from './wait-for-brokers.js'

export interface StartClusterOptions {
  /** Default 3; broker ids are 1..N. */
  readonly brokers?: number
  /** Root of the data dirs (`metadata/`, `broker-<id>/`). Default: a fresh temp dir, removed by stop(). */
  readonly dataDir?: string
  readonly logger?: Logger
  /** Extra options for the metadata service (host, port and dataDir are set by testkit). */
  readonly metadataOptions?: Partial<MetadataServerOptions>
  /** Extra options for every broker (brokerId, port, dataDir and metadataEndpoints are set). */
  readonly brokerOptions?: Partial<BrokerOptions>
  /** Deadline for every broker to be registered and visible. Default 30 s. */
  readonly readyTimeoutMs?: number
}

export interface Cluster {
  readonly metadata: MetadataServerHandle
  readonly brokers: BrokerHandle[]
  readonly bootstrap: string[]
  readonly dataDir: string
  /** Stops brokers (in parallel), then the metadata service; removes a temp data dir. Idempotent. */
  stop(): Promise<void>
}

export async function startCluster(options: StartClusterOptions = {}): Promise<Cluster> {
  const count = options.brokers ?? 3
  const ownsDataDir = options.dataDir === undefined
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'sluice-cluster-')))
  const logger = options.logger ?? defaultTestLogger()
  const [{ startMetadataServer }, { startBroker }] = await Promise.all([
    import('@sluice/metadata'),
    import('@sluice/broker'),
  ])
  let metadata: MetadataServerHandle | undefined
  const brokers: BrokerHandle[] = []
  const stopAllStarted = async (): Promise<void> => {
    const results = await Promise.allSettled(brokers.map(async (b) => await b.stop()))
    if (metadata !== undefined) await metadata.stop()
    const failed = results.find((r) => r.status === 'rejected')
    if (failed !== undefined) throw failed.reason
  }
  try {
    metadata = await startMetadataServer({
      ...options.metadataOptions,
      host: '127.0.0.1',
      port: 0,
      dataDir: path.join(dataDir, 'metadata'),
      logger: logger.child({ process: 'metadata' }),
    })
    const metadataEndpoint = metadata.endpoint
    const settled = await Promise.allSettled(
      Array.from({ length: count }, async (_, i) => {
        const broker = await startBroker({
          ...options.brokerOptions,
          brokerId: i + 1,
          host: '127.0.0.1',
          port: 0,
          dataDir: path.join(dataDir, `broker-${i + 1}`),
          metadataEndpoints: [metadataEndpoint],
          logger: logger.child({ process: `broker-${i + 1}` }),
        })
        brokers.push(broker)
        return broker
      }),
    )
    const failed = settled.find((r) => r.status === 'rejected')
    if (failed !== undefined) throw failed.reason
    brokers.sort((a, b) => a.brokerId - b.brokerId)
    const bootstrap = brokers.map((b) => b.endpoint)
    await waitForBrokers(
      bootstrap,
      brokers.map((b) => b.brokerId),
      { timeoutMs: options.readyTimeoutMs ?? 30_000 },
    )
    let stopping: Promise<void> | undefined
    const cluster: Cluster = {
      metadata,
      brokers,
      bootstrap,
      dataDir,
      stop: async () => {
        stopping ??= (async () => {
          try {
            await stopAllStarted()
          } finally {
            untrack()
            if (ownsDataDir) await rm(dataDir, { recursive: true, force: true })
          }
        })()
        await stopping
      },
    }
    const untrack = track({ description: `in-process cluster in ${dataDir}`, stop: cluster.stop })
    return cluster
  } catch (err) {
    await stopAllStarted().catch(() => {})
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true }).catch(() => {})
    throw err
  }
}
