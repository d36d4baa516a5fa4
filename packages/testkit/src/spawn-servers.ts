/**
 * The Sluice servers as child processes, for end-to-end tests, benchmarks and `sluice dev`:
 * one metadata service and N brokers, each with its own data directory, flags as documented by
 * the servers' config schemas (`--host`, `--port`, `--data-dir`, `--broker-id`,
 * `--metadata-endpoints`). Port 0 (the default) lets the OS choose; the real port comes from
 * the `LISTENING <port>` line. With `adminPort`, `--admin-port` is passed and the admin server's
 * real port comes from the `ADMIN_LISTENING <port>` line (docs/metrics.md). Brokers always get a
 * Kafka listener (`--kafka-port`, default 0 so parallel tests never share Kafka's 9092); its real
 * port comes from the `KAFKA_LISTENING <port>` line.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { SERVER_NODE_FLAGS, serverMainPath } from './paths.js'
import { spawnProcess, type SpawnedProcess, type SpawnProcessOptions } from './spawn-process.js'
import { track } from './tracker.js'
import { waitForBrokers } from './wait-for-brokers.js'

/** Options every spawn helper passes through to `spawnProcess`. */
export type CommonSpawnOptions = Partial<
  Pick<SpawnProcessOptions, 'env' | 'cwd' | 'listeningTimeoutMs' | 'onLine' | 'ownProcessGroup' | 'name'>
>

export interface SpawnMetadataOptions extends CommonSpawnOptions {
  readonly dataDir: string
  readonly port?: number
  /** Serve the admin HTTP endpoint on this port (0 = ephemeral); the result's `adminPort` tells the real one. */
  readonly adminPort?: number
  readonly host?: string
  readonly extraArgs?: readonly string[]
}

export async function spawnMetadata(options: SpawnMetadataOptions): Promise<SpawnedProcess> {
  const host = options.host ?? '127.0.0.1'
  await mkdir(options.dataDir, { recursive: true })
  return await spawnProcess({
    ...options,
    name: options.name ?? 'metadata',
    script: serverMainPath('metadata'),
    nodeFlags: SERVER_NODE_FLAGS,
    host,
    args: [
      '--host',
      host,
      '--port',
      String(options.port ?? 0),
      '--data-dir',
      options.dataDir,
      ...(options.adminPort !== undefined ? ['--admin-port', String(options.adminPort)] : []),
      ...(options.extraArgs ?? []),
    ],
  })
}

export interface SpawnBrokerOptions extends CommonSpawnOptions {
  readonly brokerId: number
  readonly dataDir: string
  readonly metadataEndpoints: readonly string[]
  readonly port?: number
  /** Port of the Kafka listener (default 0 = ephemeral); the result's `kafkaPort` tells the real one. */
  readonly kafkaPort?: number
  /** Serve the admin HTTP endpoint on this port (0 = ephemeral); the result's `adminPort` tells the real one. */
  readonly adminPort?: number
  readonly host?: string
  readonly extraArgs?: readonly string[]
}

export async function spawnBroker(options: SpawnBrokerOptions): Promise<SpawnedProcess> {
  const host = options.host ?? '127.0.0.1'
  await mkdir(options.dataDir, { recursive: true })
  return await spawnProcess({
    ...options,
    name: options.name ?? `broker-${options.brokerId}`,
    script: serverMainPath('broker'),
    nodeFlags: SERVER_NODE_FLAGS,
    host,
    args: [
      '--broker-id',
      String(options.brokerId),
      '--host',
      host,
      '--port',
      String(options.port ?? 0),
      '--data-dir',
      options.dataDir,
      '--metadata-endpoints',
      options.metadataEndpoints.join(','),
      '--kafka-port',
      String(options.kafkaPort ?? 0),
      ...(options.adminPort !== undefined ? ['--admin-port', String(options.adminPort)] : []),
      ...(options.extraArgs ?? []),
    ],
  })
}

export interface SpawnClusterOptions {
  /** Default 3; broker ids are 1..N. */
  readonly brokers?: number
  /** Root of the data dirs (`metadata/`, `broker-<id>/`). Default: a fresh temp dir, removed by stop(). */
  readonly dataDir?: string
  readonly metadataPort?: number
  /** Ports of brokers 1..N; missing entries mean 0 (ephemeral). */
  readonly brokerPorts?: readonly number[]
  /** Kafka listener ports of brokers 1..N; missing entries mean 0 (ephemeral). */
  readonly brokerKafkaPorts?: readonly number[]
  readonly metadataArgs?: readonly string[]
  readonly brokerArgs?: readonly string[]
  /** Give every process an ephemeral admin port (each SpawnedProcess's `adminPort`). */
  readonly adminPorts?: boolean
  readonly env?: NodeJS.ProcessEnv
  readonly onLine?: (name: string, line: string, stream: 'stdout' | 'stderr') => void
  readonly ownProcessGroup?: boolean
  readonly listeningTimeoutMs?: number
  /** Deadline for every broker to be registered and visible. Default 60 s. */
  readonly readyTimeoutMs?: number
}

export interface SpawnedCluster {
  readonly metadata: SpawnedProcess
  readonly brokers: SpawnedProcess[]
  readonly bootstrap: string[]
  readonly dataDir: string
  /** Brokers first (so they leave the cluster cleanly), then the metadata service. */
  stop(options?: { timeoutMs?: number }): Promise<void>
}

export async function spawnCluster(options: SpawnClusterOptions = {}): Promise<SpawnedCluster> {
  const count = options.brokers ?? 3
  const ownsDataDir = options.dataDir === undefined
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'sluice-cluster-')))
  const common = {
    env: options.env,
    ownProcessGroup: options.ownProcessGroup,
    listeningTimeoutMs: options.listeningTimeoutMs,
  }
  const onLine = (name: string): SpawnProcessOptions['onLine'] =>
    options.onLine === undefined ? undefined : (line, stream) => options.onLine!(name, line, stream)
  const started: SpawnedProcess[] = []
  const stopStarted = async (timeoutMs?: number): Promise<void> => {
    const [metadata, ...brokers] = started
    await Promise.all(brokers.map(async (b) => await b.stop({ timeoutMs })))
    if (metadata !== undefined) await metadata.stop({ timeoutMs })
  }
  try {
    const metadata = await spawnMetadata({
      ...common,
      dataDir: path.join(dataDir, 'metadata'),
      port: options.metadataPort,
      ...(options.adminPorts === true ? { adminPort: 0 } : {}),
      extraArgs: options.metadataArgs,
      onLine: onLine('metadata'),
    })
    started.push(metadata)
    // allSettled, not all: every broker that did start must be known before cleaning up.
    const settled = await Promise.allSettled(
      Array.from({ length: count }, async (_, i) => {
        const broker = await spawnBroker({
          ...common,
          brokerId: i + 1,
          dataDir: path.join(dataDir, `broker-${i + 1}`),
          metadataEndpoints: [metadata.endpoint],
          port: options.brokerPorts?.[i],
          kafkaPort: options.brokerKafkaPorts?.[i],
          ...(options.adminPorts === true ? { adminPort: 0 } : {}),
          extraArgs: options.brokerArgs,
          onLine: onLine(`broker-${i + 1}`),
        })
        started.push(broker)
        return broker
      }),
    )
    const failed = settled.find((r) => r.status === 'rejected')
    if (failed !== undefined) throw failed.reason
    const brokers = settled.map((r) => (r as PromiseFulfilledResult<SpawnedProcess>).value)
    const bootstrap = brokers.map((b) => b.endpoint)
    await waitForBrokers(
      bootstrap,
      brokers.map((_, i) => i + 1),
      { timeoutMs: options.readyTimeoutMs ?? 60_000 },
    )
    let stopping: Promise<void> | undefined
    const cluster: SpawnedCluster = {
      metadata,
      brokers,
      bootstrap,
      dataDir,
      stop: async (stopOptions = {}) => {
        stopping ??= (async () => {
          try {
            await stopStarted(stopOptions.timeoutMs)
          } finally {
            untrack()
            if (ownsDataDir) await rm(dataDir, { recursive: true, force: true })
          }
        })()
        await stopping
      },
    }
    const untrack = track({ description: `spawned cluster in ${dataDir}`, stop: async () => await cluster.stop() })
    return cluster
  } catch (err) {
    await stopStarted(5_000).catch(() => {})
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true }).catch(() => {})
    throw err
  }
}
