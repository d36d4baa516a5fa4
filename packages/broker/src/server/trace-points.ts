/**
 * The broker's latency-anatomy stamps that look at whole requests and responses (the trace
 * itself is @sluice/protocol's trace.ts). Every function here is called only behind `traceOn`,
 * so none of this work happens when tracing is off.
 */
import { batchesEndOffset, traceHop, traceNow } from '@sluice/protocol'
import type { FollowerFetchAnswer } from '../replication/follower-fetch-types.js'
import type { FetchAnswer, FetchAsk } from './fetch-types.js'
import type { ProduceTopicAnswer } from './produce-types.js'

/** A follower's fetch arrived: one event per partition at its fetch offset (node: the follower). */
export function traceFetchReceived(req: FetchAsk): void {
  if (req.replicaId < 0) return
  const ns = traceNow()
  for (const t of req.topics) {
    for (const p of t.partitions) {
      traceHop('follower-fetch-received', req.replicaId, t.topic, p.partition, p.fetchOffset, p.fetchOffset, ns)
    }
  }
}

/**
 * A fetch is answered: one event per partition that carries records, covering them (node: the
 * follower for a follower fetch, this broker for a consumer's).
 */
export function traceFetchAnswered(brokerId: number, req: FetchAsk, res: FetchAnswer): void {
  const ns = traceNow()
  const follower = req.replicaId >= 0
  const offsets = new Map<string, bigint>()
  for (const t of req.topics) for (const p of t.partitions) offsets.set(`${t.topic} ${p.partition}`, p.fetchOffset)
  for (const t of res.topics) {
    for (const p of t.partitions) {
      if (p.records.length === 0) continue
      const from = offsets.get(`${t.topic} ${p.partition}`) ?? 0n
      const to = batchesEndOffset(p.records, from)
      if (follower) traceHop('follower-fetch-answered', req.replicaId, t.topic, p.partition, from, to, ns)
      else traceHop('consumer-fetch-answered', brokerId, t.topic, p.partition, from, to, ns)
    }
  }
}

/**
 * A follower's fetch response arrived (the replica fetcher, before applying it): one event per
 * partition that carries records, covering them (node: this follower).
 */
export function traceFollowerResponse(brokerId: number, res: FollowerFetchAnswer): void {
  const ns = traceNow()
  for (const t of res.topics) {
    for (const p of t.partitions) {
      if (p.records.length < 8) continue
      const from = p.records.readBigInt64BE(0)
      traceHop(
        'follower-response-received',
        brokerId,
        t.topic,
        p.partition,
        from,
        batchesEndOffset(p.records, from),
        ns,
      )
    }
  }
}

/** A produce answer leaves: one event per partition that succeeded, at its base offset. */
export function traceProduceAnswered(brokerId: number, topics: readonly ProduceTopicAnswer[]): void {
  const ns = traceNow()
  for (const t of topics) {
    for (const p of t.partitions) {
      if (p.errorCode !== 0) continue
      traceHop('produce-answered', brokerId, t.topic, p.partition, p.baseOffset, p.baseOffset + 1n, ns)
    }
  }
}
