/**
 * One partition's ISR change request to the controller (AlterPartition, KIP-497; docs/kafka-facts.md
 * §3.3). At most one is outstanding per partition.
 *
 * Safety rule: until the outcome is known, the proposed ISR counts towards the *maximal* ISR
 * (committed ∪ proposed), which is what the leader computes its high watermark from. An addition
 * may already be committed by the controller while the answer is lost, and a committed member can
 * be elected leader; counting it early is never less safe. So a proposal is dropped only when
 * - the controller answered with the committed state in this leader epoch (success), or
 * - it rejected the request as invalid (INVALID_REQUEST, or INELIGIBLE_REPLICA for a broker in
 *   controlled shutdown: the epochs matched, nothing was written), or
 * - a newer partition state (leader or partition epoch) arrived from the controller.
 * Any other outcome (transport error, stale broker epoch, fenced epoch) keeps the proposal and
 * re-sends it after a backoff; a newer state from the controller ends that loop.
 */
import { errorId, systemClock, type Clock, type Timer, type wire } from '@sluice/protocol'

export interface IsrChangeRequest {
  readonly newIsr: readonly number[]
  readonly leaderEpoch: number
  readonly partitionEpoch: number
}

export type AlterPartitionSender = (request: IsrChangeRequest) => Promise<wire.AlterPartitionResponse__Output>

export interface PendingIsrChangeOptions {
  readonly send: AlterPartitionSender
  readonly retryBackoffMs: number
  /** The controller committed `state` (same leader epoch as the proposal). */
  readonly onCommitted: (state: wire.PartitionState__Output) => void
  /** The proposal was dropped without a commit reaching us. */
  readonly onDropped: (reason: string) => void
  readonly onSendError: (err: unknown) => void
  /** The partition's current leader and partition epochs (a failed answer checks them). */
  readonly current: () => { leaderEpoch: number; partitionEpoch: number }
  /** Times the retry backoff (default: systemClock). */
  readonly clock?: Clock
}

interface Proposal {
  readonly newIsr: readonly number[]
  readonly leaderEpoch: number
  readonly partitionEpoch: number
  inFlight: boolean
}

const REJECTED = new Set([errorId('INVALID_REQUEST'), errorId('INELIGIBLE_REPLICA')])

export class PendingIsrChange {
  private proposal: Proposal | undefined
  private retryTimer: Timer | undefined
  private readonly clock: Clock

  constructor(private readonly options: PendingIsrChangeOptions) {
    this.clock = options.clock ?? systemClock
  }

  get active(): boolean {
    return this.proposal !== undefined
  }

  /** committed ∪ proposed (the ISR the high watermark is computed from). */
  maximal(committed: readonly number[]): readonly number[] {
    const p = this.proposal
    if (p === undefined) return committed
    const extra = p.newIsr.filter((id) => !committed.includes(id))
    return extra.length === 0 ? committed : [...committed, ...extra]
  }

  /** Starts a change unless one is outstanding; returns whether it started. */
  propose(request: IsrChangeRequest): boolean {
    if (this.proposal !== undefined) return false
    this.proposal = { ...request, newIsr: [...request.newIsr], inFlight: false }
    this.attempt()
    return true
  }

  /** A state from the controller: a newer leader or partition epoch supersedes the proposal. */
  onState(leaderEpoch: number, partitionEpoch: number): void {
    const p = this.proposal
    if (p === undefined || p.inFlight) return // the answer decides; see the response handler
    if (leaderEpoch !== p.leaderEpoch || partitionEpoch !== p.partitionEpoch)
      this.drop('a newer partition state arrived')
  }

  /** Leadership ended or the replica closed: forget the proposal (its answer is ignored). */
  cancel(): void {
    this.proposal = undefined
    this.retryTimer?.cancel()
    this.retryTimer = undefined
  }

  private drop(reason: string): void {
    this.cancel()
    this.options.onDropped(reason)
  }

  private attempt(): void {
    const p = this.proposal
    if (p === undefined) return
    p.inFlight = true
    this.options.send({ newIsr: p.newIsr, leaderEpoch: p.leaderEpoch, partitionEpoch: p.partitionEpoch }).then(
      (res) => {
        if (this.proposal !== p) return
        p.inFlight = false
        if (res.error_code === 0 && res.state != null && res.state.leader_epoch === p.leaderEpoch) {
          this.cancel()
          this.options.onCommitted(res.state)
        } else if (REJECTED.has(res.error_code)) {
          this.drop(`the controller rejected the ISR ${JSON.stringify(p.newIsr)}: ${res.error_message}`)
        } else {
          this.retryUnlessSuperseded(p)
        }
      },
      (err: unknown) => {
        if (this.proposal !== p) return
        p.inFlight = false
        this.options.onSendError(err)
        this.retryUnlessSuperseded(p)
      },
    )
  }

  /** A newer state that arrived while the request was in flight ends the proposal; else retry. */
  private retryUnlessSuperseded(p: Proposal): void {
    const cur = this.options.current()
    if (cur.leaderEpoch !== p.leaderEpoch || cur.partitionEpoch !== p.partitionEpoch) {
      this.drop('a newer partition state arrived while the request was in flight')
    } else {
      this.scheduleRetry()
    }
  }

  private scheduleRetry(): void {
    this.retryTimer?.cancel()
    this.retryTimer = this.clock
      .setTimeout(() => {
        this.retryTimer = undefined
        this.attempt()
      }, this.options.retryBackoffMs)
      .unref()
  }
}
