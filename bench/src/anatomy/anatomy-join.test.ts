import { describe, expect, it } from 'vitest'
import { formatHopTable, hopStats, joinRounds, parseTrace, percentile, type TraceEvent } from './anatomy-join.js'

const ms = (v: number): bigint => BigInt(Math.round(v * 1e6))
const ev = (atMs: number, hop: string, node: number, from: number, to: number): TraceEvent => ({
  ns: ms(atMs),
  hop,
  node,
  topic: 't',
  partition: 0,
  from: BigInt(from),
  to: BigInt(to),
})

// One round of batch [10, 12) led by broker 1, followed by 2 (first to confirm) and 3, plus the
// tail of the batch before it ([8, 10)), whose stamps must not be taken for the later batch.
const earlier: TraceEvent[] = [
  ev(-5, 'producer-enqueue', -1, 8, 10),
  ev(-4, 'leader-received', 1, 8, 10),
  ev(-3.5, 'append-done', 1, 8, 10),
  ev(-3, 'follower-fetch-answered', 2, 8, 10),
  ev(-2.5, 'follower-append-done', 2, 8, 10),
  ev(-2, 'follower-fetch-received', 2, 10, 10),
  ev(-1, 'hw-advanced', 1, 8, 10),
]
const round: TraceEvent[] = [
  ev(0, 'producer-enqueue', -1, 10, 12),
  ev(1, 'producer-sent', -1, 10, 12),
  ev(2, 'leader-received', 1, 10, 12),
  ev(3, 'append-done', 1, 10, 12),
  ev(4, 'follower-fetch-answered', 2, 10, 12),
  ev(4.5, 'follower-fetch-answered', 3, 8, 12),
  ev(4.4, 'follower-response-received', 2, 10, 12),
  ev(5.2, 'follower-response-received', 3, 8, 12),
  ev(5, 'follower-append-done', 2, 10, 12),
  ev(6, 'follower-append-done', 3, 8, 12),
  ev(6.5, 'follower-fetch-received', 2, 12, 12),
  ev(7, 'follower-fetch-received', 3, 12, 12),
  ev(7.2, 'hw-advanced', 1, 8, 12),
  ev(7.5, 'produce-answered', 1, 10, 11),
  ev(7.6, 'consumer-fetch-answered', 1, 10, 12),
  ev(8, 'producer-acked', -1, 10, 12),
  ev(8.5, 'consumer-response-received', -1, 10, 12),
  ev(9, 'consumer-delivered', -1, 10, 12),
]

describe('joinRounds and hopStats', () => {
  it('joins every stamp of a batch, whatever order the files came in, and measures each hop', () => {
    const rounds = joinRounds([...round].reverse().concat(earlier), ms(-0.5), ms(100))
    expect(rounds).toHaveLength(1)
    const byHop = Object.fromEntries(hopStats(rounds).map((s) => [s.hop, s.p50Ms]))
    expect(byHop).toEqual({
      'producer: enqueue -> request sent': 1,
      'network: request sent -> leader received': 1,
      'leader: received -> appended': 1,
      'leader: appended -> fetch answered to follower A': 1,
      'network: answer to A sent -> A received it': 0.4,
      'follower A: received -> appended': 0.6,
      'follower A: appended -> next fetch at leader': 1.5,
      'leader: appended -> fetch answered to follower B': 1.5,
      'network: answer to B sent -> B received it': 0.7,
      'follower B: received -> appended': 0.8,
      'follower B: appended -> next fetch at leader': 1,
      'leader: next fetch of B -> HW advanced': 0.2,
      'leader: HW advanced -> produce answered': 0.3,
      'network: produce answered -> producer acked': 0.5,
      'leader: HW advanced -> consumer fetch answered': 0.4,
      'network: consumer fetch answered -> received': 0.9,
      'consumer: received -> delivered': 0.5,
      'end to end: enqueue -> producer acked': 8,
      'end to end: enqueue -> consumer delivered': 9,
    })
  })

  it('keeps only batches enqueued inside the window, and counts a hop only where both stamps exist', () => {
    const all = joinRounds([...earlier, ...round])
    expect(all).toHaveLength(2)
    const stats = hopStats(all)
    const count = (hop: string): number | undefined => stats.find((s) => s.hop === hop)?.count
    expect(count('leader: received -> appended')).toBe(2)
    expect(count('producer: enqueue -> request sent')).toBe(1) // the earlier batch has no sent stamp
    expect(joinRounds([...earlier, ...round], ms(0.5), ms(100))).toEqual([])
  })

  it('takes the first range event holding the base offset, not an earlier one that ends before it', () => {
    const [r] = joinRounds([...earlier, ...round], ms(-0.5))
    expect(r!.hwAdvanced).toBe(ms(7.2))
    expect(r!.nextFetchA).toBe(ms(6.5))
    expect(r!.fetchAnsweredA).toBe(ms(4))
  })
})

describe('parseTrace', () => {
  it('reads event lines and skips comments and malformed lines', () => {
    const text = [
      '# sluice trace v1 pid 1 main.js',
      '100 append-done 2 orders 5 10 14',
      'garbage',
      '12x append-done 2 orders 5 10 14',
      '# dropped 3',
      '200 hw-advanced 2 orders 5 10 1',
      '',
    ].join('\n')
    expect(parseTrace(text)).toEqual([
      { ns: 100n, hop: 'append-done', node: 2, topic: 'orders', partition: 5, from: 10n, to: 14n },
      { ns: 200n, hop: 'hw-advanced', node: 2, topic: 'orders', partition: 5, from: 10n, to: 1n },
    ])
  })
})

describe('percentile and the table', () => {
  it('is the nearest rank', () => {
    const v = Array.from({ length: 100 }, (_, i) => i + 1)
    expect(percentile(v, 50)).toBe(50)
    expect(percentile(v, 99)).toBe(99)
    expect(percentile([7], 99)).toBe(7)
    expect(percentile([], 50)).toBeUndefined()
  })

  it('prints one row per hop with count, p50 and p99', () => {
    const text = formatHopTable('title', [{ hop: 'a -> b', count: 3, p50Ms: 1.5, p99Ms: undefined }])
    expect(text.split('\n')).toEqual([
      'title',
      'hop       count     p50 ms     p99 ms',
      'a -> b        3      1.500          -',
    ])
  })
})
