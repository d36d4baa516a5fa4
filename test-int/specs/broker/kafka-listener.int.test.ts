/**
 * The broker's Kafka listener with a real broker and metadata service in this process, spoken
 * to over real sockets with hand-built frames: ApiVersions at every supported version,
 * pipelining, Kafka's answer to a too-new ApiVersions, hostile frames that must close only their
 * own connection, and the Kafka endpoint's way through registration into the metadata cache.
 */
import { describe, expect, it } from 'vitest'
import { errorId, kafka, type wire } from '@sluice/protocol'
import { brokerInternals } from '@sluice/broker/internal'
import { startTestCluster, unaryCall } from '../../src/broker/harness.js'
import { KafkaTestSocket, requestFrame } from '../../src/broker/kafka-socket.js'

const API_VERSIONS = 18

interface ApiVersionsAnswer {
  correlationId: number
  errorCode: number
  apis: { apiKey: number; minVersion: number; maxVersion: number }[]
  throttleTimeMs: number | undefined
}

/** ApiVersions answer, read by hand: header v0 at every version (KIP-511), compact from v3. */
function readApiVersions(frame: Buffer, version: number): ApiVersionsAnswer {
  const r = new kafka.KafkaReader(frame)
  const correlationId = r.int32()
  const errorCode = r.int16()
  const flexible = version >= 3
  const item = (x: kafka.KafkaReader) => {
    const v = { apiKey: x.int16(), minVersion: x.int16(), maxVersion: x.int16() }
    if (flexible) expect(x.taggedFields(true).size).toBe(0)
    return v
  }
  const apis = (flexible ? r.compactArray(item, version) : r.array(item, version)) ?? []
  const throttleTimeMs = version >= 1 ? r.int32() : undefined
  // No features: the tagged section (supported/finalized features) stays empty.
  if (flexible) expect(r.taggedFields(true).size).toBe(0)
  expect(r.remaining, 'bytes after the answer').toBe(0)
  return { correlationId, errorCode, apis, throttleTimeMs }
}

/** ApiVersions request; v3+ carries the client software name and version (what kcat sends). */
function apiVersionsRequest(version: number, correlationId: number, software = ['librdkafka', '2.3.0']): Buffer {
  return requestFrame({ apiKey: API_VERSIONS, apiVersion: version, correlationId }, version >= 3 ? 2 : 1, (w) => {
    if (version >= 3) w.compactString(software[0]!).compactString(software[1]!).taggedFields()
  })
}

async function kafkaBroker() {
  const cluster = await startTestCluster(1, { kafkaPort: 0 })
  const broker = cluster.brokers[0]!
  expect(broker.kafkaPort).toBeGreaterThan(0)
  return { cluster, broker, port: broker.kafkaPort! }
}

describe('the Kafka listener', () => {
  it('answers ApiVersions v0-v3, pipelined requests in order, and a too-new ApiVersions in v0', async () => {
    const { port } = await kafkaBroker()
    const socket = await KafkaTestSocket.connect(port)
    for (const version of [0, 1, 2, 3]) {
      socket.write(apiVersionsRequest(version, 100 + version))
      const answer = readApiVersions(await socket.next(), version)
      expect(answer.correlationId).toBe(100 + version)
      expect(answer.errorCode).toBe(0)
      expect(answer.apis).toContainEqual({ apiKey: API_VERSIONS, minVersion: 0, maxVersion: 3 })
      // One entry per api key, ascending, each a non-empty range.
      const keys = answer.apis.map((a) => a.apiKey)
      expect(keys).toEqual([...new Set(keys)].sort((a, b) => a - b))
      for (const a of answer.apis) expect(a.minVersion).toBeLessThanOrEqual(a.maxVersion)
      expect(answer.throttleTimeMs).toBe(version >= 1 ? 0 : undefined)
    }

    // Fifty requests in one write, of every version: fifty answers, in request order.
    const versions = Array.from({ length: 50 }, (_, i) => i % 4)
    socket.write(...versions.map((v, i) => apiVersionsRequest(v, 5000 + i)))
    for (const [i, v] of versions.entries()) {
      expect(readApiVersions(await socket.next(), v).correlationId).toBe(5000 + i)
    }

    // A version from the future: Kafka's v0 answer with UNSUPPORTED_VERSION and the supported
    // list, so the client can retry at a version both sides know. The connection stays open.
    socket.write(apiVersionsRequest(9, 77))
    const tooNew = readApiVersions(await socket.next(), 0)
    expect(tooNew).toMatchObject({ correlationId: 77, errorCode: errorId('UNSUPPORTED_VERSION') })
    expect(tooNew.apis).toContainEqual({ apiKey: API_VERSIONS, minVersion: 0, maxVersion: 3 })

    // A client software name outside KIP-511's characters: INVALID_REQUEST, as Kafka answers.
    socket.write(apiVersionsRequest(3, 78, ['bad name!', '1.0']))
    expect(readApiVersions(await socket.next(), 3)).toMatchObject({
      correlationId: 78,
      errorCode: errorId('INVALID_REQUEST'),
      apis: [],
    })
    socket.write(apiVersionsRequest(1, 79))
    expect(readApiVersions(await socket.next(), 1).correlationId).toBe(79)
    expect(socket.isClosed).toBe(false)
  })

  it('closes a connection that sends a bad frame, and only that one', async () => {
    const { port } = await kafkaBroker()
    const sizePrefix = (n: number): Buffer => {
      const b = Buffer.alloc(4)
      b.writeInt32BE(n, 0)
      return b
    }
    const truncatedString = requestFrame({ apiKey: API_VERSIONS, apiVersion: 3, correlationId: 3 }, 2, (w) =>
      w.uvarint(40).int8(65),
    )
    const hostile: Array<[string, Buffer]> = [
      ['an unknown api key', requestFrame({ apiKey: 1234, apiVersion: 0, correlationId: 1 }, 1)],
      ['a frame of 200 MiB (over the 100 MiB limit)', sizePrefix(200 * 1024 * 1024)],
      ['a negative size', sizePrefix(-5)],
      ['a header cut short', Buffer.concat([sizePrefix(5), Buffer.from([0, 18, 0, 0, 0])])],
      [
        'a client id longer than the frame',
        Buffer.concat([sizePrefix(10), Buffer.from([0, 18, 0, 1, 0, 0, 0, 2, 0, 50])]),
      ],
      ['a body whose string runs past the frame', truncatedString],
    ]
    const survivor = await KafkaTestSocket.connect(port)
    for (const [what, bytes] of hostile) {
      const victim = await KafkaTestSocket.connect(port)
      // A valid request first: it is answered, then the bad frame closes the connection.
      victim.write(apiVersionsRequest(2, 1), bytes)
      expect(readApiVersions(await victim.next(), 2).correlationId, what).toBe(1)
      await victim.expectClosed().catch((err: Error) => {
        throw new Error(`${what}: ${err.message}`)
      })
      survivor.write(apiVersionsRequest(1, 42))
      expect(readApiVersions(await survivor.next(), 1).correlationId, `after ${what}`).toBe(42)
    }
  })

  it('survives 500 mutated frames (seeded) and serves on', async () => {
    const { port } = await kafkaBroker()
    let seed = 15
    const random = (n: number): number => {
      // A small LCG: reproducible without a dependency.
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const valid = [0, 1, 2, 3].map((v) => apiVersionsRequest(v, 9))
    let answered = 0
    let closed = 0
    for (let round = 0; round < 10; round++) {
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          const frame = Buffer.from(valid[random(valid.length)]!)
          for (let k = 1 + random(4); k > 0; k--) frame[random(frame.length)] = random(256)
          const s = await KafkaTestSocket.connect(port)
          s.write(frame.subarray(0, frame.length - random(3)))
          // Whatever the broker does with it (answer, close, wait for more bytes), it must not crash.
          const outcome = await Promise.race([
            s.next(300).then(
              () => 'answered',
              () => 'no answer',
            ),
            s.closed.then(() => 'closed'),
          ])
          if (outcome === 'answered') answered += 1
          if (outcome === 'closed' || s.isClosed) closed += 1
          s.destroy()
        }),
      )
    }
    // Both outcomes happen: the mutations are neither all harmless nor all fatal.
    expect(answered).toBeGreaterThan(0)
    expect(closed).toBeGreaterThan(0)
    const after = await KafkaTestSocket.connect(port)
    after.write(apiVersionsRequest(3, 1))
    expect(readApiVersions(await after.next(), 3).errorCode).toBe(0)
  })

  it('registers the Kafka endpoint with the metadata service, and the cache hands it back', async () => {
    const { cluster, broker, port } = await kafkaBroker()
    expect(broker.kafkaEndpoint).toBe(`127.0.0.1:${port}`)
    const described = await unaryCall<wire.DescribeClusterRequest, wire.DescribeClusterResponse__Output>(
      (r, cb) => cluster.admin.DescribeCluster(r, cb),
      {},
    )
    expect(described.brokers.find((b) => b.broker_id === 1)).toMatchObject({
      kafka_host: '127.0.0.1',
      kafka_port: port,
    })
    const cache = brokerInternals(broker)!.context.cache
    expect(cache.kafkaEndpoint(1)).toEqual({ host: '127.0.0.1', port })

    // A broker without a Kafka listener registers none; everyone else sees that as no endpoint.
    const plain = await startTestCluster(1)
    expect(plain.brokers[0]!.kafkaPort).toBeUndefined()
    expect(brokerInternals(plain.brokers[0]!)!.context.cache.kafkaEndpoint(1)).toBeUndefined()
  })

  it('advertises the configured Kafka host and port instead of the bound ones', async () => {
    const cluster = await startTestCluster(1, {
      kafkaPort: 0,
      advertisedKafkaHost: 'kafka.example',
      advertisedKafkaPort: 19092,
    })
    const broker = cluster.brokers[0]!
    expect(broker.kafkaEndpoint).toBe('kafka.example:19092')
    expect(broker.kafkaPort).not.toBe(19092)
    expect(brokerInternals(broker)!.context.cache.kafkaEndpoint(1)).toEqual({ host: 'kafka.example', port: 19092 })
  })

  it('closes its connections when the broker stops', async () => {
    const { broker, port } = await kafkaBroker()
    const socket = await KafkaTestSocket.connect(port)
    socket.write(apiVersionsRequest(0, 1))
    await socket.next()
    await broker.stop()
    await socket.expectClosed()
  })
})
