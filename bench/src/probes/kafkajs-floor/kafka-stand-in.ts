/**
 * A Kafka-protocol stand-in for the kafkajs floor probe (kafkajs-floor.ts): it answers
 * ApiVersions, Metadata (one broker, itself, leading every partition of any topic asked for)
 * and Produce (every batch accepted at once, offsets counted per partition) and nothing else,
 * so a kafkajs producer's acknowledgement against it is kafkajs's own time plus one loopback
 * round trip and this process's wake-up. It decodes with the generated codecs, as Sluice's
 * listener does, but stores nothing.
 *
 * Run as `node kafka-stand-in.js <partitions>`: prints `PORT <n>` and serves until its stdin
 * closes.
 */
import net from 'node:net'
import { kafka } from '@sluice/protocol'

const API_VERSIONS = 18
const METADATA = 3
const PRODUCE = 0

/** The versions answered: what kafkajs 2.2.4 asks for lies inside them. */
const APIS = [
  { apiKey: PRODUCE, minVersion: 3, maxVersion: 7 },
  { apiKey: METADATA, minVersion: 1, maxVersion: 8 },
  { apiKey: API_VERSIONS, minVersion: 0, maxVersion: 2 },
]

export interface StandIn {
  readonly port: number
  close(): Promise<void>
}

export async function startKafkaStandIn(partitions: number): Promise<StandIn> {
  const offsets = new Map<string, bigint>()
  const sockets = new Set<net.Socket>()
  let port = 0
  const answer = (frame: Buffer): Buffer[] | undefined => {
    const r = new kafka.KafkaReader(frame)
    const apiKey = frame.readInt16BE(0)
    const version = frame.readInt16BE(2)
    const w = new kafka.KafkaWriter()
    if (apiKey === API_VERSIONS) {
      const h = kafka.readRequestHeader(r, kafka.ApiVersionsApi.requestHeaderVersion(version))
      kafka.writeResponseHeader(w, 0, h.correlationId)
      kafka.ApiVersionsApi.writeResponse(w, Math.min(version, 2), { errorCode: 0, apiKeys: APIS, throttleTimeMs: 0 })
    } else if (apiKey === METADATA) {
      const h = kafka.readRequestHeader(r, kafka.MetadataApi.requestHeaderVersion(version))
      const req = kafka.MetadataApi.readRequest(r, version)
      kafka.writeResponseHeader(w, kafka.MetadataApi.responseHeaderVersion(version), h.correlationId)
      kafka.MetadataApi.writeResponse(w, version, {
        brokers: [{ nodeId: 0, host: '127.0.0.1', port }],
        clusterId: 'stand-in',
        controllerId: 0,
        topics: (req.topics ?? []).map((t) => ({
          errorCode: 0,
          name: t.name,
          partitions: Array.from({ length: partitions }, (_, p) => ({
            errorCode: 0,
            partitionIndex: p,
            leaderId: 0,
            replicaNodes: [0],
            isrNodes: [0],
          })),
        })),
      })
    } else if (apiKey === PRODUCE) {
      const h = kafka.readRequestHeader(r, kafka.ProduceApi.requestHeaderVersion(version))
      const req = kafka.ProduceApi.readRequest(r, version)
      if (req.acks === 0) return undefined
      kafka.writeResponseHeader(w, kafka.ProduceApi.responseHeaderVersion(version), h.correlationId)
      kafka.ProduceApi.writeResponse(w, version, {
        responses: req.topicData.map((t) => ({
          name: t.name,
          partitionResponses: t.partitionData.map((p) => {
            const key = `${t.name}/${p.index}`
            const base = offsets.get(key) ?? 0n
            // A v2 batch's record count is the int32 at byte 57.
            const count = p.records !== null && p.records.length >= 61 ? p.records.readInt32BE(57) : 0
            offsets.set(key, base + BigInt(count))
            return { index: p.index, errorCode: 0, baseOffset: base }
          }),
        })),
      })
    } else return undefined
    return w.toFrame()
  }
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.setNoDelay(true)
    const splitter = new kafka.KafkaFrameSplitter(kafka.DEFAULT_MAX_FRAME_BYTES)
    socket.on('data', (chunk: Buffer) => {
      try {
        splitter.pushEach(chunk, (frame) => {
          const out = answer(frame)
          if (out === undefined) return
          socket.cork()
          for (const c of out) socket.write(c)
          socket.uncork()
        })
      } catch {
        socket.destroy()
      }
    })
    socket.on('error', () => socket.destroy())
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as net.AddressInfo).port
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

const isMain = process.argv[1]?.endsWith('kafka-stand-in.js') === true
if (isMain) {
  const standIn = await startKafkaStandIn(Number(process.argv[2] ?? '6'))
  process.stdout.write(`PORT ${standIn.port}\n`)
  process.stdin.resume()
  process.stdin.on('end', () => void standIn.close().then(() => process.exit(0)))
}
