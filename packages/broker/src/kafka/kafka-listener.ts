/**
 * The broker's Kafka listener: a plain TCP server speaking Kafka's binary protocol beside the
 * gRPC one (docs/design.md §9), so Kafka's own clients and tools reach the same partitions. Each
 * accepted socket becomes a KafkaConnection (framing, ordering, backpressure); the API handlers
 * come from kafka-handlers.ts through a KafkaApiTable.
 *
 * stop() is the first step of a broker's stop: no new connections, every in-flight handler's
 * signal aborted, every socket destroyed. Kafka clients reconnect to another broker on their own.
 */
import net from 'node:net'
import type { Logger } from 'pino'
import { kafka } from '@sluice/protocol'
import type { BrokerContext } from '../server/context.js'
import type { KafkaApiHandler, KafkaListenerInfo } from './kafka-api-handler.js'
import { KafkaApiTable } from './kafka-api-table.js'
import { startIdleSweep } from './idle-sweep.js'
import { KafkaConnection } from './kafka-connection.js'
import { kafkaHandlers } from './kafka-handlers.js'

/** Requests served at once per connection (Kafka serves one; clients pipeline up to five by default). */
export const DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION = 64

export interface KafkaListenerOptions {
  readonly broker: BrokerContext
  /** Address and port to listen on; port 0 = ephemeral. */
  readonly host: string
  readonly port: number
  /** What clients are told (Metadata answers); the port defaults to the bound one. */
  readonly advertisedHost: string
  readonly advertisedPort?: number
  readonly logger: Logger
  /** Default: kafkaHandlers(). */
  readonly handlers?: readonly KafkaApiHandler<unknown, unknown>[]
  readonly maxInFlightPerConnection?: number
  /** The largest request accepted (Kafka's socket.request.max.bytes, default 100 MiB). */
  readonly maxFrameBytes?: number
  /** Idle connections are closed after this long (Kafka's connections.max.idle.ms, default 10 min). */
  readonly connectionsMaxIdleMs?: number
}

export const DEFAULT_CONNECTIONS_MAX_IDLE_MS = 600_000

export interface KafkaListener {
  /** The bound port. */
  readonly port: number
  readonly info: KafkaListenerInfo
  /** Open connections (tests and metrics). */
  readonly connectionCount: number
  stop(): Promise<void>
}

/** At most this many refused-connection warnings per interval; the rest are counted and summed up. */
const REFUSED_LOGS_PER_INTERVAL = 10
const REFUSED_LOG_INTERVAL_MS = 10_000

export async function startKafkaListener(options: KafkaListenerOptions): Promise<KafkaListener> {
  // Every API counted and timed in the broker's sluice_rpc_* metrics (service "kafka", method the
  // API's name), as the gRPC methods are; the connection records each answer (kafka-connection.ts).
  const rpc = options.broker.metrics?.rpc
  const table = new KafkaApiTable(
    options.handlers ?? kafkaHandlers(),
    rpc === undefined ? undefined : (name) => rpc.probe('kafka', name),
  )
  const logger = options.logger
  const connections = new Set<KafkaConnection>()
  const server = net.createServer()
  let info: KafkaListenerInfo | undefined
  let stopping = false
  let accepted = 0
  const onRefused = refusedLogger(logger)

  server.on('connection', (socket) => {
    if (stopping || info === undefined) {
      socket.destroy()
      return
    }
    accepted += 1
    const id = `${socket.localAddress}:${socket.localPort}-${socket.remoteAddress}:${socket.remotePort}-${accepted}`
    const connection = new KafkaConnection({
      socket,
      id,
      table,
      broker: options.broker,
      listener: info,
      logger,
      maxInFlight: options.maxInFlightPerConnection ?? DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION,
      maxFrameBytes: options.maxFrameBytes ?? kafka.DEFAULT_MAX_FRAME_BYTES,
      onRefused,
      onClosed: () => connections.delete(connection),
    })
    connections.add(connection)
    connection.start()
  })

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error): void => reject(err)
    server.once('error', onError)
    server.listen({ host: options.host, port: options.port }, () => {
      server.off('error', onError)
      resolve()
    })
  })
  // Errors after listening (rare: the accept loop) are logged; the broker goes on serving gRPC.
  server.on('error', (err) => logger.error({ err }, 'kafka listener error'))
  const port = (server.address() as net.AddressInfo).port
  info = {
    brokerId: options.broker.brokerId,
    host: options.advertisedHost,
    port: options.advertisedPort ?? port,
    apis: table.apis,
  }
  const idleSweep = startIdleSweep(connections, options.connectionsMaxIdleMs ?? DEFAULT_CONNECTIONS_MAX_IDLE_MS)
  logger.info({ port, advertised: `${info.host}:${info.port}`, apis: table.apis.length }, 'kafka listener started')

  let stopped: Promise<void> | undefined
  return {
    port,
    info,
    get connectionCount() {
      return connections.size
    },
    stop: () => {
      stopped ??= (async () => {
        stopping = true
        idleSweep.stop()
        // close() stops accepting now and calls back once the server has no connection left.
        const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()))
        const open = [...connections]
        for (const c of open) c.close()
        await Promise.all([serverClosed, ...open.map(async (c) => await c.closed)])
      })()
      return stopped
    },
  }
}

/** Warnings for connections closed over bad input, at most REFUSED_LOGS_PER_INTERVAL per interval. */
function refusedLogger(logger: Logger): (details: Record<string, unknown>, message: string) => void {
  let windowStart = 0
  let logged = 0
  let suppressed = 0
  return (details, message) => {
    const now = Date.now()
    if (now - windowStart >= REFUSED_LOG_INTERVAL_MS) {
      if (suppressed > 0) logger.warn({ suppressed }, 'more Kafka connections were closed over bad input')
      windowStart = now
      logged = 0
      suppressed = 0
    }
    if (logged < REFUSED_LOGS_PER_INTERVAL) {
      logged += 1
      logger.warn(details, message)
    } else {
      suppressed += 1
      logger.debug(details, message)
    }
  }
}
