/**
 * The far end of the plain TCP probes: a server on 127.0.0.1 (Nagle off, as the broker's Kafka
 * listener and every Sluice socket) that echoes length-framed messages with its stamps filled
 * in, relays them to the next process of a chain, or, last in a chain, records their one-way
 * time. The receive stamp is the first line of the 'data' handler: the first JS that runs in
 * this process once the bytes arrived.
 */
import net from 'node:net'
import {
  BODY_ORIGIN_NS,
  BODY_PEER_RECEIVED_NS,
  BODY_PEER_SENT_NS,
  bodyMeasured,
  readStamp,
  writeStamp,
} from './probe-body.js'
import { msBetween } from './probe-stats.js'
import { FrameReader, frame } from './frame-reader.js'
import { SinkRecorder, type Peer, type PeerConfig } from './peer-config.js'

export async function startTcpPeer(config: Extract<PeerConfig, { role: 'tcp-echo' | 'tcp-relay' }>): Promise<Peer> {
  const recorder = new SinkRecorder()
  const next = config.role === 'tcp-relay' && config.next !== undefined ? await connectTcp(config.next) : undefined
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
    socket.setNoDelay(true)
    socket.on('error', () => socket.destroy())
    const reader = new FrameReader()
    socket.on('data', (chunk: Buffer) => {
      const receivedNs = process.hrtime.bigint()
      reader.push(chunk, (body) => {
        if (config.role === 'tcp-echo') {
          writeStamp(body, BODY_PEER_RECEIVED_NS, receivedNs)
          writeStamp(body, BODY_PEER_SENT_NS, process.hrtime.bigint())
          socket.write(frame(body))
        } else if (next !== undefined) {
          next.write(frame(body))
        } else if (bodyMeasured(body)) {
          recorder.record(msBetween(readStamp(body, BODY_ORIGIN_NS), receivedNs))
        }
      })
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const spin = config.role === 'tcp-relay' && config.spin === true ? startSpinning() : undefined
  const address = server.address()
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    report: () => recorder.report(),
    received: () => recorder.count(),
    reset: () => recorder.reset(),
    close: async () => {
      spin?.stop()
      next?.destroy()
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** A connected socket to 127.0.0.1:`port`, Nagle off. */
export function connectTcp(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.setNoDelay(true)
    socket.once('connect', () => {
      socket.off('error', reject)
      socket.on('error', () => socket.destroy())
      resolve(socket)
    })
    socket.once('error', reject)
  })
}

/**
 * Keeps the event loop turning (setImmediate after setImmediate), so libuv polls without
 * blocking and the process never sleeps: a message then finds it running. Costs a core while on.
 */
function startSpinning(): { stop(): void } {
  let on = true
  const turn = (): void => {
    if (on) setImmediate(turn)
  }
  setImmediate(turn)
  return {
    stop: () => {
      on = false
    },
  }
}
