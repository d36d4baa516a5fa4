/**
 * Probe: one-way and round-trip latency between two Node processes over a grpc-js bidi
 * stream, made as Sluice makes its own (GRPC_CHANNEL_OPTIONS on this side, the broker's server
 * setup on the peer, grpc-peer.ts), carrying protobuf messages of the real Broker service:
 * - 'produce': a ProduceRequest whose one partition carries `bytes` of records, answered by a
 *   small ProduceResponse (the producer -> leader -> producer legs of a round);
 * - 'fetch': a follower's small FetchRequest, answered by a FetchResponse carrying `bytes` of
 *   records (the leader -> follower and leader -> consumer legs).
 * Every stamp is taken at the first JS line that sees a decoded message (a 'data' handler) or
 * just before call.write, as the broker's trace stamps are, so encode and decode are inside
 * the legs. The peer's CPU per message (decode, answer, encode, HTTP/2, its wake-ups) is
 * reported with its turnaround: the cost per request the broker pays in grpc-js alone.
 * Messages are built before the series.
 */
import type * as grpc from '@grpc/grpc-js'
import type { wire } from '@sluice/protocol'
import { AnswerTracker, seriesTimeoutMs } from './answer-tracker.js'
import { brokerClient, PROBE_TOPIC } from './grpc-peer.js'
import { type Pace, runPaced, saturated } from './paced-loop.js'
import { newBody } from './probe-body.js'
import type { ProbeResult } from './probe-result.js'
import { msBetween, sampleStats } from './probe-stats.js'
import { type PeerPlacement, launchPeer } from './peer-launch.js'

type Kind = 'produce' | 'fetch'

export async function probeGrpc(
  kind: Kind,
  paces: readonly Pace[],
  sizes: readonly number[],
  placement: PeerPlacement,
): Promise<ProbeResult[]> {
  const results: ProbeResult[] = []
  for (const bytes of sizes) {
    const peer = await launchPeer({ role: 'grpc-echo', answerBytes: kind === 'fetch' ? bytes : 0 }, placement)
    const client = await brokerClient(peer.port)
    try {
      for (const pace of paces) {
        await peer.reset()
        const s = kind === 'produce' ? await produceSeries(client, pace, bytes) : await fetchSeries(client, pace)
        const peerCpuUs = (await peer.report()).cpuUs
        const base = {
          probe: kind === 'produce' ? ('grpc-produce' as const) : ('grpc-fetch' as const),
          variant: 'grpc-js bidi',
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
    } finally {
      client.close()
      await peer.close()
    }
  }
  return results
}

interface Legs {
  request: number[]
  answer: number[]
  roundTrip: number[]
  turnaround: number[]
  /** From the last send to the last answer. */
  drainMs: number
}

/** Runs one paced series on a fresh stream; `stamps` reads the peer's two stamps off an answer. */
async function runSeries<Req, Res extends { correlation_id: string }>(
  call: grpc.ClientDuplexStream<Req, Res>,
  pace: Pace,
  requests: Req[],
  stamps: (res: Res) => { received: bigint; sent: bigint },
  what: string,
): Promise<Legs> {
  const total = pace.warmup + pace.count
  const sentNs = new BigInt64Array(total)
  const out: Omit<Legs, 'drainMs'> = { request: [], answer: [], roundTrip: [], turnaround: [] }
  const tracker = new AnswerTracker(pace.count, seriesTimeoutMs(pace.ratePerSec, total), what)
  let failure: Error | undefined
  call.on('error', (err) => {
    failure = err
  })
  call.on('data', (res: Res) => {
    const receivedNs = process.hrtime.bigint()
    const seq = Number(res.correlation_id)
    if (seq < pace.warmup) return
    const sent = sentNs[seq]!
    const peer = stamps(res)
    out.request.push(msBetween(sent, peer.received))
    out.answer.push(msBetween(peer.sent, receivedNs))
    out.roundTrip.push(msBetween(sent, receivedNs))
    out.turnaround.push(msBetween(peer.received, peer.sent))
    tracker.answered()
  })
  try {
    await runPaced(pace, (seq) => {
      if (failure !== undefined) throw failure
      sentNs[seq] = process.hrtime.bigint()
      call.write(requests[seq]!)
      return undefined
    })
    const lastSentMs = performance.now()
    await tracker.done
    return { ...out, drainMs: performance.now() - lastSentMs }
  } finally {
    call.end()
  }
}

function produceSeries(client: wire.BrokerClient, pace: Pace, bytes: number): Promise<Legs> {
  const total = pace.warmup + pace.count
  const requests: wire.ProduceRequest[] = Array.from({ length: total }, (_, seq) => ({
    correlation_id: String(seq),
    acks: -1,
    timeout_ms: 30_000,
    client_id: 'sluice-probe',
    topics: [{ topic: PROBE_TOPIC, partitions: [{ partition: 0, records: newBody(bytes, seq, seq >= pace.warmup) }] }],
  }))
  return runSeries(
    client.Produce(),
    pace,
    requests,
    (res) => {
      const p = res.topics[0]?.partitions[0]
      return { received: BigInt(p?.base_offset ?? 0), sent: BigInt(p?.log_start_offset ?? 0) }
    },
    `grpc produce probe ${bytes} B`,
  )
}

function fetchSeries(client: wire.BrokerClient, pace: Pace): Promise<Legs> {
  const total = pace.warmup + pace.count
  const requests: wire.FetchRequest[] = Array.from({ length: total }, (_, seq) => ({
    correlation_id: String(seq),
    replica_id: 2,
    max_wait_ms: 500,
    min_bytes: 1,
    max_bytes: 32 * 1024 * 1024,
    isolation_level: 0,
    client_id: 'sluice-probe',
    replica_epoch: '1',
    topics: [
      {
        topic: PROBE_TOPIC,
        partitions: [
          {
            partition: 0,
            fetch_offset: String(seq),
            current_leader_epoch: 0,
            partition_max_bytes: 4 * 1024 * 1024,
            last_fetched_epoch: 0,
            log_start_offset: '0',
          },
        ],
      },
    ],
  }))
  return runSeries(
    client.Fetch(),
    pace,
    requests,
    (res) => {
      const p = res.topics[0]?.partitions[0]
      return { received: BigInt(p?.high_watermark ?? 0), sent: BigInt(p?.log_end_offset ?? 0) }
    },
    'grpc fetch probe',
  )
}
