/**
 * The Broker gRPC service (proto/sluice/v1/broker.proto) on one grpc-js server.
 *
 * Every handler is wrapped: a unary handler that throws answers with a gRPC status from
 * toGrpcError; streams go through serveBidiStream, which turns failures into per-request error
 * answers. grpc-js itself answers unknown methods with UNIMPLEMENTED and undecodable messages
 * with a status, so no input reaches the process's uncaught-error path.
 *
 * HTTP/2 receive window: grpc-js offers no server option for it and leaves Node's 64 KiB, which
 * caps produce uploads (docs/grpc-throughput.md). We raise it on each new session
 * of the listening http2 servers: a 64 MiB connection window and an 8 MiB initial stream window.
 */
import * as grpc from '@grpc/grpc-js'
import type { Http2Server, ServerHttp2Session } from 'node:http2'
import type { Socket } from 'node:net'
import type { Logger } from 'pino'
import { GRPC_SERVER_OPTIONS, loadSluiceProto, toGrpcError, type wire } from '@sluice/protocol'
import { serveBidiStream, type ServedStream } from './bidi-stream.js'
import type { BrokerContext } from './context.js'
import { handleWireFetch, wireFetchFailure } from './fetch-wire.js'
import { handleListOffsets } from './list-offsets-handler.js'
import { handleDeleteRecords, handleMetadata } from './metadata-handler.js'
import { handleWireProduce, wireProduceFailure } from './produce-wire.js'

const CONNECTION_WINDOW_BYTES = 64 * 1024 * 1024
const STREAM_WINDOW_BYTES = 8 * 1024 * 1024
const STREAM_IN_FLIGHT_MAX = 64
const STOP_GRACE_MS = 3000

export interface BrokerGrpcServer {
  readonly port: number
  /** Answers what is in flight, ends every stream, and closes the listener. */
  stop(): Promise<void>
}

export async function startGrpcServer(ctx: BrokerContext, host: string, port: number): Promise<BrokerGrpcServer> {
  const logger = ctx.logger
  const server = new grpc.Server(GRPC_SERVER_OPTIONS)
  const streams = new Set<ServedStream>()
  const track = (s: ServedStream): void => {
    streams.add(s)
    void s.closed.then(() => streams.delete(s))
  }

  const m = instrumentation(ctx)
  const handlers: wire.BrokerHandlers = {
    Produce: (call) =>
      track(
        serveBidiStream({
          name: 'Produce',
          call,
          logger,
          maxInFlight: STREAM_IN_FLIGHT_MAX,
          handle: m.Produce((req) => handleWireProduce(ctx, req)),
          errorResponse: wireProduceFailure,
        }),
      ),
    Fetch: (call) =>
      track(
        serveBidiStream({
          name: 'Fetch',
          call,
          logger,
          maxInFlight: STREAM_IN_FLIGHT_MAX,
          handle: m.Fetch((req, signal) => handleWireFetch(ctx, req, signal)),
          errorResponse: wireFetchFailure,
        }),
      ),
    ListOffsets: unary(
      logger,
      'ListOffsets',
      m.ListOffsets((req) => handleListOffsets(ctx, req)),
    ),
    Metadata: unary(
      logger,
      'Metadata',
      m.Metadata(async (req) => handleMetadata(ctx, req)),
    ),
    DeleteRecords: unary(
      logger,
      'DeleteRecords',
      m.DeleteRecords(async (req) => handleDeleteRecords(ctx, req)),
    ),
  }
  server.addService(loadSluiceProto().sluice.v1.Broker.service, handlers)

  const boundPort = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    )
  })
  raiseReceiveWindows(server, logger)

  return {
    port: boundPort,
    async stop() {
      for (const s of streams) s.drain()
      await Promise.race([
        Promise.all([...streams].map((s) => s.closed)),
        new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref()),
      ])
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown()
          resolve()
        }, STOP_GRACE_MS)
        timer.unref()
        server.tryShutdown(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    },
  }
}

type Wrap = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => (...args: A) => Promise<R>
const RPC_METHODS = ['Produce', 'Fetch', 'ListOffsets', 'Metadata', 'DeleteRecords'] as const

/** Per method: the handler counted and timed (sluice_rpc_*), or unchanged without metrics. */
function instrumentation(ctx: BrokerContext): Record<(typeof RPC_METHODS)[number], Wrap> {
  const out = {} as Record<(typeof RPC_METHODS)[number], Wrap>
  for (const method of RPC_METHODS) {
    const probe = ctx.metrics?.rpc.probe('sluice.v1.Broker', method)
    out[method] = probe === undefined ? (fn) => fn : (fn) => probe.wrap(fn)
  }
  return out
}

function unary<Req, Res>(logger: Logger, name: string, fn: (req: Req) => Promise<Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    fn(call.request).then(
      (res) => callback(null, res),
      (err: unknown) => {
        logger.error({ err, rpc: name }, 'request failed')
        callback(toGrpcError(err))
      },
    )
  }
}

/**
 * grpc-js keeps its listening http2 servers in a private map; we only add a 'session' listener
 * to them. If a grpc-js upgrade removes the map, the broker still works with Node's default
 * windows (slower uploads) and says so once.
 */
function raiseReceiveWindows(server: grpc.Server, logger: Logger): void {
  const http2Servers = (server as unknown as { http2Servers?: Map<Http2Server, unknown> }).http2Servers
  if (!(http2Servers instanceof Map) || http2Servers.size === 0) {
    logger.warn('cannot reach the grpc-js http2 servers; produce uploads use the default 64 KiB window')
    return
  }
  for (const h2 of http2Servers.keys()) {
    // grpc-js turns Nagle's algorithm off on the sockets it dials, not on those it accepts: with
    // it on, a small response (a produce ack, a follower's fetch answer) can wait for the peer's
    // delayed ACK, ~40 ms on Linux, at every hop of acks=all.
    h2.on('connection', (socket: Socket) => {
      socket.setNoDelay(true)
    })
    h2.on('session', (session: ServerHttp2Session) => {
      try {
        session.setLocalWindowSize(CONNECTION_WINDOW_BYTES)
        session.settings({ initialWindowSize: STREAM_WINDOW_BYTES })
      } catch (err) {
        logger.debug({ err }, 'could not raise the HTTP/2 receive window')
      }
    })
  }
}
