/**
 * Probe: one-way and round-trip latency between two Node processes over a plain TCP socket
 * with length framing and Nagle off (setNoDelay), the floor of any hop between two processes
 * on this machine, whatever protocol rides on it. This process writes a frame (stamping just
 * before socket.write), the peer (tcp-peer.ts, 'tcp-echo') stamps at its first JS line and
 * again before writing the frame back, and this process stamps at the first JS line of its
 * 'data' handler. Legs: request (here -> peer), answer (peer -> here), round trip, and the
 * peer's own turnaround, with the peer's CPU per message (its wake-ups included). Frames are
 * built before the series so the loop only stamps and writes.
 */
import type net from 'node:net'
import { AnswerTracker, seriesTimeoutMs } from './answer-tracker.js'
import { FRAME_HEADER_BYTES, FrameReader, frame } from './frame-reader.js'
import type { Pace } from './paced-loop.js'
import { runPaced, saturated } from './paced-loop.js'
import { BODY_PEER_RECEIVED_NS, BODY_PEER_SENT_NS, bodyMeasured, bodySeq, newBody, readStamp } from './probe-body.js'
import type { ProbeResult } from './probe-result.js'
import { msBetween, sampleStats } from './probe-stats.js'
import { type PeerPlacement, launchPeer } from './peer-launch.js'
import { connectTcp } from './tcp-peer.js'

export interface TcpProbeOutcome {
  readonly results: ProbeResult[]
  /** The smallest one-way times seen (µs), for the shared-clock check. */
  readonly minOneWayRequestUs: number
  readonly minOneWayAnswerUs: number
}

export async function probeTcp(
  paces: readonly Pace[],
  sizes: readonly number[],
  placement: PeerPlacement,
): Promise<TcpProbeOutcome> {
  const peer = await launchPeer({ role: 'tcp-echo' }, placement)
  const socket = await connectTcp(peer.port)
  const results: ProbeResult[] = []
  let minReq = Number.POSITIVE_INFINITY
  let minAns = Number.POSITIVE_INFINITY
  try {
    for (const bytes of sizes) {
      for (const pace of paces) {
        await peer.reset()
        const s = await series(socket, pace, bytes)
        const peerCpuUs = (await peer.report()).cpuUs
        minReq = Math.min(minReq, ...s.request)
        minAns = Math.min(minAns, ...s.answer)
        const base = {
          probe: 'tcp' as const,
          variant: 'framed TCP',
          ratePerSec: pace.ratePerSec,
          bytes,
          drainMs: Math.round(s.drainMs),
          ...(saturated(pace, s.drainMs) ? { saturated: true } : {}),
        }
        results.push(
          { ...base, leg: 'one-way request', ...sampleStats(s.request) },
          { ...base, leg: 'one-way answer', ...sampleStats(s.answer) },
          { ...base, leg: 'round trip', ...sampleStats(s.roundTrip) },
          {
            ...base,
            leg: 'peer turnaround',
            ...sampleStats(s.turnaround),
            cpuUsPerMessage: Math.round(peerCpuUs / (pace.warmup + pace.count)),
          },
        )
      }
    }
  } finally {
    socket.destroy()
    await peer.close()
  }
  return { results, minOneWayRequestUs: Math.round(minReq * 1000), minOneWayAnswerUs: Math.round(minAns * 1000) }
}

async function series(
  socket: net.Socket,
  pace: Pace,
  bytes: number,
): Promise<{ request: number[]; answer: number[]; roundTrip: number[]; turnaround: number[]; drainMs: number }> {
  const total = pace.warmup + pace.count
  const frames = Array.from({ length: total }, (_, seq) =>
    frame(newBody(bytes - FRAME_HEADER_BYTES, seq, seq >= pace.warmup)),
  )
  const sentNs = new BigInt64Array(total)
  const out = { request: [] as number[], answer: [] as number[], roundTrip: [] as number[], turnaround: [] as number[] }
  const tracker = new AnswerTracker(pace.count, seriesTimeoutMs(pace.ratePerSec, total), `tcp probe ${bytes} B`)
  const reader = new FrameReader()
  const onData = (chunk: Buffer): void => {
    const receivedNs = process.hrtime.bigint()
    reader.push(chunk, (body) => {
      if (!bodyMeasured(body)) return
      const sent = sentNs[bodySeq(body)]!
      const peerReceived = readStamp(body, BODY_PEER_RECEIVED_NS)
      const peerSent = readStamp(body, BODY_PEER_SENT_NS)
      out.request.push(msBetween(sent, peerReceived))
      out.answer.push(msBetween(peerSent, receivedNs))
      out.roundTrip.push(msBetween(sent, receivedNs))
      out.turnaround.push(msBetween(peerReceived, peerSent))
      tracker.answered()
    })
  }
  socket.on('data', onData)
  try {
    await runPaced(pace, (seq) => {
      sentNs[seq] = process.hrtime.bigint()
      socket.write(frames[seq]!)
      return undefined
    })
    const lastSentMs = performance.now()
    await tracker.done
    return { ...out, drainMs: performance.now() - lastSentMs }
  } finally {
    socket.off('data', onData)
  }
}
