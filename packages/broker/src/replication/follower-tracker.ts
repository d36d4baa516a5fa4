/**
 * The leader's view of its followers (docs/kafka-facts.md §3.2-3.3): for each other replica, its log
 * end offset (the fetch_offset of its latest fetch: a follower's fetch offset *is* its LEO) and
 * the time it was last caught up.
 *
 * Kafka's lastCaughtUpTimeMs rule (Replica.updateFetchStateOrThrow): a fetch that reaches the
 * leader's LEO as of that fetch sets it to the fetch time; a fetch that reaches the LEO the
 * leader had at the *previous* fetch sets it to the previous fetch time. So a follower that keeps
 * up with a steady trickle of appends (always one fetch behind) stays in sync.
 *
 * Invariants: a follower's LEO is -1 (unknown) until it fetches in the current leadership; the
 * states are reset whenever this replica becomes leader (ISR members start "caught up now", so a
 * new leader does not shrink them before they had a chance to fetch). Event-loop only.
 */

export interface FollowerState {
  readonly brokerId: number
  /** -1n until the follower fetched in this leadership. */
  logEndOffset: bigint
  /** The log start offset its latest fetch reported; -1n until known (what DeleteRecords waits for). */
  logStartOffset: bigint
  lastCaughtUpTimeMs: number
  lastFetchTimeMs: number
  lastFetchLeaderLogEndOffset: bigint
}

export class FollowerTracker {
  private readonly states = new Map<number, FollowerState>()

  /** New leadership: one state per replica other than `self`. */
  reset(replicas: readonly number[], isr: readonly number[], self: number, nowMs: number): void {
    this.states.clear()
    for (const id of replicas) {
      if (id === self) continue
      this.states.set(id, {
        brokerId: id,
        logEndOffset: -1n,
        logStartOffset: -1n,
        lastCaughtUpTimeMs: isr.includes(id) ? nowMs : 0,
        lastFetchTimeMs: 0,
        lastFetchLeaderLogEndOffset: -1n,
      })
    }
  }

  clear(): void {
    this.states.clear()
  }

  get(brokerId: number): FollowerState | undefined {
    return this.states.get(brokerId)
  }

  all(): IterableIterator<FollowerState> {
    return this.states.values()
  }

  /**
   * Records a follower fetch at `fetchOffset` when the leader's LEO was `leaderLogEndOffset`;
   * `logStartOffset` is the follower's own, as its request reported it (-1n: not reported).
   */
  update(
    brokerId: number,
    fetchOffset: bigint,
    leaderLogEndOffset: bigint,
    nowMs: number,
    logStartOffset = -1n,
  ): FollowerState | undefined {
    const s = this.states.get(brokerId)
    if (s === undefined) return undefined
    if (fetchOffset >= leaderLogEndOffset) {
      s.lastCaughtUpTimeMs = Math.max(s.lastCaughtUpTimeMs, nowMs)
    } else if (fetchOffset >= s.lastFetchLeaderLogEndOffset && s.lastFetchLeaderLogEndOffset >= 0n) {
      s.lastCaughtUpTimeMs = Math.max(s.lastCaughtUpTimeMs, s.lastFetchTimeMs)
    }
    s.logEndOffset = fetchOffset
    if (logStartOffset >= 0n) s.logStartOffset = logStartOffset
    s.lastFetchLeaderLogEndOffset = leaderLogEndOffset
    s.lastFetchTimeMs = nowMs
    return s
  }

  /** Kafka's isCaughtUp: within `lagMaxMs` of having reached the leader's LEO. */
  isCaughtUp(brokerId: number, nowMs: number, lagMaxMs: number): boolean {
    const s = this.states.get(brokerId)
    return s !== undefined && nowMs - s.lastCaughtUpTimeMs <= lagMaxMs
  }
}
