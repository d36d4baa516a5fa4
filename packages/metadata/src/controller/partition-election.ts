/**
 * Leader election rules, as pure functions from a partition's replicas and state to its next
 * state (undefined = no change). They follow Kafka's controller (docs/kafka-facts.md §7.3):
 * - leader epoch +1 whenever the leader changes (also to -1, offline); partition epoch +1 on any
 *   change of leader or ISR; the controller epoch of the writer is stamped in.
 * - a lost broker leaves every ISR, except that the ISR never becomes empty: its last member stays,
 *   so the partition knows which replica is safe to lead when it returns (Kafka's
 *   removeReplicasFromIsr keeps a single-member ISR as is).
 * - a new leader is the first replica in assignment order that is alive and in the ISR; only with
 *   unclean.leader.election.enable may an out-of-sync live replica lead (its ISR is then just itself).
 */
import type { ErrorCodeName } from '@sluice/protocol'
import type { PartitionStateRecord } from './layout.js'

export interface ElectionContext {
  readonly isLive: (brokerId: number) => boolean
  readonly controllerEpoch: number
  /** unclean.leader.election.enable of the partition's topic. */
  readonly unclean: boolean
}

function next(
  s: PartitionStateRecord,
  leader: number,
  isr: readonly number[],
  ctx: ElectionContext,
): PartitionStateRecord | undefined {
  const leaderChanged = leader !== s.leader
  if (!leaderChanged && sameList(isr, s.isr)) return undefined
  return {
    leader,
    leaderEpoch: s.leaderEpoch + (leaderChanged ? 1 : 0),
    isr: [...isr],
    controllerEpoch: ctx.controllerEpoch,
    partitionEpoch: s.partitionEpoch + 1,
  }
}

export function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i])
}

/** The state of a new partition: the first live replica leads, the live replicas are the ISR. */
export function initialState(replicas: readonly number[], ctx: ElectionContext): PartitionStateRecord {
  const live = replicas.filter((r) => ctx.isLive(r))
  return {
    leader: live[0] ?? -1,
    leaderEpoch: 0,
    isr: live.length > 0 ? live : [...replicas],
    controllerEpoch: ctx.controllerEpoch,
    partitionEpoch: 0,
  }
}

/** After brokers in `lost` died: shrink the ISR and, if the leader died, elect a new one. */
export function afterBrokersLost(
  replicas: readonly number[],
  s: PartitionStateRecord,
  lost: ReadonlySet<number>,
  ctx: ElectionContext,
): PartitionStateRecord | undefined {
  let isr = [...s.isr]
  for (const b of [...lost].sort((x, y) => x - y)) {
    if (isr.length > 1 && isr.includes(b)) isr = isr.filter((x) => x !== b)
  }
  let leader = s.leader
  if (leader !== -1 && lost.has(leader)) {
    const clean = replicas.find((r) => ctx.isLive(r) && isr.includes(r))
    const dirty = ctx.unclean ? replicas.find((r) => ctx.isLive(r)) : undefined
    if (clean !== undefined) {
      leader = clean
    } else if (dirty !== undefined) {
      leader = dirty
      isr = [dirty]
    } else {
      leader = -1
    }
  }
  return next(s, leader, isr, ctx)
}

/**
 * Controlled shutdown of `leaving`: it leaves the ISR (never emptying it) and, if it leads, the
 * first other eligible ISR member takes over. When no other in-sync replica is eligible, a
 * partition it leads stays as it is (Kafka's controlled-shutdown leader selection): it goes
 * offline only when the broker is actually gone, not before.
 */
export function afterControlledShutdown(
  replicas: readonly number[],
  s: PartitionStateRecord,
  leaving: number,
  ctx: ElectionContext,
): PartitionStateRecord | undefined {
  if (s.leader === leaving) {
    const successor = replicas.find((r) => r !== leaving && ctx.isLive(r) && s.isr.includes(r))
    if (successor === undefined) return undefined
    return next(
      s,
      successor,
      s.isr.filter((r) => r !== leaving),
      ctx,
    )
  }
  if (!s.isr.includes(leaving) || s.isr.length <= 1) return undefined
  return next(
    s,
    s.leader,
    s.isr.filter((r) => r !== leaving),
    ctx,
  )
}

/** An offline partition (leader -1) gets the first live ISR member, or (unclean) any live replica. */
export function electOffline(
  replicas: readonly number[],
  s: PartitionStateRecord,
  ctx: ElectionContext,
): PartitionStateRecord | undefined {
  if (s.leader !== -1) return undefined
  const clean = replicas.find((r) => ctx.isLive(r) && s.isr.includes(r))
  if (clean !== undefined) return next(s, clean, s.isr, ctx)
  if (!ctx.unclean) return undefined
  const dirty = replicas.find((r) => ctx.isLive(r))
  return dirty === undefined ? undefined : next(s, dirty, [dirty], ctx)
}

export type ElectionOutcome =
  | { readonly ok: true; readonly state: PartitionStateRecord }
  | { readonly ok: false; readonly error: ErrorCodeName; readonly message: string }

/** ElectLeaders type 0: move leadership to the first replica if it is alive and in sync. */
export function electPreferred(
  replicas: readonly number[],
  s: PartitionStateRecord,
  ctx: ElectionContext,
): ElectionOutcome {
  const preferred = replicas[0]
  if (preferred === undefined)
    return { ok: false, error: 'INVALID_REPLICA_ASSIGNMENT', message: 'partition has no replicas' }
  if (s.leader === preferred)
    return { ok: false, error: 'ELECTION_NOT_NEEDED', message: `broker ${preferred} already leads` }
  if (!ctx.isLive(preferred) || !s.isr.includes(preferred)) {
    return {
      ok: false,
      error: 'PREFERRED_LEADER_NOT_AVAILABLE',
      message: `preferred replica ${preferred} is ${ctx.isLive(preferred) ? 'not in the ISR' : 'not alive'}`,
    }
  }
  return { ok: true, state: next(s, preferred, s.isr, ctx)! }
}

/** ElectLeaders type 1: a partition without a live leader gets any live replica, in sync or not. */
export function electUnclean(
  replicas: readonly number[],
  s: PartitionStateRecord,
  ctx: ElectionContext,
): ElectionOutcome {
  if (s.leader !== -1 && ctx.isLive(s.leader))
    return { ok: false, error: 'ELECTION_NOT_NEEDED', message: `broker ${s.leader} leads and is alive` }
  const clean = replicas.find((r) => ctx.isLive(r) && s.isr.includes(r))
  if (clean !== undefined)
    return {
      ok: true,
      state: next(
        s,
        clean,
        s.isr.filter((r) => ctx.isLive(r)),
        ctx,
      )!,
    }
  const dirty = replicas.find((r) => ctx.isLive(r))
  if (dirty === undefined) return { ok: false, error: 'ELIGIBLE_LEADERS_NOT_AVAILABLE', message: 'no replica is alive' }
  return { ok: true, state: next(s, dirty, [dirty], ctx)! }
}
