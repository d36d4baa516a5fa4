/**
 * A tiny Kafka-protocol server for the SDK's unit tests: it splits frames, decodes each Produce
 * or Fetch request with the generated codecs and hands it to the test, which answers it (with a
 * body), leaves it unanswered, or breaks the connection. Listens on 127.0.0.1 port 0; stop()
 * destroys every connection and closes the server.
 */
import net from 'node:net'
import { kafka } from '@sluice/protocol'

export interface TinyKafkaRequest {
  readonly apiKey: number
  readonly apiVersion: number
  readonly correlationId: number
  readonly clientId: string | null
  /** The decoded body: a kafka.ProduceRequest or kafka.FetchRequest. */
  readonly body: unknown
  /** Which connection it came on (0, 1, ... in accept order). */
  readonly connection: number
  answer(body: unknown): void
  /** Destroys the connection the request came on. */
  breakConnection(): void
}

const CODECS = new Map<number, kafka.KafkaApiCodec<unknown, unknown, unknown, unknown>>([
  [kafka.ProduceApi.apiKey, kafka.ProduceApi as kafka.KafkaApiCodec<unknown, unknown, unknown, unknown>],
  [kafka.FetchApi.apiKey, kafka.FetchApi as kafka.KafkaApiCodec<unknown, unknown, unknown, unknown>],
])

export interface TinyKafkaBroker {
  readonly port: number
  readonly requests: TinyKafkaRequest[]
  readonly connections: number
  stop(): Promise<void>
}

export async function startTinyKafkaBroker(onRequest: (req: TinyKafkaRequest) => void): Promise<TinyKafkaBroker> {
  const sockets: net.Socket[] = []
  const requests: TinyKafkaRequest[] = []
  const server = net.createServer((socket) => {
    const connection = sockets.length
    sockets.push(socket)
    const splitter = new kafka.KafkaFrameSplitter()
    socket.on('error', () => {})
    socket.on('data', (chunk: Buffer) => {
      for (const frame of splitter.push(chunk)) {
        const r = new kafka.KafkaReader(frame)
        const header = kafka.readRequestHeader(r, (key, version) => CODECS.get(key)!.requestHeaderVersion(version))
        const codec = CODECS.get(header.apiKey)!
        const req: TinyKafkaRequest = {
          apiKey: header.apiKey,
          apiVersion: header.apiVersion,
          correlationId: header.correlationId,
          clientId: header.clientId,
          body: codec.readRequest(r, header.apiVersion),
          connection,
          answer: (body) => {
            const w = new kafka.KafkaWriter()
            kafka.writeResponseHeader(w, codec.responseHeaderVersion(header.apiVersion), header.correlationId)
            codec.writeResponse(w, header.apiVersion, body)
            socket.write(Buffer.concat(w.toFrame()))
          },
          breakConnection: () => socket.destroy(),
        }
        requests.push(req)
        onRequest(req)
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    requests,
    get connections() {
      return sockets.length
    },
    stop: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
