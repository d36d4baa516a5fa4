/**
 * The first process of a one-way series (the chain and wake-up probes): this process writes
 * paced messages that carry their origin stamp (written just before the write) to the first
 * peer, over framed TCP or a grpc-js Broker.Produce stream; the last peer records each
 * message's one-way time. Resolves with the last peer's report once every measured message
 * has reached it, and whether the chain kept up with the rate (the drain is timed by polling
 * the last peer every 20 ms, coarse but enough to tell a queue from a hop).
 */
import { pollUntil, seriesTimeoutMs } from './answer-tracker.js'
import { FRAME_HEADER_BYTES, frame } from './frame-reader.js'
import { openProduce, PROBE_TOPIC } from './grpc-peer.js'
import { type Pace, runPaced, saturated } from './paced-loop.js'
import { BODY_ORIGIN_NS, newBody, writeStamp } from './probe-body.js'
import type { PeerReport } from './peer-config.js'
import type { PeerHandle } from './peer-launch.js'
import { connectTcp } from './tcp-peer.js'

export type Transport = 'tcp' | 'grpc'

export async function sendOneWay(
  transport: Transport,
  firstPort: number,
  last: PeerHandle,
  pace: Pace,
  bytes: number,
): Promise<PeerReport & { saturated: boolean; drainMs: number }> {
  const total = pace.warmup + pace.count
  await last.reset()
  const write =
    transport === 'tcp'
      ? await tcpWriter(firstPort, total, pace, bytes)
      : await grpcWriter(firstPort, total, pace, bytes)
  try {
    await runPaced(pace, (seq) => {
      write.send(seq)
      return undefined
    })
    const lastSentMs = performance.now()
    await pollUntil(
      async () => (await last.received()) >= pace.count,
      seriesTimeoutMs(pace.ratePerSec, total),
      `${transport} one-way series`,
    )
    const drainMs = performance.now() - lastSentMs
    return { ...(await last.report()), saturated: saturated(pace, drainMs), drainMs: Math.round(drainMs) }
  } finally {
    write.close()
  }
}

interface Writer {
  send(seq: number): void
  close(): void
}

async function tcpWriter(port: number, total: number, pace: Pace, bytes: number): Promise<Writer> {
  const socket = await connectTcp(port)
  const frames = Array.from({ length: total }, (_, seq) =>
    frame(newBody(bytes - FRAME_HEADER_BYTES, seq, seq >= pace.warmup)),
  )
  return {
    send: (seq) => {
      const f = frames[seq]!
      writeStamp(f, FRAME_HEADER_BYTES + BODY_ORIGIN_NS, process.hrtime.bigint())
      socket.write(f)
    },
    close: () => socket.destroy(),
  }
}

async function grpcWriter(port: number, total: number, pace: Pace, bytes: number): Promise<Writer> {
  const stream = await openProduce(port)
  const bodies = Array.from({ length: total }, (_, seq) => newBody(bytes, seq, seq >= pace.warmup))
  return {
    send: (seq) => {
      const body = bodies[seq]!
      writeStamp(body, BODY_ORIGIN_NS, process.hrtime.bigint())
      stream.call.write({
        correlation_id: String(seq),
        acks: -1,
        timeout_ms: 30_000,
        client_id: 'sluice-probe',
        topics: [{ topic: PROBE_TOPIC, partitions: [{ partition: 0, records: body }] }],
      })
    },
    close: () => stream.close(),
  }
}
