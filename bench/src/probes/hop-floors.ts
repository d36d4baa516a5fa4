/**
 * Sets each hop of the latency anatomy (anatomy/anatomy-join.ts HOPS) beside the probe that
 * measures the floor of that kind of hop on this machine, and the ratio of the two. Pure: the
 * map below is the whole judgement, and a hop without a probe says so rather than borrowing one.
 *
 * Sizes: at 200 records/s a produce batch holds one 100-byte record, so the 100 B probes apply;
 * at 10,000 records/s a batch holds tens of records, so the 1 KB probes are the nearer floor
 * (an under-estimate of the bytes, which only makes the floor lower). Rates: the anatomy's
 * 200/s and 10,000/s are records per second; the probes' are messages per second. At
 * 10,000 records/s the cluster exchanges a few hundred to a thousand messages a second (a
 * produce request per leader, a fetch per follower, each carrying tens of records), so its hops
 * compare with the 1,000/s probes, not the 10,000/s ones (probeRateFor). A saturated series is
 * a queue, not a floor: it is shown as such and given no ratio.
 */
import type { HopStats } from '../anatomy/anatomy-join.js'
import { chainVariant, type ProbeLeg, type ProbeName, type ProbeResult } from './probe-result.js'

export interface FloorRef {
  /** What the floor is, in the table. */
  readonly label: string
  readonly probe: ProbeName
  readonly variant: string
  readonly leg: ProbeLeg
  /** The message size to use at an anatomy rate (records/s). */
  readonly bytes: (anatomyRate: number) => number
}

/**
 * The probe message rate a hop at an anatomy record rate compares with: 200 records/s are about
 * 200 messages/s (one record a batch); 10,000 records/s are at most about 1,000 (see above).
 */
export function probeRateFor(anatomyRate: number): number {
  return anatomyRate <= 200 ? 200 : 1000
}

const bySize = (anatomyRate: number): number => (anatomyRate <= 1000 ? 100 : 1024)
const small = (): number => 100
const GRPC = 'grpc-js bidi'

const produceRequest: FloorRef = {
  label: 'grpc Produce request one-way',
  probe: 'grpc-produce',
  variant: GRPC,
  leg: 'one-way request',
  bytes: bySize,
}
const produceAnswer: FloorRef = {
  label: 'grpc Produce answer one-way',
  probe: 'grpc-produce',
  variant: GRPC,
  leg: 'one-way answer',
  bytes: bySize,
}
const fetchAnswer: FloorRef = {
  label: 'grpc Fetch answer one-way',
  probe: 'grpc-fetch',
  variant: GRPC,
  leg: 'one-way answer',
  bytes: bySize,
}
const fetchRequest: FloorRef = {
  label: 'grpc Fetch request one-way',
  probe: 'grpc-fetch',
  variant: GRPC,
  leg: 'one-way request',
  bytes: small,
}
const append: FloorRef = {
  label: 'FileHandle.write (page cache)',
  probe: 'file-write',
  variant: 'FileHandle (thread pool)',
  leg: 'operation',
  bytes: bySize,
}
const fourHops: FloorRef = {
  label: 'grpc chain, 5 processes (4 hops, no appends)',
  probe: 'chain',
  variant: chainVariant('grpc', 5),
  leg: 'one-way',
  bytes: small,
}

/** Hop name -> its floor; hops inside one process have none (no probe isolates them). */
export const HOP_FLOORS: ReadonlyMap<string, FloorRef> = new Map([
  ['network: request sent -> leader received', produceRequest],
  ['leader: received -> appended', append],
  ['network: answer to A sent -> A received it', fetchAnswer],
  ['follower A: received -> appended', append],
  ['follower A: appended -> next fetch at leader', fetchRequest],
  ['network: answer to B sent -> B received it', fetchAnswer],
  ['follower B: received -> appended', append],
  ['follower B: appended -> next fetch at leader', fetchRequest],
  ['network: produce answered -> producer acked', produceAnswer],
  ['network: consumer fetch answered -> received', fetchAnswer],
  ['end to end: enqueue -> producer acked', fourHops],
  ['end to end: enqueue -> consumer delivered', fourHops],
])

export interface FloorRow {
  readonly hop: string
  readonly p50Ms: number | undefined
  readonly p99Ms: number | undefined
  /** Undefined when the hop has no probe, or the probes did not measure that one. */
  readonly floor: string | undefined
  readonly floorP50Ms: number | undefined
  readonly floorP99Ms: number | undefined
  /** Hop ÷ floor. */
  readonly ratioP50: number | undefined
  readonly ratioP99: number | undefined
}

/** The probe's result a reference names at a rate, if the probes measured it. */
export function findFloor(
  ref: FloorRef,
  anatomyRate: number,
  results: readonly ProbeResult[],
): ProbeResult | undefined {
  const bytes = ref.bytes(anatomyRate)
  const rate = probeRateFor(anatomyRate)
  return results.find(
    (r) =>
      r.probe === ref.probe &&
      r.variant === ref.variant &&
      r.leg === ref.leg &&
      r.bytes === bytes &&
      r.ratePerSec === rate,
  )
}

const ratio = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined || b === undefined || b <= 0 ? undefined : Math.round((a / b) * 10) / 10

export function floorRows(
  stats: readonly HopStats[],
  anatomyRate: number,
  results: readonly ProbeResult[],
): FloorRow[] {
  return stats.map((s) => {
    const ref = HOP_FLOORS.get(s.hop)
    const found = ref === undefined ? undefined : findFloor(ref, anatomyRate, results)
    const usable = found !== undefined && found.saturated !== true
    return {
      hop: s.hop,
      p50Ms: s.p50Ms,
      p99Ms: s.p99Ms,
      floor:
        found === undefined || ref === undefined
          ? undefined
          : `${ref.label}, ${found.bytes} B @${found.ratePerSec}/s${usable ? '' : ' (saturated)'}`,
      floorP50Ms: found?.p50Ms,
      floorP99Ms: found?.p99Ms,
      ratioP50: usable ? ratio(s.p50Ms, found.p50Ms) : undefined,
      ratioP99: usable ? ratio(s.p99Ms, found.p99Ms) : undefined,
    }
  })
}

/** The table as text; a hop within 1.5× of its floor (issue 16's bar) is marked `≤1.5`. */
export function formatFloorTable(title: string, rows: readonly FloorRow[]): string {
  const num = (v: number | undefined): string => (v === undefined ? '-' : v.toFixed(3))
  const times = (v: number | undefined): string => (v === undefined ? '-' : `${v.toFixed(1)}x`)
  const header = ['hop', 'p50 ms', 'p99 ms', 'floor (probe)', 'floor p50', 'floor p99', 'p50/floor', 'p99/floor', '']
  const body = rows.map((r) => [
    r.hop,
    num(r.p50Ms),
    num(r.p99Ms),
    r.floor ?? (HOP_FLOORS.has(r.hop) ? '(not measured)' : '(in one process: no probe)'),
    num(r.floorP50Ms),
    num(r.floorP99Ms),
    times(r.ratioP50),
    times(r.ratioP99),
    r.ratioP50 !== undefined && r.ratioP50 <= 1.5 ? '≤1.5' : '',
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)))
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === 0 || i === 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd()
  return [title, line(header), ...body.map(line)].join('\n')
}
