/**
 * A stand-in for a leader's Kafka listener in unit tests: it answers ApiVersions with the given
 * Fetch version range, and every Fetch with an empty answer.
 */
import net from 'node:net'
import { kafka } from '@sluice/protocol'

export async function fakeLeader(
  fetchVersions: [number, number],
): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
    const splitter = new kafka.KafkaFrameSplitter()
    socket.on('data', (chunk: Buffer) => {
      for (const frame of splitter.push(chunk)) {
        const r = new kafka.KafkaReader(frame)
        const header = kafka.readRequestHeader(r, (key, v) =>
          key === kafka.ApiVersionsApi.apiKey
            ? kafka.ApiVersionsApi.requestHeaderVersion(v)
            : kafka.FetchApi.requestHeaderVersion(v),
        )
        const w = new kafka.KafkaWriter()
        if (header.apiKey === kafka.ApiVersionsApi.apiKey) {
          kafka.writeResponseHeader(w, 0, header.correlationId)
          kafka.ApiVersionsApi.writeResponse(w, header.apiVersion, {
            errorCode: 0,
            apiKeys: [{ apiKey: 1, minVersion: fetchVersions[0], maxVersion: fetchVersions[1] }],
          })
        } else {
          kafka.writeResponseHeader(w, kafka.FetchApi.responseHeaderVersion(header.apiVersion), header.correlationId)
          kafka.FetchApi.writeResponse(w, header.apiVersion, { sessionId: 0, responses: [] })
        }
        socket.write(Buffer.concat(w.toFrame()))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
