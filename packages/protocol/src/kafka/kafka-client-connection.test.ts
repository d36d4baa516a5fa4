import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { SluiceError } from '../errors.js'
import { KafkaClientConnection } from './kafka-client-connection.js'
import { KafkaFrameSplitter, readRequestHeader, writeResponseHeader, type KafkaRequestHeader } from './kafka-frame.js'
import { KafkaReader } from './kafka-reader.js'
import { KafkaWriter } from './kafka-writer.js'
import { ApiVersionsApi, FetchApi } from './messages/index.js'

interface Received {
  readonly header: KafkaRequestHeader
  readonly body: KafkaReader
  readonly socket: net.Socket
}

/**
 * A tiny Kafka server for the tests: it splits frames, reads each request header and hands the
 * request to the test, which answers (or not) with `answer`.
 */
async function tinyServer(onRequest: (req: Received) => void): Promise<{ port: number; sockets: net.Socket[] }> {
  const sockets: net.Socket[] = []
  const server = net.createServer((socket) => {
    sockets.push(socket)
    const splitter = new KafkaFrameSplitter()
    socket.on('error', () => {})
    socket.on('data', (chunk: Buffer) => {
      for (const frame of splitter.push(chunk)) {
        const body = new KafkaReader(frame)
        const header = readRequestHeader(body, (key, version) =>
          key === ApiVersionsApi.apiKey
            ? ApiVersionsApi.requestHeaderVersion(version)
            : FetchApi.requestHeaderVersion(version),
        )
        onRequest({ header, body, socket })
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(async () => {
    for (const s of sockets) s.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { port: (server.address() as net.AddressInfo).port, sockets }
}

function answerApiVersions(req: Received, errorCode = 0): void {
  const w = new KafkaWriter()
  writeResponseHeader(w, ApiVersionsApi.responseHeaderVersion(req.header.apiVersion), req.header.correlationId)
  ApiVersionsApi.writeResponse(w, req.header.apiVersion, {
    errorCode,
    apiKeys: [{ apiKey: 1, minVersion: 4, maxVersion: 15 }],
  })
  req.socket.write(Buffer.concat(w.toFrame()))
}

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function connect(port: number): Promise<KafkaClientConnection> {
  const c = await KafkaClientConnection.connect({ host: '127.0.0.1', port, clientId: 'test-client' })
  cleanups.push(() => c.close())
  return c
}

async function rejection(p: Promise<unknown>): Promise<SluiceError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(SluiceError)
  return err as SluiceError
}

describe('KafkaClientConnection', () => {
  it('sends the request header and body, and resolves with the decoded answer', async () => {
    const seen: Received[] = []
    const { port } = await tinyServer((req) => {
      seen.push(req)
      answerApiVersions(req)
    })
    const c = await connect(port)
    const res = await c.request(ApiVersionsApi, 3, { clientSoftwareName: 'sluice', clientSoftwareVersion: '1' })
    expect(res.errorCode).toBe(0)
    expect(res.apiKeys).toEqual([{ apiKey: 1, minVersion: 4, maxVersion: 15 }])
    expect(seen).toHaveLength(1)
    expect(seen[0]!.header).toMatchObject({ apiKey: 18, apiVersion: 3, clientId: 'test-client' })
    expect(ApiVersionsApi.readRequest(seen[0]!.body, 3)).toEqual({
      clientSoftwareName: 'sluice',
      clientSoftwareVersion: '1',
    })
    expect(c.inFlightCount).toBe(0)
  })

  it('matches answers to requests by correlation id, whatever their order', async () => {
    const held: Received[] = []
    const { port } = await tinyServer((req) => {
      held.push(req)
      if (held.length === 2) {
        answerApiVersions(held[1]!, 35) // the second request first
        answerApiVersions(held[0]!, 0)
      }
    })
    const c = await connect(port)
    const first = c.request(ApiVersionsApi, 3, {})
    const second = c.request(ApiVersionsApi, 3, {})
    expect(c.inFlightCount).toBe(2)
    expect((await first).errorCode).toBe(0)
    expect((await second).errorCode).toBe(35)
    expect(held[0]!.header.correlationId).not.toBe(held[1]!.header.correlationId)
  })

  it('carries a Fetch v15 replica state (the follower id and broker epoch) to the server', async () => {
    let replicaState: unknown
    const { port } = await tinyServer((req) => {
      replicaState = FetchApi.readRequest(req.body, req.header.apiVersion).replicaState
      const w = new KafkaWriter()
      writeResponseHeader(w, FetchApi.responseHeaderVersion(15), req.header.correlationId)
      FetchApi.writeResponse(w, 15, { sessionId: 0, responses: [] })
      req.socket.write(Buffer.concat(w.toFrame()))
    })
    const c = await connect(port)
    const res = await c.request(FetchApi, 15, {
      replicaState: { replicaId: 2, replicaEpoch: 41n },
      maxWaitMs: 0,
      minBytes: 1,
      topics: [],
    })
    expect(res.errorCode).toBe(0)
    expect(replicaState).toEqual({ replicaId: 2, replicaEpoch: 41n })
  })

  it("keeps an answer's bytes intact across later reads, and decodes answers split or joined across reads", async () => {
    // Answers are read into one reused buffer: an answer decoded earlier must not see the bytes
    // of a later read. The second answer is larger than one read, so it spans several.
    const held: Received[] = []
    const fetchAnswer = (req: Received, fill: number, size: number): Buffer => {
      const w = new KafkaWriter()
      writeResponseHeader(w, FetchApi.responseHeaderVersion(12), req.header.correlationId)
      FetchApi.writeResponse(w, 12, {
        sessionId: 0,
        responses: [
          {
            topic: 't',
            partitions: [{ partitionIndex: 0, errorCode: 0, highWatermark: 1n, records: Buffer.alloc(size, fill) }],
          },
        ],
      })
      return Buffer.concat(w.toFrame())
    }
    const { port } = await tinyServer((req) => {
      held.push(req)
      if (held.length === 1) req.socket.write(fetchAnswer(req, 0x11, 100))
      if (held.length === 3) {
        // two answers in one write: one of 200 KiB, then a small one
        req.socket.write(Buffer.concat([fetchAnswer(held[1]!, 0x22, 200 * 1024), fetchAnswer(held[2]!, 0x33, 10)]))
      }
    })
    const c = await connect(port)
    const ask = { maxWaitMs: 0, minBytes: 1, topics: [] }
    const first = await c.request(FetchApi, 12, ask)
    const firstRecords = first.responses[0]!.partitions[0]!.records!
    const [second, third] = await Promise.all([c.request(FetchApi, 12, ask), c.request(FetchApi, 12, ask)])
    expect(firstRecords.equals(Buffer.alloc(100, 0x11))).toBe(true)
    expect(second.responses[0]!.partitions[0]!.records!.equals(Buffer.alloc(200 * 1024, 0x22))).toBe(true)
    expect(third.responses[0]!.partitions[0]!.records!.equals(Buffer.alloc(10, 0x33))).toBe(true)
    expect(c.inFlightCount).toBe(0)
  })

  it('fails requests in flight, and later ones, with NETWORK_EXCEPTION when the server closes', async () => {
    const { port } = await tinyServer((req) => req.socket.destroy())
    const c = await connect(port)
    const err = await rejection(c.request(ApiVersionsApi, 3, {}))
    expect(err.code).toBe('NETWORK_EXCEPTION')
    expect((await c.closed).code).toBe('NETWORK_EXCEPTION')
    expect(c.isClosed).toBe(true)
    expect((await rejection(c.request(ApiVersionsApi, 3, {}))).code).toBe('NETWORK_EXCEPTION')
  })

  it('times a request out with REQUEST_TIMED_OUT and closes the connection, failing the others', async () => {
    const { port } = await tinyServer(() => {}) // never answers
    const c = await connect(port)
    const other = c.request(ApiVersionsApi, 3, {})
    const timed = c.request(ApiVersionsApi, 3, {}, { timeoutMs: 50 })
    expect((await rejection(timed)).code).toBe('REQUEST_TIMED_OUT')
    expect((await rejection(other)).code).toBe('NETWORK_EXCEPTION')
    expect(c.isClosed).toBe(true)
  })

  it('closes the connection with INVALID_REQUEST on an answer that matches no request or does not decode', async () => {
    const stray = await tinyServer((req) => {
      const w = new KafkaWriter()
      writeResponseHeader(w, 0, req.header.correlationId + 1000)
      req.socket.write(Buffer.concat(w.toFrame()))
    })
    const c1 = await connect(stray.port)
    expect((await rejection(c1.request(ApiVersionsApi, 3, {}))).code).toBe('INVALID_REQUEST')
    expect(c1.isClosed).toBe(true)

    const truncated = await tinyServer((req) => {
      const w = new KafkaWriter()
      writeResponseHeader(w, 0, req.header.correlationId)
      w.int16(0) // the error code, then nothing of the api key array
      req.socket.write(Buffer.concat(w.toFrame()))
    })
    const c2 = await connect(truncated.port)
    expect((await rejection(c2.request(ApiVersionsApi, 3, {}))).code).toBe('INVALID_REQUEST')
    expect(c2.isClosed).toBe(true)
  })

  it('refuses a version outside the schema without sending anything', async () => {
    let requests = 0
    const { port } = await tinyServer(() => requests++)
    const c = await connect(port)
    expect((await rejection(c.request(FetchApi, 99, { maxWaitMs: 0, minBytes: 1 }))).code).toBe('UNSUPPORTED_VERSION')
    expect(c.isClosed).toBe(false)
    expect(c.inFlightCount).toBe(0)
    expect(requests).toBe(0)
  })

  it('fails requests in flight when the client closes, and a refused connect with NETWORK_EXCEPTION', async () => {
    const { port } = await tinyServer(() => {})
    const c = await connect(port)
    const pending = c.request(ApiVersionsApi, 3, {})
    c.close()
    expect((await rejection(pending)).code).toBe('NETWORK_EXCEPTION')

    // A port nothing listens on: take one and close it again.
    const probe = net.createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const freePort = (probe.address() as net.AddressInfo).port
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const refused = await rejection(
      KafkaClientConnection.connect({ host: '127.0.0.1', port: freePort, clientId: null }),
    )
    expect(refused.code).toBe('NETWORK_EXCEPTION')
  })
})
