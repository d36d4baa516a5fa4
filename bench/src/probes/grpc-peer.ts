/**
 * The far end of the gRPC probes: a grpc-js server made as the broker makes its own
 * (packages/broker/src/server/grpc-server.ts: GRPC_SERVER_OPTIONS, Nagle off on accepted
 * sockets, the raised HTTP/2 receive windows), serving the real Broker service definition from
 * proto/sluice/v1, so every message is encoded and decoded by the same protobuf stubs a broker
 * and the SDK use.
 *
 * 'grpc-echo' answers each Produce request with a ProduceResponse of one partition and each
 * Fetch request with a FetchResponse whose records are `answerBytes` long (the shape of a
 * follower's or consumer's fetch answer). The peer's stamps travel in the numeric fields
 * (a probe's use of them, same types and nearly the same sizes as real offsets): base_offset /
 * high_watermark = when the request's first JS line ran here, log_start_offset / log_end_offset
 * = when the answer was written. 'grpc-relay' forwards each Produce request to the next
 * process's Broker.Produce, or, last in a chain, records the one-way time from the origin stamp
 * inside `records` (probe-body.ts).
 */
import * as grpc from '@grpc/grpc-js'
import type { Http2Server, ServerHttp2Session } from 'node:http2'
import type { Socket } from 'node:net'
import { GRPC_CHANNEL_OPTIONS, GRPC_SERVER_OPTIONS, loadSluiceProto, type wire } from '@sluice/protocol'
import { BODY_ORIGIN_NS, bodyMeasured, readStamp } from './probe-body.js'
import { msBetween } from './probe-stats.js'
import { SinkRecorder, type Peer, type PeerConfig } from './peer-config.js'

/** The broker's windows (grpc-server.ts), so a 1 KB or 16 KB message flows as it does there. */
const CONNECTION_WINDOW_BYTES = 64 * 1024 * 1024
const STREAM_WINDOW_BYTES = 8 * 1024 * 1024

export const PROBE_TOPIC = 'probe'

export async function startGrpcPeer(config: Extract<PeerConfig, { role: 'grpc-echo' | 'grpc-relay' }>): Promise<Peer> {
  const recorder = new SinkRecorder()
  const server = new grpc.Server(GRPC_SERVER_OPTIONS)
  const next = config.role === 'grpc-relay' && config.next !== undefined ? await openProduce(config.next) : undefined
  const answerRecords = Buffer.alloc(config.role === 'grpc-echo' ? config.answerBytes : 0)
  const calls = new Set<grpc.ServerDuplexStream<unknown, unknown>>()
  const track = (call: grpc.ServerDuplexStream<unknown, unknown>): void => {
    calls.add(call)
    call.on('error', () => calls.delete(call))
    call.on('end', () => {
      calls.delete(call)
      call.end()
    })
  }
  const handlers: Partial<wire.BrokerHandlers> = {
    Produce: (call) => {
      track(call as grpc.ServerDuplexStream<unknown, unknown>)
      call.on('data', (req: wire.ProduceRequest__Output) => {
        const receivedNs = process.hrtime.bigint()
        if (config.role === 'grpc-echo') {
          const p = req.topics[0]?.partitions[0]
          call.write({
            correlation_id: req.correlation_id,
            topics: [
              {
                topic: req.topics[0]?.topic ?? PROBE_TOPIC,
                partitions: [
                  {
                    partition: p?.partition ?? 0,
                    error_code: 0,
                    base_offset: String(receivedNs),
                    log_append_time_ms: '-1',
                    log_start_offset: String(process.hrtime.bigint()),
                  },
                ],
              },
            ],
          })
          return
        }
        if (next !== undefined) {
          next.call.write(req)
          return
        }
        const records = req.topics[0]?.partitions[0]?.records
        if (records !== undefined && records.length >= BODY_ORIGIN_NS + 8 && bodyMeasured(records))
          recorder.record(msBetween(readStamp(records, BODY_ORIGIN_NS), receivedNs))
      })
    },
    Fetch: (call) => {
      track(call as grpc.ServerDuplexStream<unknown, unknown>)
      call.on('data', (req: wire.FetchRequest__Output) => {
        const receivedNs = process.hrtime.bigint()
        const p = req.topics[0]?.partitions[0]
        call.write({
          correlation_id: req.correlation_id,
          error_code: 0,
          topics: [
            {
              topic: req.topics[0]?.topic ?? PROBE_TOPIC,
              partitions: [
                {
                  partition: p?.partition ?? 0,
                  error_code: 0,
                  high_watermark: String(receivedNs),
                  last_stable_offset: String(receivedNs),
                  log_start_offset: '0',
                  log_end_offset: String(process.hrtime.bigint()),
                  records: answerRecords,
                  leader_epoch: 0,
                },
              ],
            },
          ],
        })
      })
    },
  }
  server.addService(loadSluiceProto().sluice.v1.Broker.service, handlers as wire.BrokerHandlers)
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    )
  })
  tuneAcceptedConnections(server)
  return {
    port,
    report: () => recorder.report(),
    received: () => recorder.count(),
    reset: () => recorder.reset(),
    close: async () => {
      next?.close()
      for (const c of calls) c.end()
      server.forceShutdown()
    },
  }
}

/** A Broker.Produce stream to 127.0.0.1:`port`, opened as the SDK opens its own (connection-pool.ts). */
export async function openProduce(port: number): Promise<{
  client: wire.BrokerClient
  call: grpc.ClientDuplexStream<wire.ProduceRequest, wire.ProduceResponse__Output>
  close(): void
}> {
  const client = await brokerClient(port)
  const call = client.Produce()
  call.on('error', () => {})
  return {
    client,
    call,
    close: () => {
      call.end()
      client.close()
    },
  }
}

/** A connected Broker client with Sluice's channel options. */
export async function brokerClient(port: number): Promise<wire.BrokerClient> {
  const Broker = loadSluiceProto().sluice.v1.Broker
  const client = new Broker(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), GRPC_CHANNEL_OPTIONS)
  await new Promise<void>((resolve, reject) =>
    client.waitForReady(Date.now() + 10_000, (err) => (err ? reject(err) : resolve())),
  )
  return client
}

/**
 * What the broker does to its listener's connections (grpc-server.ts raiseReceiveWindows):
 * Nagle off on accepted sockets and larger HTTP/2 receive windows. grpc-js keeps its http2
 * servers in a private map; if it moves, the probe runs with grpc-js's defaults.
 */
function tuneAcceptedConnections(server: grpc.Server): void {
  const http2Servers = (server as unknown as { http2Servers?: Map<Http2Server, unknown> }).http2Servers
  if (!(http2Servers instanceof Map)) return
  for (const h2 of http2Servers.keys()) {
    h2.on('connection', (socket: Socket) => socket.setNoDelay(true))
    h2.on('session', (session: ServerHttp2Session) => {
      try {
        session.setLocalWindowSize(CONNECTION_WINDOW_BYTES)
        session.settings({ initialWindowSize: STREAM_WINDOW_BYTES })
      } catch {
        // The defaults then: slower large messages, same small ones.
      }
    })
  }
}
