/**
 * startBroker: wires the storage (LogManager), the metadata cache and session, the hosted
 * replicas, the delayed-fetch purgatory and the Broker gRPC service (docs/internal-apis.md).
 *
 * Start order: open the data dir (recovery), listen (the real port is needed to register),
 * register with the metadata service and apply its first snapshot, then resolve. Metadata
 * updates are applied to the replicas first and to the cache second, so the Metadata RPC never
 * advertises a leadership whose log is not open yet.
 * Stop order: drain the gRPC streams (answer what is in flight), end the metadata session (the
 * controller moves leadership at once), stop the replicas, then close the logs cleanly.
 */
import { pino, type Logger } from 'pino'
import { LogManager } from './log/index.js'
import { MetadataCache } from './metadata-cache.js'
import { MetadataSession } from './metadata-session.js'
import { ReplicaManager } from './replica-manager.js'
import { DelayedFetchPurgatory } from './server/delayed-fetch.js'
import { startGrpcServer, type BrokerGrpcServer } from './server/grpc-server.js'
import type { BrokerContext } from './server/context.js'

export interface BrokerOptions {
  brokerId: number
  host: string
  port: number /* 0 = ephemeral */
  dataDir: string
  metadataEndpoints: string[]
  advertisedHost?: string
  rack?: string
  sessionTimeoutMs?: number
  heartbeatIntervalMs?: number
  logger?: Logger
}

export interface BrokerHandle {
  readonly brokerId: number
  readonly port: number
  readonly endpoint: string // host:port
  stop (): Promise<void> // clean: close streams, flush, clean-shutdown marker
}

/** @internal the parts tests look into */
export interface BrokerInternals {
  readonly context: BrokerContext
  readonly session: MetadataSession
  readonly logManager: LogManager
}

const internals = new WeakMap<BrokerHandle, BrokerInternals>()

/** @internal visible for testing */
export function brokerInternals (handle: BrokerHandle): BrokerInternals | undefined {
  return internals.get(handle)
}

export async function startBroker (options: BrokerOptions): Promise<BrokerHandle> {
  if (options.metadataEndpoints.length === 0) throw new Error('startBroker: metadataEndpoints is empty')
  const logger = (options.logger ?? pino({ level: 'silent' })).child({ brokerId: options.brokerId })
  const logManager = await LogManager.open({ dataDir: options.dataDir, logger })
  const cache = new MetadataCache({
    metadataEndpoints: options.metadataEndpoints,
    onBadConfig: (topic, problem) => logger.warn({ topic, problem }, 'ignoring a topic config entry'),
  })
  const purgatory = new DelayedFetchPurgatory({ onError: (err) => logger.error({ err }, 'delayed fetch completion failed') })
  const replicas = new ReplicaManager({
    brokerId: options.brokerId,
    logManager,
    logger: logger.child({ component: 'replicas' }),
    hooks: {
      onHighWatermarkAdvanced: (key, bytes) => purgatory.notify(key, bytes),
      onStateChange: (key) => purgatory.wake(key),
    },
  })
  const context: BrokerContext = { brokerId: options.brokerId, cache, replicas, purgatory, logger: logger.child({ component: 'server' }) }

  let server: BrokerGrpcServer
  try {
    server = await startGrpcServer(context, options.host, options.port)
  } catch (err) {
    await logManager.close()
    throw err
  }
  const advertisedHost = options.advertisedHost ?? (options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host)
  const session = new MetadataSession({
    brokerId: options.brokerId,
    advertisedHost,
    port: server.port,
    rack: options.rack ?? '',
    sessionTimeoutMs: options.sessionTimeoutMs ?? 9000,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 2000,
    // The service's own list first (it follows failover), then the configured ones as a fallback.
    endpoints: () => [...new Set([...cache.metadataEndpoints, ...options.metadataEndpoints])],
    logger: logger.child({ component: 'metadata-session' }),
    onUpdate: async (update) => {
      await replicas.applyDelta(cache.planUpdate(update))
      cache.applyUpdate(update)
    },
  })

  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      purgatory.close()
      await server.stop()
      await session.stop()
      await replicas.close()
      await logManager.close()
      logger.info('broker stopped')
    })()
    return stopping
  }

  session.start()
  await session.ready
  const handle: BrokerHandle = {
    brokerId: options.brokerId,
    port: server.port,
    endpoint: `${advertisedHost}:${server.port}`,
    stop,
  }
  internals.set(handle, { context, session, logManager })
  logger.info({ port: server.port, endpoint: handle.endpoint }, 'broker started')
  return handle
}
