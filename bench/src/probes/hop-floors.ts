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

/**
 * Which data path the anatomy's cluster ran, so each hop meets the floor of what it crossed:
 * - 'kafka-tcp': produce, replication and consumer fetches over Kafka's protocol on plain TCP
 *   connections and small log writes with fs.writeSync (issue 16's data path);
 * - 'grpc': the same over grpc-js bidi streams, log writes through FileHandle.write (before).
 */
export type FloorProfile = 'kafka-tcp' | 'grpc'
export const FLOOR_PROFILES: readonly FloorProfile[] = ['kafka-tcp', 'grpc']

const floorRef = (
  label: string,
  probe: ProbeName,
  variant: string,
  leg: ProbeLeg,
  bytes: FloorRef['bytes'],
): FloorRef => ({
  label,
  probe,
  variant,
  leg,
  bytes,
})

function floorsOf(profile: FloorProfile): ReadonlyMap<string, FloorRef> {
  const tcp = profile === 'kafka-tcp'
  // Framed TCP echoes the same size both ways, so one probe serves requests and answers.
  const net = (
    what: string,
    probe: 'grpc-produce' | 'grpc-fetch',
    leg: ProbeLeg,
    bytes: FloorRef['bytes'],
  ): FloorRef =>
    tcp
      ? floorRef(`framed TCP ${leg} (${what})`, 'tcp', 'framed TCP', leg, bytes)
      : floorRef(`grpc ${what} ${leg}`, probe, 'grpc-js bidi', leg, bytes)
  const produceRequest = net('Produce', 'grpc-produce', 'one-way request', bySize)
  const produceAnswer = net('Produce', 'grpc-produce', 'one-way answer', small)
  const fetchAnswer = net('Fetch', 'grpc-fetch', 'one-way answer', bySize)
  const fetchRequest = net('Fetch', 'grpc-fetch', 'one-way request', small)
  const append = tcp
    ? floorRef('fs.writeSync (page cache)', 'file-write', 'writeSync/readSync', 'operation', bySize)
    : floorRef('FileHandle.write (page cache)', 'file-write', 'FileHandle (thread pool)', 'operation', bySize)
  const fourHops = floorRef(
    `${tcp ? 'TCP' : 'grpc'} chain, 5 processes (4 hops, no appends)`,
    'chain',
    chainVariant(tcp ? 'tcp' : 'grpc', 5),
    'one-way',
    small,
  )
  return new Map([
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
}

/** Per profile: hop name -> its floor; hops inside one process have none (no probe isolates them). */
export const HOP_FLOORS: ReadonlyMap<FloorProfile, ReadonlyMap<string, FloorRef>> = new Map(
  FLOOR_PROFILES.map((p) => [p, floorsOf(p)]),
)

export interface FloorRow {
  readonly hop: string
  /** Whether the hop has a probe at all (false: a step inside one process). */
  readonly mapped: boolean
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
  profile: FloorProfile,
): FloorRow[] {
  const floors = HOP_FLOORS.get(profile)!
  return stats.map((s) => {
    const ref = floors.get(s.hop)
    const found = ref === undefined ? undefined : findFloor(ref, anatomyRate, results)
    const usable = found !== undefined && found.saturated !== true
    return {
      hop: s.hop,
      mapped: ref !== undefined,
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

/**
 * The table as text; a hop within 1.5× of its floor (issue 16's bar) is marked `≤1.5`, and one
 * well below its floor is marked as such: the probe then measured a bad moment, not a floor.
 */
export function formatFloorTable(title: string, rows: readonly FloorRow[]): string {
  const num = (v: number | undefined): string => (v === undefined ? '-' : v.toFixed(3))
  const times = (v: number | undefined): string => (v === undefined ? '-' : `${v.toFixed(1)}x`)
  const header = ['hop', 'p50 ms', 'p99 ms', 'floor (probe)', 'floor p50', 'floor p99', 'p50/floor', 'p99/floor', '']
  const body = rows.map((r) => [
    r.hop,
    num(r.p50Ms),
    num(r.p99Ms),
    r.floor ?? (r.mapped ? '(not measured)' : '(in one process: no probe)'),
    num(r.floorP50Ms),
    num(r.floorP99Ms),
    times(r.ratioP50),
    times(r.ratioP99),
    r.ratioP50 === undefined ? '' : r.ratioP50 < 0.8 ? 'below its floor: probe noisy' : r.ratioP50 <= 1.5 ? '≤1.5' : '',
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)))
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === 0 || i === 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd()
  return [title, line(header), ...body.map(line)].join('\n')
}
