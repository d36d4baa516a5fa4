/**
 * `--probes`: measures the floor of every kind of hop an acks=all round is made of, on this
 * machine, at 200 and 10,000 messages/s (bounded loops, paced-loop.ts), each hop that crosses
 * processes between real separate Node processes: the shared-clock check (clock-check.ts),
 * framed TCP (tcp-probe.ts), grpc-js Produce and Fetch streams (grpc-probe.ts), a process
 * wake-up (wakeup-latency-probe.ts), page-cache file writes and reads (file-io-probe.ts), and
 * chains of 2 to 5 processes (chain-probe.ts). The anatomy report maps its hops onto these
 * results (hop-floors.ts). About two and a half minutes.
 */
import os from 'node:os'
import { probeChains } from './chain-probe.js'
import { bracketPeerClock, judgeBrackets } from './clock-check.js'
import { probeFileIo } from './file-io-probe.js'
import { probeGrpc } from './grpc-probe.js'
import { standardPaces } from './paced-loop.js'
import { launchPeer, type PeerPlacement } from './peer-launch.js'
import type { ClockCheckResult, ProbeReport, ProbeResult } from './probe-result.js'
import { formatProbeTable } from './probe-table.js'
import { probeTcp } from './tcp-probe.js'
import { probeWakeup } from './wakeup-latency-probe.js'

export const MESSAGE_SIZES = [100, 1024]

export interface ProbeOptions {
  readonly log: (line: string) => void
  /** 'process' for real figures; 'in-process' only for a test of the probe logic. */
  readonly placement?: PeerPlacement
  /** Shrinks every series (tests); 1 = the standard ~2 s at 200/s and ~1 s at 10,000/s. */
  readonly scale?: number
}

export async function runProbes(options: ProbeOptions): Promise<ProbeReport> {
  const placement = options.placement ?? 'process'
  const paces = standardPaces(options.scale ?? 1)
  const log = options.log
  const started = performance.now()
  const loadAvgBefore = os.loadavg().map((v) => Math.round(v * 100) / 100)
  const results: ProbeResult[] = []
  log('floor probes: peers are separate node processes; stamps are process.hrtime.bigint() (CLOCK_MONOTONIC)')

  const clockPeer = await launchPeer({ role: 'tcp-echo' }, placement)
  const brackets = await bracketPeerClock(clockPeer).finally(() => clockPeer.close())
  const tcp = await probeTcp(paces, MESSAGE_SIZES, placement)
  results.push(...tcp.results)
  const clock: ClockCheckResult = {
    samples: brackets.length,
    ...judgeBrackets(brackets),
    minOneWayRequestUs: tcp.minOneWayRequestUs,
    minOneWayAnswerUs: tcp.minOneWayAnswerUs,
  }
  log(describeClock(clock))
  log('probe: framed TCP done; grpc-js produce and fetch streams ...')
  results.push(...(await probeGrpc('produce', paces, MESSAGE_SIZES, placement)))
  results.push(...(await probeGrpc('fetch', paces, MESSAGE_SIZES, placement)))
  log('probe: gRPC done; wake-up, file I/O, chains ...')
  results.push(...(await probeWakeup(paces, placement)))
  results.push(...(await probeFileIo(paces)))
  results.push(...(await probeChains(paces, placement)))
  log(`\n${formatProbeTable(results)}`)
  log(describeWakeupShare(results))
  return {
    startedAt: new Date(Date.now() - (performance.now() - started)).toISOString(),
    elapsedS: Math.round((performance.now() - started) / 100) / 10,
    machine: {
      cpus: os.cpus().length,
      loadAvgBefore,
      loadAvgAfter: os.loadavg().map((v) => Math.round(v * 100) / 100),
    },
    clock,
    results,
  }
}

export function describeClock(c: ClockCheckResult): string {
  const verdict =
    c.violations === 0 && (c.minOneWayRequestUs ?? 1) > 0 && (c.minOneWayAnswerUs ?? 1) > 0
      ? 'holds'
      : 'FAILED: one-way figures are not trustworthy'
  return (
    `shared clock check ${verdict}: ${c.violations} of ${c.samples} peer readings outside the parent's bracket ` +
    `(narrowest ${c.narrowestBracketUs} µs); smallest TCP one-way ${c.minOneWayRequestUs} µs there and ` +
    `${c.minOneWayAnswerUs} µs back (both positive: any offset between the clocks is below the smaller)`
  )
}

/** The wake-up's share of a hop: idle receiver's median minus spinning receiver's, per rate. */
export function describeWakeupShare(results: readonly ProbeResult[]): string {
  const parts: string[] = []
  for (const rate of [...new Set(results.filter((r) => r.probe === 'wakeup').map((r) => r.ratePerSec))].sort(
    (a, b) => a - b,
  )) {
    const idle = results.find((r) => r.probe === 'wakeup' && r.ratePerSec === rate && r.variant === 'receiver idle')
    const spin = results.find((r) => r.probe === 'wakeup' && r.ratePerSec === rate && r.variant === 'receiver spinning')
    if (idle?.p50Ms === undefined || spin?.p50Ms === undefined) continue
    parts.push(
      `@${rate}/s ${(idle.p50Ms - spin.p50Ms).toFixed(3)} ms at the median ` +
        `(idle ${idle.p50Ms.toFixed(3)}, spinning ${spin.p50Ms.toFixed(3)}; ${idle.cpuUsPerMessage ?? '?'} µs CPU per message when idle)`,
    )
  }
  return `wake-up share of a one-way hop: ${parts.join('; ') || 'not measured'}`
}
