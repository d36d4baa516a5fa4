/**
 * Probe: a message relayed through N processes in sequence (N = 2..5, so N - 1 hops), over
 * framed TCP or over grpc-js Broker.Produce streams, from this process's write to the first JS
 * line of the last process. It shows the floor of a multi-hop round: an acks=all round crosses
 * four such hops between five process visits (producer -> leader -> follower -> leader ->
 * producer or consumer), each hop waking the next process. Each relay decodes the message and
 * writes it on (a relay over gRPC re-encodes it), as a broker would, but does no other work.
 * Every hop here is a client-to-server write; in a real round half of them are answers on the
 * way back, which cost about the same (grpc-probe.ts measures both directions).
 */
import type { Pace } from './paced-loop.js'
import type { PeerConfig } from './peer-config.js'
import { closeAll, launchAll, type PeerPlacement } from './peer-launch.js'
import { chainVariant, type ProbeResult } from './probe-result.js'
import { sampleStats } from './probe-stats.js'
import { sendOneWay, type Transport } from './origin-sender.js'

export const CHAIN_LENGTHS = [2, 3, 4, 5]
export const CHAIN_BYTES = 100

export async function probeChains(
  paces: readonly Pace[],
  placement: PeerPlacement,
  lengths: readonly number[] = CHAIN_LENGTHS,
): Promise<ProbeResult[]> {
  const results: ProbeResult[] = []
  for (const transport of ['tcp', 'grpc'] as const) {
    for (const n of lengths) {
      // Built from the last process back, so each relay knows where to send.
      const peers = await launchAll(
        Array.from(
          { length: n - 1 },
          (_, i) =>
            (ports: number[]): PeerConfig =>
              relay(transport, ports[i - 1]),
        ),
        placement,
      )
      try {
        for (const pace of paces) {
          const report = await sendOneWay(transport, peers[peers.length - 1]!.port, peers[0]!, pace, CHAIN_BYTES)
          results.push({
            probe: 'chain',
            variant: chainVariant(transport, n),
            leg: 'one-way',
            ratePerSec: pace.ratePerSec,
            bytes: CHAIN_BYTES,
            ...sampleStats(report.samplesMs),
            drainMs: report.drainMs,
            ...(report.saturated ? { saturated: true } : {}),
          })
        }
      } finally {
        await closeAll(peers)
      }
    }
  }
  return results
}

function relay(transport: Transport, next: number | undefined): PeerConfig {
  const to = next === undefined ? {} : { next }
  return transport === 'tcp' ? { role: 'tcp-relay', ...to } : { role: 'grpc-relay', ...to }
}
