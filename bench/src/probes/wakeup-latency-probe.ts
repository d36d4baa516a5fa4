/**
 * Probe: what waking an idle process costs a hop. This process writes a 100-byte frame (stamp
 * just before socket.write); the peer (tcp-peer.ts, last in a one-process chain) stamps at the
 * first JS line of its 'data' handler. Run twice per rate: with the peer idle (its event loop
 * asleep in epoll between messages, as a broker's is at 200 records/s) and with the peer
 * spinning (an event loop that never blocks, so the message finds it running). The difference
 * of the medians is the wake-up's share of a hop; the idle peer's CPU per message is what each
 * wake-up costs the machine (BENCHMARKS.md, session 3: 0.2–0.4 ms of CPU after 5 ms asleep).
 */
import type { Pace } from './paced-loop.js'
import { launchPeer, type PeerPlacement } from './peer-launch.js'
import type { ProbeResult } from './probe-result.js'
import { sampleStats } from './probe-stats.js'
import { sendOneWay } from './origin-sender.js'

export const WAKEUP_BYTES = 100

export async function probeWakeup(paces: readonly Pace[], placement: PeerPlacement): Promise<ProbeResult[]> {
  const results: ProbeResult[] = []
  for (const spin of [false, true]) {
    const peer = await launchPeer({ role: 'tcp-relay', spin }, placement)
    try {
      for (const pace of paces) {
        const report = await sendOneWay('tcp', peer.port, peer, pace, WAKEUP_BYTES)
        const messages = pace.warmup + pace.count
        results.push({
          probe: 'wakeup',
          variant: spin ? 'receiver spinning' : 'receiver idle',
          leg: 'one-way',
          ratePerSec: pace.ratePerSec,
          bytes: WAKEUP_BYTES,
          ...sampleStats(report.samplesMs),
          drainMs: report.drainMs,
          ...(report.saturated ? { saturated: true } : {}),
          // A spinning receiver burns a core whatever arrives: its CPU says nothing per message.
          ...(spin ? {} : { cpuUsPerMessage: Math.round(report.cpuUs / messages) }),
        })
      }
    } finally {
      await peer.close()
    }
  }
  return results
}
