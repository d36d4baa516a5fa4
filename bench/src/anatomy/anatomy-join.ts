/**
 * Joins the latency anatomy's trace events (packages/protocol/src/trace.ts: one line per event,
 * one file per process) into per-batch rounds and summarizes every hop: pure functions, so a
 * unit test can feed them synthetic events.
 *
 * A batch is named by its leader's append (topic, partition, base offset). Stamps that carry
 * the base offset (producer, leader received and appended, produce answered) match it exactly;
 * stamps that cover a range of offsets (fetch answers, follower appends, high-watermark moves,
 * deliveries) match the first event of their stream, in time order, whose range holds the base
 * offset; a follower's next fetch is its first fetch past the base offset. Within a stream
 * (one partition, one follower) offsets only grow over time, which makes those searches binary.
 * Followers are ordered by when their next fetch proved they hold the batch: A first, B second.
 */

export interface TraceEvent {
  readonly ns: bigint
  readonly hop: string
  readonly node: number
  readonly topic: string
  readonly partition: number
  readonly from: bigint
  readonly to: bigint
}

/** Parses one trace file's text; comment lines (`#`) and malformed lines are skipped. */
export function parseTrace(text: string): TraceEvent[] {
  const out: TraceEvent[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const f = line.split(' ')
    if (f.length !== 7 || !/^\d+$/.test(f[0]!)) continue
    try {
      out.push({
        ns: BigInt(f[0]!),
        hop: f[1]!,
        node: Number(f[2]),
        topic: f[3]!,
        partition: Number(f[4]),
        from: BigInt(f[5]!),
        to: BigInt(f[6]!),
      })
    } catch {
      // A line cut short by a crash: skip it.
    }
  }
  return out
}

/** One batch's stamps (ns), by stamp name; missing stamps are absent. */
export type Round = Record<string, bigint>

export const STAMPS = [
  'enqueue',
  'sent',
  'leaderReceived',
  'appended',
  'fetchAnsweredA',
  'followerReceivedA',
  'followerAppendedA',
  'nextFetchA',
  'fetchAnsweredB',
  'followerReceivedB',
  'followerAppendedB',
  'nextFetchB',
  'hwAdvanced',
  'produceAnswered',
  'acked',
  'consumerFetchAnswered',
  'consumerReceived',
  'delivered',
] as const

/** The hops the table shows: from one stamp to another. */
export const HOPS: ReadonlyArray<{ name: string; from: string; to: string }> = [
  { name: 'producer: enqueue -> request sent', from: 'enqueue', to: 'sent' },
  { name: 'network: request sent -> leader received', from: 'sent', to: 'leaderReceived' },
  { name: 'leader: received -> appended', from: 'leaderReceived', to: 'appended' },
  { name: 'leader: appended -> fetch answered to follower A', from: 'appended', to: 'fetchAnsweredA' },
  { name: 'network: answer to A sent -> A received it', from: 'fetchAnsweredA', to: 'followerReceivedA' },
  { name: 'follower A: received -> appended', from: 'followerReceivedA', to: 'followerAppendedA' },
  { name: 'follower A: appended -> next fetch at leader', from: 'followerAppendedA', to: 'nextFetchA' },
  { name: 'leader: appended -> fetch answered to follower B', from: 'appended', to: 'fetchAnsweredB' },
  { name: 'network: answer to B sent -> B received it', from: 'fetchAnsweredB', to: 'followerReceivedB' },
  { name: 'follower B: received -> appended', from: 'followerReceivedB', to: 'followerAppendedB' },
  { name: 'follower B: appended -> next fetch at leader', from: 'followerAppendedB', to: 'nextFetchB' },
  { name: 'leader: next fetch of B -> HW advanced', from: 'nextFetchB', to: 'hwAdvanced' },
  { name: 'leader: HW advanced -> produce answered', from: 'hwAdvanced', to: 'produceAnswered' },
  { name: 'network: produce answered -> producer acked', from: 'produceAnswered', to: 'acked' },
  { name: 'leader: HW advanced -> consumer fetch answered', from: 'hwAdvanced', to: 'consumerFetchAnswered' },
  { name: 'network: consumer fetch answered -> received', from: 'consumerFetchAnswered', to: 'consumerReceived' },
  { name: 'consumer: received -> delivered', from: 'consumerReceived', to: 'delivered' },
  { name: 'end to end: enqueue -> producer acked', from: 'enqueue', to: 'acked' },
  { name: 'end to end: enqueue -> consumer delivered', from: 'enqueue', to: 'delivered' },
]

type Stream = TraceEvent[]

class Index {
  /** `hop topic partition from` -> first such event (stamps that carry the base offset). */
  readonly exact = new Map<string, TraceEvent>()
  /** `hop topic partition node` -> events in time order. */
  readonly streams = new Map<string, Stream>()
  /** `topic partition` -> follower nodes seen. */
  readonly followers = new Map<string, Set<number>>()

  constructor(events: readonly TraceEvent[]) {
    const sorted = [...events].sort((a, b) => (a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0))
    for (const e of sorted) {
      const ek = `${e.hop} ${e.topic} ${e.partition} ${e.from}`
      if (!this.exact.has(ek)) this.exact.set(ek, e)
      const sk = `${e.hop} ${e.topic} ${e.partition} ${RANGE_HOPS_BY_NODE.has(e.hop) ? e.node : '*'}`
      const s = this.streams.get(sk)
      if (s === undefined) this.streams.set(sk, [e])
      else s.push(e)
      if (e.hop === 'follower-append-done') {
        const pk = `${e.topic} ${e.partition}`
        const f = this.followers.get(pk)
        if (f === undefined) this.followers.set(pk, new Set([e.node]))
        else f.add(e.node)
      }
    }
  }

  exactNs(hop: string, topic: string, partition: number, base: bigint): bigint | undefined {
    return this.exact.get(`${hop} ${topic} ${partition} ${base}`)?.ns
  }

  /** First event of the stream whose [from, to) holds `offset`. */
  covering(hop: string, topic: string, partition: number, node: number | '*', offset: bigint): bigint | undefined {
    const s = this.streams.get(`${hop} ${topic} ${partition} ${node}`)
    if (s === undefined) return undefined
    const i = firstIndex(s, (e) => e.to > offset)
    const e = s[i]
    return e !== undefined && e.from <= offset ? e.ns : undefined
  }

  /** First event of the stream that starts past `offset` (a follower's next fetch). */
  after(hop: string, topic: string, partition: number, node: number, offset: bigint): bigint | undefined {
    const s = this.streams.get(`${hop} ${topic} ${partition} ${node}`)
    if (s === undefined) return undefined
    return s[firstIndex(s, (e) => e.from > offset)]?.ns
  }
}

/** Hops whose streams are per broker (a follower's own sequence of fetches and appends). */
const RANGE_HOPS_BY_NODE = new Set([
  'follower-fetch-answered',
  'follower-response-received',
  'follower-append-done',
  'follower-fetch-received',
])

function firstIndex<T>(a: readonly T[], pred: (x: T) => boolean): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (pred(a[mid]!)) hi = mid
    else lo = mid + 1
  }
  return lo
}

/**
 * Every batch's round, for batches whose producer enqueue lies in [fromNs, toNs] (the measured
 * window; no bounds: all batches the leader appended).
 */
export function joinRounds(events: readonly TraceEvent[], fromNs?: bigint, toNs?: bigint): Round[] {
  const ix = new Index(events)
  const rounds: Round[] = []
  for (const a of ix.streams.values()) {
    if (a[0]?.hop !== 'append-done') continue
    for (const e of a) {
      const { topic, partition, from: base } = e
      const r: Round = { appended: e.ns }
      const set = (name: string, ns: bigint | undefined): void => {
        if (ns !== undefined) r[name] = ns
      }
      set('enqueue', ix.exactNs('producer-enqueue', topic, partition, base))
      if (fromNs !== undefined && (r.enqueue === undefined || r.enqueue < fromNs)) continue
      if (toNs !== undefined && (r.enqueue === undefined || r.enqueue > toNs)) continue
      set('sent', ix.exactNs('producer-sent', topic, partition, base))
      set('acked', ix.exactNs('producer-acked', topic, partition, base))
      set('leaderReceived', ix.exactNs('leader-received', topic, partition, base))
      set('produceAnswered', ix.exactNs('produce-answered', topic, partition, base))
      set('hwAdvanced', ix.covering('hw-advanced', topic, partition, '*', base))
      set('consumerFetchAnswered', ix.covering('consumer-fetch-answered', topic, partition, '*', base))
      set('consumerReceived', ix.covering('consumer-response-received', topic, partition, '*', base))
      set('delivered', ix.covering('consumer-delivered', topic, partition, '*', base))
      const followers = [...(ix.followers.get(`${topic} ${partition}`) ?? [])]
        .filter((n) => n !== e.node)
        .map((n) => ({
          answered: ix.covering('follower-fetch-answered', topic, partition, n, base),
          received: ix.covering('follower-response-received', topic, partition, n, base),
          appended: ix.covering('follower-append-done', topic, partition, n, base),
          next: ix.after('follower-fetch-received', topic, partition, n, base),
        }))
        .sort((x, y) => Number((x.next ?? BIG) - (y.next ?? BIG)))
      followers.slice(0, 2).forEach((f, i) => {
        const tag = i === 0 ? 'A' : 'B'
        set(`fetchAnswered${tag}`, f.answered)
        set(`followerReceived${tag}`, f.received)
        set(`followerAppended${tag}`, f.appended)
        set(`nextFetch${tag}`, f.next)
      })
      rounds.push(r)
    }
  }
  return rounds
}

const BIG = 1n << 62n

export interface HopStats {
  readonly hop: string
  readonly count: number
  readonly p50Ms: number | undefined
  readonly p99Ms: number | undefined
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]
}

/** p50 and p99 of every hop (ms, 3 decimals) over the rounds that have both of its stamps. */
export function hopStats(rounds: readonly Round[]): HopStats[] {
  return HOPS.map((h) => {
    const ms: number[] = []
    for (const r of rounds) {
      const a = r[h.from]
      const b = r[h.to]
      if (a !== undefined && b !== undefined) ms.push(Number(b - a) / 1e6)
    }
    ms.sort((x, y) => x - y)
    const round3 = (v: number | undefined): number | undefined =>
      v === undefined ? undefined : Math.round(v * 1000) / 1000
    return { hop: h.name, count: ms.length, p50Ms: round3(percentile(ms, 50)), p99Ms: round3(percentile(ms, 99)) }
  })
}

/** The table as text: hop, count, p50, p99. */
export function formatHopTable(title: string, stats: readonly HopStats[]): string {
  const width = Math.max(...stats.map((s) => s.hop.length), 3)
  const num = (v: number | undefined): string => (v === undefined ? '-' : v.toFixed(3)).padStart(9)
  const lines = [
    title,
    `${'hop'.padEnd(width)}  ${'count'.padStart(7)}  ${'p50 ms'.padStart(9)}  ${'p99 ms'.padStart(9)}`,
  ]
  for (const s of stats)
    lines.push(`${s.hop.padEnd(width)}  ${String(s.count).padStart(7)}  ${num(s.p50Ms)}  ${num(s.p99Ms)}`)
  return lines.join('\n')
}
