/**
 * What a probe reports, and the file the probes write (bench/results/probes-<timestamp>.json)
 * so a later `--anatomy --probes-file` run can set the anatomy's hops beside these floors.
 */
import type { SampleStats } from './probe-stats.js'

/**
 * One measured series: which probe, which variant of it (a transport, an API, a chain length),
 * which leg (one-way request, one-way answer, round trip, one operation), at which message rate
 * and size.
 */
export interface ProbeResult extends SampleStats {
  readonly probe: ProbeName
  readonly variant: string
  readonly leg: ProbeLeg
  readonly ratePerSec: number
  /** Message (or write) size in bytes. */
  readonly bytes: number
  /**
   * CPU the peer (the receiving or answering process) spent per message over the series, its
   * warm-up included (µs), where measured.
   */
  readonly cpuUsPerMessage?: number
  /** From the last send to the last arrival (ms): how saturation was judged (paced-loop.ts). */
  readonly drainMs?: number
  /** The peer could not keep up with the rate: the figures are a queue's, not a floor (paced-loop.ts). */
  readonly saturated?: boolean
}

export type ProbeName = 'tcp' | 'grpc-produce' | 'grpc-fetch' | 'wakeup' | 'file-write' | 'file-read' | 'chain'

export type ProbeLeg = 'one-way request' | 'one-way answer' | 'round trip' | 'peer turnaround' | 'operation' | 'one-way'

/** The shared-clock check (clock-check.ts), recorded with the results it vouches for. */
export interface ClockCheckResult {
  readonly samples: number
  /** Child stamps that fell outside the parent's bracket (must be 0). */
  readonly violations: number
  /** Narrowest bracket seen (µs): an offset between the processes' clocks must be below it. */
  readonly narrowestBracketUs: number
  /** The smallest one-way time seen in each direction of the TCP probe (µs); both > 0 bound any offset. */
  readonly minOneWayRequestUs?: number
  readonly minOneWayAnswerUs?: number
}

export interface ProbeReport {
  readonly startedAt: string
  readonly elapsedS: number
  readonly machine: { cpus: number; loadAvgBefore: number[]; loadAvgAfter: number[] }
  readonly clock: ClockCheckResult | undefined
  readonly results: ProbeResult[]
}

/** A chain result's variant label (the hop → floor map looks results up by it). */
export function chainVariant(transport: 'tcp' | 'grpc', processes: number): string {
  return `${transport === 'tcp' ? 'framed TCP' : 'grpc-js bidi'}, ${processes} processes`
}
