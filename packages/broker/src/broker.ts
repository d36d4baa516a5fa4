/**
 * startBroker: wires the storage (LogManager), the metadata cache and session, the hosted
 * replicas, the delayed-fetch purgatory, the Broker gRPC service (docs/internal-apis.md) and,
 * when `kafkaPort` is given, the Kafka listener (kafka/kafka-listener.ts).
 *
 * Start order: open the data dir (recovery), listen on gRPC and then Kafka (the real ports are
 * needed to register), register with the metadata service and apply its first snapshot, then
 * resolve. Metadata updates are applied to the replicas first and to the cache second, so the
 * Metadata RPC never advertises a leadership whose log is not open yet.
 * Stop order: controlled shutdown (leaderships move while both listeners still answer, so Kafka
 * and gRPC clients alike hear NOT_LEADER_OR_FOLLOWER and move), close the Kafka listener's
 * connections (Kafka clients reconnect elsewhere by themselves), drain the gRPC streams (answer
 * what is in flight), end the metadata session (the controller moves leadership at once), stop
 * the fetchers and replicas (writing the high-watermark checkpoint), then close the logs cleanly.
 *
 * Replication wiring (docs/replication.md): followers fetch through the ReplicaFetcherManager;
 * leaders take writes only while the metadata session holds its lease (the fencing rule), send
 * ISR changes with AlterPartition on the session's endpoint, and wake parked follower fetches on
 * every append.
 */
import { pino, type Logger } from 'pino'
import { SluiceError, type Clock } from '@sluice/protocol'
import { LogDirs, defaultMaxOpenFiles } from './log/index.js'
import { MetadataCache } from './metadata-cache.js'
import { MetadataSession } from './metadata-session.js'
import { ReplicaManager } from './replica-manager.js'
import { followerFetchKey } from './replication/follower-fetch.js'
import { readHighWatermarks } from './replication/hw-checkpoint.js'
import { ReplicaFetcherManager } from './replication/replica-fetcher-manager.js'
import type { ReplicaFetchTransportKind } from './replication/replica-fetch-transport.js'
import { LogMaintenance } from './log-maintenance.js'
import { DelayedFetchPurgatory } from './server/delayed-fetch.js'
import { startGrpcServer, type BrokerGrpcServer } from './server/grpc-server.js'
import type { BrokerContext } from './server/context.js'
import { closeForwarder } from './kafka/metadata-forwarder.js'
import { BrokerAdmin } from './metrics/broker-admin.js'
import { startKafkaListener, type KafkaListener } from './kafka/kafka-listener.js'

export interface BrokerOptions {
  brokerId: number
  host: string
  port: number /* 0 = ephemeral */
  /** The one data dir; `dataDirs` wins when both are given. */
  dataDir?: string
  /** Several data dirs (Kafka's log.dirs): new partitions go to the dir with the fewest (log/manager/log-dirs.ts). */
  dataDirs?: readonly string[]
  metadataEndpoints: string[]
  advertisedHost?: string
  /** Port of the Kafka listener (0 = ephemeral); absent = no Kafka listener. */
  kafkaPort?: number
  /** Address the Kafka listener listens on (default: host). */
  kafkaHost?: string
  /** Host Kafka clients are told (default: advertisedHost, else kafkaHost, 127.0.0.1 for a wildcard). */
  advertisedKafkaHost?: string
  /** Port Kafka clients are told (default: the bound Kafka port). */
  advertisedKafkaPort?: number
  /** Idle Kafka connections are closed after this long (connections.max.idle.ms, default 600000). */
  kafkaConnectionsMaxIdleMs?: number
  rack?: string
  sessionTimeoutMs?: number
  heartbeatIntervalMs?: number
  logger?: Logger
  /** A follower that has not caught up for this long leaves the ISR (default 30000). */
  replicaLagMaxMs?: number
  /** Long-poll wait of follower fetches (default 500). */
  replicaFetchWaitMaxMs?: number
  /** Minimum bytes a follower fetch waits for (default 1). */
  replicaFetchMinBytes?: number
  /** Per-partition byte limit of follower fetches (default 1 MiB). */
  replicaFetchMaxBytes?: number
  /**
   * Broker id -> host:port dialled for replication instead of the advertised address (the
   * address of `replicaFetchTransport`: the peer's Kafka listener under 'kafka').
   */
  replicaConnectOverrides?: Readonly<Record<number, string>>
  /**
   * What followers fetch over (replication/replica-fetch-transport.ts): Kafka's Fetch on the
   * leader's Kafka listener ('kafka', the default; a leader without one is fetched over gRPC) or
   * the gRPC Fetch stream ('grpc').
   */
  replicaFetchTransport?: ReplicaFetchTransportKind
  /** How often the replication-offset-checkpoint is written (default 5000). */
  highWatermarkCheckpointIntervalMs?: number
  /** Retention/compaction/checkpoint scheduler period (log.retention.check.interval.ms, default 300000). */
  logRetentionCheckIntervalMs?: number
  /** Delay before deleted segment files are removed (file.delete.delay.ms, default 60000). */
  fileDeleteDelayMs?: number
  /** Size of the log's open-file LRU (default: half of the open-file limit, log/io/open-file-limit.ts). */
  maxOpenFiles?: number
  /** Offset-map budget of the log cleaner in bytes (default 16 MiB). */
  logCleanerDedupeBufferBytes?: number
  /** Port of the admin HTTP server (/metrics, /healthz, /readyz); absent = none, 0 = ephemeral. */
  adminPort?: number
  /** Address of the admin server (default: host). */
  adminHost?: string
  /** Called once the admin server listens, before log recovery and registration. */
  onAdminListening?: (port: number) => void
  /**
   * The clock of the time-driven parts (ISR lag and shrink, the metadata session's lease and
   * heartbeats, retention and compaction times, delayed file removal, producer-id expiry,
   * acks=all timeouts, replica-fetch backoffs, the HW checkpoint); default systemClock. A test
   * may run a whole broker on a ManualClock. Fetch long-poll waits, gRPC deadlines and record
   * timestamps (LogAppendTime) stay real.
   */
  clock?: Clock
}

export interface BrokerHandle {
  readonly brokerId: number
  readonly port: number
  readonly endpoint: string // host:port
  /** The Kafka listener's bound port, when `kafkaPort` was given. */
  readonly kafkaPort?: number
  /** The Kafka listener's advertised host:port (what Kafka clients bootstrap from), when it runs. */
  readonly kafkaEndpoint?: string
  /** The admin server's port, when `adminPort` was given. */
  readonly adminPort?: number
  stop(): Promise<void> // clean: close streams, flush, clean-shutdown marker
}

/** @internal the parts tests look into */
export interface BrokerInternals {
  readonly context: BrokerContext
  readonly session: MetadataSession
  readonly logManager: LogDirs
  readonly fetchers: ReplicaFetcherManager
  readonly maintenance: LogMaintenance
}

const internals = new WeakMap<BrokerHandle, BrokerInternals>()

/** @internal visible for testing */
export function brokerInternals(handle: BrokerHandle): BrokerInternals | undefined {
  return internals.get(handle)
}

export async function startBroker(options: BrokerOptions): Promise<BrokerHandle> {
  if (options.metadataEndpoints.length === 0) throw new Error('startBroker: metadataEndpoints is empty')
  // The admin server comes first, so /healthz answers while the logs recover (metrics/broker-admin.ts).
  const admin =
    options.adminPort === undefined
      ? undefined
      : await BrokerAdmin.start({
          host: options.adminHost ?? options.host,
          port: options.adminPort,
          logger: (options.logger ?? pino({ level: 'silent' })).child({
            brokerId: options.brokerId,
            component: 'admin',
          }),
        })
  if (admin !== undefined) options.onAdminListening?.(admin.port)
  try {
    return await startBrokerServing(options, admin)
  } catch (err) {
    await admin?.close()
    throw err
  }
}

async function startBrokerServing(options: BrokerOptions, admin: BrokerAdmin | undefined): Promise<BrokerHandle> {
  const logger = (options.logger ?? pino({ level: 'silent' })).child({ brokerId: options.brokerId })
  const dataDirs = options.dataDirs ?? (options.dataDir === undefined ? [] : [options.dataDir])
  if (dataDirs.length === 0) throw new Error('startBroker: no data dir (dataDir or dataDirs)')
  const maxOpenFiles = options.maxOpenFiles ?? defaultMaxOpenFiles()
  logger.info({ maxOpenFiles }, 'log file-handle cache size')
  const logManager = await LogDirs.open({
    dataDirs,
    logger,
    fileDeleteDelayMs: options.fileDeleteDelayMs,
    maxOpenFiles,
    clock: options.clock,
  })
  const cache = new MetadataCache({
    metadataEndpoints: options.metadataEndpoints,
    onBadConfig: (topic, problem) => logger.warn({ topic, problem }, 'ignoring a topic config entry'),
  })
  const purgatory = new DelayedFetchPurgatory({
    onError: (err) => logger.error({ err }, 'delayed fetch completion failed'),
  })
  // The session starts after the server listens; the hooks below read it when they run.
  let session: MetadataSession | undefined
  const fetchers = new ReplicaFetcherManager({
    brokerId: options.brokerId,
    cache,
    connectOverrides: Object.fromEntries(Object.entries(options.replicaConnectOverrides ?? {})),
    transport: options.replicaFetchTransport ?? 'kafka',
    brokerEpoch: () => session?.lastBrokerEpoch,
    waitMaxMs: options.replicaFetchWaitMaxMs ?? 500,
    minBytes: options.replicaFetchMinBytes ?? 1,
    maxBytesPerPartition: options.replicaFetchMaxBytes ?? 1024 * 1024,
    logger: logger.child({ component: 'replica-fetcher' }),
    clock: options.clock,
  })
  const replicaLogger = logger.child({ component: 'replicas' })
  const replicas = new ReplicaManager({
    brokerId: options.brokerId,
    logManager,
    logger: replicaLogger,
    fetchers,
    replicaLagMaxMs: options.replicaLagMaxMs ?? 30_000,
    initialHighWatermarks: await readAllHighWatermarks(dataDirs, logger),
    highWatermarkCheckpointIntervalMs: options.highWatermarkCheckpointIntervalMs ?? 5000,
    clock: options.clock,
    hooks: {
      onHighWatermarkAdvanced: (key, bytes) => purgatory.notify(key, bytes),
      onLogAppended: (key, bytes) => purgatory.notify(followerFetchKey(key), bytes),
      onStateChange: (key) => {
        purgatory.wake(key)
        purgatory.wake(followerFetchKey(key))
      },
      canLead: () => session?.hasLease() ?? false,
      isBrokerLive: (id) => cache.broker(id) !== undefined,
      alterPartition: async (topic, partition, req) => {
        const epoch = session?.brokerEpoch
        if (session === undefined || epoch === undefined)
          throw new SluiceError('BROKER_NOT_AVAILABLE', 'not registered with the metadata service')
        return await session.alterPartition({
          broker_id: options.brokerId,
          broker_epoch: epoch.toString(),
          topic,
          partition,
          leader_epoch: req.leaderEpoch,
          partition_epoch: req.partitionEpoch,
          new_isr: [...req.newIsr],
        })
      },
      onEvent: (event, details) => {
        admin?.metrics.partitionEvent(event)
        replicaLogger.info(details, event)
      },
    },
  })
  const maintenance = new LogMaintenance({
    logManager,
    logger: logger.child({ component: 'log-maintenance' }),
    intervalMs: options.logRetentionCheckIntervalMs,
    cleanerDedupeBufferBytes: options.logCleanerDedupeBufferBytes,
    highWatermark: (topic, partition) => replicas.get(topic, partition)?.highWatermark,
    clock: options.clock,
  })
  const context: BrokerContext = {
    brokerId: options.brokerId,
    cache,
    replicas,
    purgatory,
    logger: logger.child({ component: 'server' }),
    metrics: admin?.metrics,
  }
  admin?.bind({ replicas, cache, session: () => session })

  const advertisedHost = options.advertisedHost ?? reachableHost(options.host)
  let server: BrokerGrpcServer
  let kafkaListener: KafkaListener | undefined
  try {
    server = await startGrpcServer(context, options.host, options.port)
    try {
      kafkaListener =
        options.kafkaPort === undefined
          ? undefined
          : await startKafkaListener({
              broker: context,
              host: options.kafkaHost ?? options.host,
              port: options.kafkaPort,
              advertisedHost:
                options.advertisedKafkaHost ??
                options.advertisedHost ??
                reachableHost(options.kafkaHost ?? options.host),
              advertisedPort: options.advertisedKafkaPort,
              connectionsMaxIdleMs: options.kafkaConnectionsMaxIdleMs,
              logger: logger.child({ component: 'kafka' }),
            })
    } catch (err) {
      await server.stop()
      throw err
    }
  } catch (err) {
    await replicas.close()
    await logManager.close()
    throw err
  }
  session = new MetadataSession({
    brokerId: options.brokerId,
    advertisedHost,
    port: server.port,
    ...(kafkaListener !== undefined
      ? { kafkaEndpoint: { host: kafkaListener.info.host, port: kafkaListener.info.port } }
      : {}),
    rack: options.rack ?? '',
    ...(admin !== undefined ? { adminPort: admin.port } : {}),
    sessionTimeoutMs: options.sessionTimeoutMs ?? 9000,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 2000,
    // Only the configured endpoints, as Kafka brokers use only their configured controller
    // quorum: the operator decides the route (a proxy, a load balancer, a NAT), and an address
    // the metadata service advertises may not be reachable from here. Failover between several
    // metadata instances happens within this list.
    // Only the configured endpoints: an operator (or a test's proxy) decides how this broker
    // reaches the metadata service; what the controller advertises is for clients.
    endpoints: () => options.metadataEndpoints,
    logger: logger.child({ component: 'metadata-session' }),
    clock: options.clock,
    onUpdate: async (update) => {
      await replicas.applyDelta(cache.planUpdate(update))
      cache.applyUpdate(update)
    },
  })

  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      admin?.markStopping()
      // Hand leadership over while this broker still serves, so clients and followers move to
      // the new leaders at once instead of waiting for the controller to notice the session end.
      const remaining = await session?.controlledShutdown(Math.min(options.sessionTimeoutMs ?? 9000, 10_000))
      if (remaining !== undefined) logger.info({ partitionsStillLed: remaining }, 'controlled shutdown done')
      await kafkaListener?.stop()
      purgatory.close()
      await server.stop()
      await session?.stop()
      // The Kafka handlers' channels to the metadata service (opened on first use).
      closeForwarder(context)
      await maintenance.stop()
      await replicas.close()
      await logManager.close()
      await admin?.close()
      logger.info('broker stopped')
    })()
    return stopping
  }

  session.start()
  try {
    await session.ready
  } catch (err) {
    await stop()
    throw err
  }
  const handle: BrokerHandle = {
    brokerId: options.brokerId,
    port: server.port,
    endpoint: `${advertisedHost}:${server.port}`,
    ...(kafkaListener !== undefined
      ? { kafkaPort: kafkaListener.port, kafkaEndpoint: `${kafkaListener.info.host}:${kafkaListener.info.port}` }
      : {}),
    ...(admin !== undefined ? { adminPort: admin.port } : {}),
    stop,
  }
  maintenance.start()
  internals.set(handle, { context, session, logManager, fetchers, maintenance })
  logger.info({ port: server.port, endpoint: handle.endpoint, kafkaEndpoint: handle.kafkaEndpoint }, 'broker started')
  return handle
}

/** The host to advertise for a listen address: a wildcard address is no place to connect to. */
function reachableHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host
}

/** The replication-offset-checkpoints of every data dir, merged (each holds the partitions stored there). */
async function readAllHighWatermarks(dataDirs: readonly string[], logger: Logger): Promise<Map<string, bigint>> {
  const merged = new Map<string, bigint>()
  for (const dir of dataDirs) {
    for (const [key, hw] of await readHighWatermarks(dir, logger)) merged.set(key, hw)
  }
  return merged
}
