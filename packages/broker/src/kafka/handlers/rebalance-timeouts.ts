/**
 * The rebalance timeout each member joined with, remembered per broker so SyncGroup (which does
 * not carry it) can give its forwarded long poll a deadline: a follower's SyncGroup waits for the
 * leader's, which may take up to the rebalance timeout. Bounded: the oldest entries go first, and
 * a member the map forgot gets Kafka's default max.poll.interval.ms.
 */
import type { BrokerContext } from '../../server/context.js'

const MAX_ENTRIES = 10_000
/** Kafka's default max.poll.interval.ms, the rebalance timeout of most clients. */
export const DEFAULT_REBALANCE_TIMEOUT_MS = 300_000

const byBroker = new WeakMap<BrokerContext, Map<string, number>>()

function tableOf(broker: BrokerContext): Map<string, number> {
  let t = byBroker.get(broker)
  if (t === undefined) {
    t = new Map()
    byBroker.set(broker, t)
  }
  return t
}

const keyOf = (groupId: string, memberId: string): string => `${groupId}\u0000${memberId}`

export function rememberRebalanceTimeout(broker: BrokerContext, groupId: string, memberId: string, ms: number): void {
  const t = tableOf(broker)
  const key = keyOf(groupId, memberId)
  t.delete(key) // re-inserted last: the map's order is the age order
  t.set(key, ms)
  if (t.size > MAX_ENTRIES) t.delete(t.keys().next().value as string)
}

export function rebalanceTimeoutOf(broker: BrokerContext, groupId: string, memberId: string): number {
  return tableOf(broker).get(keyOf(groupId, memberId)) ?? DEFAULT_REBALANCE_TIMEOUT_MS
}

export function forgetMember(broker: BrokerContext, groupId: string, memberId: string): void {
  tableOf(broker).delete(keyOf(groupId, memberId))
}
