/**
 * One replica fetcher per source broker (docs/kafka-facts.md §3.2): it follows every partition this
 * broker replicates from that leader, in one long-poll Fetch request at a time
 * (replicaId = own broker id, replicaEpoch = broker epoch, currentLeaderEpoch and
 * lastFetchedEpoch per partition) on one long-lived connection to the leader.
 *
 * Per partition of a response: records are appended unchanged (appendAsFollower) and the
 * follower's HW becomes min(leader HW, own LEO); a divergingEpoch answer truncates the log
 * (divergence.ts) and the next request fetches again from there; errors put the partition in a
 * short backoff (a metadata update re-adds it with its new leader and epoch, which clears it).
 * A response is applied to a partition only if it is still followed in the same leader epoch
 * and its log end offset is still the offset that was fetched.
 *
 * The connection is a transport (replica-fetch-transport.ts: Kafka's Fetch over TCP, or the
 * gRPC Fetch stream); this loop is the same for both. It asks and reads answers with bigint
 * offsets (follower-fetch-types.ts), which the Kafka transport sends and answers as they are
 * (no text on the default path, issue 16). The connection is (re)opened to the leader's endpoint
 * (replicaConnectOverrides first, else the advertised address of the transport) and reopened
 * with a jittered backoff after any failure, or when the endpoint changes. Event-loop only;
 * `stop()` ends the loop and the connection.
 * The backoffs and the partition retry times are on the fetcher's clock; the response timeout
 * (a dead-connection guard, like a gRPC deadline) stays on Node's timers.
 */
import type { Logger } from 'pino'
import { errorId, errorNameFromId, systemClock, traceOn, type Clock } from '@sluice/protocol'
import { partitionKey } from '../metadata-cache.js'
import type { Partition } from '../partition.js'
import { traceFollowerResponse } from '../server/trace-points.js'
import { truncationFor } from './divergence.js'
import type {
  FollowerFetchAnswer,
  FollowerFetchPartition,
  FollowerFetchPartitionAnswer,
  FollowerFetchRequest,
  FollowerFetchTopic,
} from './follower-fetch-types.js'
import {
  endpointKey,
  type ReplicaEndpoint,
  type ReplicaFetchConnection,
  type ReplicaFetchConnector,
  type ReplicaFetchTransportKind,
} from './replica-fetch-transport.js'

export interface ReplicaFetcherOptions {
  readonly brokerId: number
  readonly sourceBrokerId: number
  /** Where and how to reach the source broker now, or undefined when it is not known (not live). */
  readonly resolveEndpoint: () => ReplicaEndpoint | undefined
  /** Opens a connection of the endpoint's transport (replica-fetch-transport.ts). */
  readonly connect: ReplicaFetchConnector
  /** This broker's current epoch, undefined while it is not registered. */
  readonly brokerEpoch: () => bigint | undefined
  readonly waitMaxMs: number
  readonly minBytes: number
  readonly maxBytesPerPartition: number
  readonly logger: Logger
  /** Times the reconnect and partition backoffs (default systemClock). */
  readonly clock?: Clock
  /** Beyond waitMaxMs, how long an answer may take before the connection is presumed dead (default 15 s). */
  readonly responseGraceMs?: number
}

interface Followed {
  readonly replica: Partition
  readonly leaderEpoch: number
  retryAtMs: number
}

/** A partition of the fetch in flight: who asked, from which offset. */
interface Sent {
  readonly f: Followed
  readonly offset: bigint
}

const RESPONSE_MAX_BYTES = 10 * 1024 * 1024
const BACKOFF_MIN_MS = 50
const BACKOFF_MAX_MS = 1000
const PARTITION_BACKOFF_MS = 200
/** Beyond the long-poll wait: how long an answer may take before the connection is presumed dead. */
const RESPONSE_GRACE_MS = 15_000
const OFFSET_OUT_OF_RANGE = errorId('OFFSET_OUT_OF_RANGE')

export class ReplicaFetcher {
  private readonly followed = new Map<string, Followed>()
  private stopped = false
  private wakeUp: (() => void) | undefined
  private connection: ReplicaFetchConnection | undefined
  private connectionKey: string | undefined
  private connectionTransport: ReplicaFetchTransportKind | undefined
  private nextCorrelationId = 1n
  private responseTimer: NodeJS.Timeout | undefined
  private onResponseTimeout: (() => void) | undefined
  private readonly loop: Promise<void>
  private readonly clock: Clock
  private readonly clientId: string

  constructor(private readonly options: ReplicaFetcherOptions) {
    this.clock = options.clock ?? systemClock
    this.clientId = `replica-fetcher-${options.brokerId}-${options.sourceBrokerId}`
    this.loop = this.run()
  }

  get size(): number {
    return this.followed.size
  }

  /** The transport of the open connection, if one is open. @internal visible for testing */
  get connectedVia(): ReplicaFetchTransportKind | undefined {
    return this.connection === undefined ? undefined : this.connectionTransport
  }

  /** Follows `replica` from this source in `leaderEpoch` (replacing an earlier entry). */
  add(replica: Partition, leaderEpoch: number): void {
    this.followed.set(replica.key, { replica, leaderEpoch, retryAtMs: 0 })
    this.wake()
  }

  remove(key: string): void {
    this.followed.delete(key)
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.wake()
    this.closeConnection(new Error('fetcher stopped'))
    await this.loop
    clearTimeout(this.responseTimer)
  }

  private wake(): void {
    const w = this.wakeUp
    this.wakeUp = undefined
    w?.()
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(() => {
        this.wakeUp = undefined
        resolve()
      }, ms)
      this.wakeUp = () => {
        timer.cancel()
        resolve()
      }
    })
  }

  private async run(): Promise<void> {
    let backoffMs = BACKOFF_MIN_MS
    while (!this.stopped) {
      const endpoint = this.options.resolveEndpoint()
      const epoch = this.options.brokerEpoch()
      const request = epoch === undefined ? undefined : this.buildRequest(epoch)
      if (endpoint === undefined || request === undefined) {
        await this.sleep(endpoint === undefined || epoch === undefined ? backoffMs : this.idleWaitMs())
        continue
      }
      let response: FollowerFetchAnswer
      try {
        response = await this.exchange(endpoint, request.message)
        if (traceOn) traceFollowerResponse(this.options.brokerId, response)
      } catch (err) {
        if (this.stopped) break
        this.options.logger.debug(
          { err, source: this.options.sourceBrokerId, endpoint },
          'replica fetch failed; reconnecting',
        )
        this.closeConnection(err as Error)
        await this.sleep(backoffMs * (0.5 + Math.random() / 2))
        backoffMs = Math.min(BACKOFF_MAX_MS, backoffMs * 2)
        continue
      }
      backoffMs = BACKOFF_MIN_MS
      // A promise only when some partition's apply had to wait (a queued or large write).
      const applying = this.apply(request.sent, response)
      if (applying !== undefined) await applying
    }
    this.closeConnection(new Error('fetcher stopped'))
  }

  /** Until the earliest partition backoff ends (or a wake-up). */
  private idleWaitMs(): number {
    const now = this.clock.nowMs()
    let earliest = Infinity
    for (const f of this.followed.values()) earliest = Math.min(earliest, f.retryAtMs - now)
    return Math.max(10, Math.min(earliest === Infinity ? 1000 : earliest, 1000))
  }

  private buildRequest(brokerEpoch: bigint): { message: FollowerFetchRequest; sent: Map<string, Sent> } | undefined {
    const now = this.clock.nowMs()
    const byTopic = new Map<string, FollowerFetchPartition[]>()
    const sent = new Map<string, Sent>()
    for (const [key, f] of this.followed) {
      if (f.retryAtMs > now) continue
      const r = f.replica
      const offset = r.logEndOffset
      let list = byTopic.get(r.topic)
      if (list === undefined) {
        list = []
        byTopic.set(r.topic, list)
      }
      list.push({
        partition: r.partition,
        currentLeaderEpoch: f.leaderEpoch,
        fetchOffset: offset,
        lastFetchedEpoch: r.lastFetchedEpoch,
        logStartOffset: r.logStartOffset,
        partitionMaxBytes: this.options.maxBytesPerPartition,
      })
      sent.set(key, { f, offset })
    }
    if (sent.size === 0) return undefined
    const topics: FollowerFetchTopic[] = []
    for (const [topic, partitions] of byTopic) topics.push({ topic, partitions })
    return {
      sent,
      message: {
        correlationId: this.nextCorrelationId++,
        replicaId: this.options.brokerId,
        replicaEpoch: brokerEpoch,
        maxWaitMs: this.options.waitMaxMs,
        minBytes: this.options.minBytes,
        maxBytes: RESPONSE_MAX_BYTES,
        clientId: this.clientId,
        topics,
      },
    }
  }

  /** One fetch on the connection to `endpoint` (opened first if there is none, or it is to elsewhere). */
  private exchange(endpoint: ReplicaEndpoint, message: FollowerFetchRequest): Promise<FollowerFetchAnswer> {
    const connection = this.openConnection(endpoint)
    return new Promise((resolve, reject) => {
      const deadline = this.armResponseTimer(reject)
      // Only this fetch's own deadline is disarmed: a late answer must not disarm the next one's.
      const disarm = (): void => {
        if (this.onResponseTimeout === deadline) this.onResponseTimeout = undefined
      }
      connection.fetch(message).then(
        (r) => {
          disarm()
          resolve(r)
        },
        (e: unknown) => {
          disarm()
          reject(e as Error)
        },
      )
    })
  }

  /**
   * The deadline of the fetch in flight (one at a time): a single timer re-armed with refresh()
   * per fetch instead of a timer made and cleared for each, hundreds a second (issue 16). When it
   * fires with nothing in flight it does nothing; stop() clears it.
   */
  private armResponseTimer(reject: (e: Error) => void): () => void {
    const timeoutMs = this.options.waitMaxMs + (this.options.responseGraceMs ?? RESPONSE_GRACE_MS)
    const deadline = (): void => reject(new Error(`no fetch response within ${timeoutMs} ms`))
    this.onResponseTimeout = deadline
    if (this.responseTimer === undefined) {
      this.responseTimer = setTimeout(() => {
        const timedOut = this.onResponseTimeout
        this.onResponseTimeout = undefined
        timedOut?.()
      }, timeoutMs)
      this.responseTimer.unref() // never what keeps a process alive
    } else {
      this.responseTimer.refresh()
    }
    return deadline
  }

  private openConnection(endpoint: ReplicaEndpoint): ReplicaFetchConnection {
    const key = endpointKey(endpoint)
    if (this.connection !== undefined && this.connectionKey === key) return this.connection
    this.closeConnection(new Error('reconnecting'))
    this.connection = this.options.connect(endpoint)
    this.connectionKey = key
    this.connectionTransport = endpoint.transport
    return this.connection
  }

  private closeConnection(err: Error): void {
    const connection = this.connection
    this.connection = undefined
    this.connectionKey = undefined
    connection?.close(err)
  }

  /** Applies the answer's partitions; a promise only when one of them had to wait. */
  private apply(sent: Map<string, Sent>, response: FollowerFetchAnswer): Promise<void> | undefined {
    if (response.errorCode !== 0) {
      this.options.logger.warn(
        {
          source: this.options.sourceBrokerId,
          error: errorNameFromId(response.errorCode),
          message: response.errorMessage,
        },
        'replica fetch refused',
      )
      for (const { f } of sent.values()) f.retryAtMs = this.clock.nowMs() + PARTITION_BACKOFF_MS
      return undefined
    }
    let waits: Array<Promise<void>> | undefined
    for (const t of response.topics) {
      for (const p of t.partitions) {
        const key = partitionKey(t.topic, p.partition)
        const entry = sent.get(key)
        if (entry === undefined || this.followed.get(key) !== entry.f) continue // no longer followed from here
        if (entry.f.replica.logEndOffset !== entry.offset) continue
        const waiting = this.applyOrRetry(entry, t.topic, p)
        if (waiting === undefined) continue
        if (waits === undefined) waits = []
        waits.push(waiting)
      }
    }
    if (waits === undefined) return undefined
    return waits.length === 1 ? waits[0] : Promise.all(waits).then(() => undefined)
  }

  /**
   * Applies one partition's answer; when that fails, the partition backs off and is fetched
   * again. A promise only when the apply had to wait.
   */
  private applyOrRetry(entry: Sent, topic: string, p: FollowerFetchPartitionAnswer): Promise<void> | undefined {
    try {
      const waiting = this.applyPartition(entry.f, entry.offset, p)
      return waiting?.catch((err: unknown) => this.retryLater(entry, topic, p.partition, err))
    } catch (err) {
      this.retryLater(entry, topic, p.partition, err)
      return undefined
    }
  }

  private retryLater(entry: Sent, topic: string, partition: number, err: unknown): void {
    entry.f.retryAtMs = this.clock.nowMs() + PARTITION_BACKOFF_MS
    this.options.logger.warn({ err, topic, partition }, 'could not apply fetched data; will fetch again')
  }

  /**
   * Records appended, the follower's HW and log start moved: at once when the log takes the
   * append at once (Partition.appendAsFollower), else a promise. Errors and divergence go to
   * applyAnswerOfNote.
   */
  private applyPartition(f: Followed, fetchOffset: bigint, p: FollowerFetchPartitionAnswer): Promise<void> | undefined {
    if (p.errorCode !== 0 || p.divergingEpoch !== undefined) return this.applyAnswerOfNote(f, fetchOffset, p)
    const r = f.replica
    const appended = p.records.length > 0 ? r.appendAsFollower(p.records, f.leaderEpoch) : undefined
    if (appended instanceof Promise) return appended.then(() => this.afterAppend(f, p))
    return this.afterAppend(f, p)
  }

  private afterAppend(f: Followed, p: FollowerFetchPartitionAnswer): Promise<void> | undefined {
    const r = f.replica
    r.updateFollowerHighWatermark(p.highWatermark)
    return p.logStartOffset > r.logStartOffset ? r.followLeaderLogStart(p.logStartOffset, f.leaderEpoch) : undefined
  }

  /** A partition error or a diverging epoch: truncate, start over at the leader's start, or back off. */
  private async applyAnswerOfNote(f: Followed, fetchOffset: bigint, p: FollowerFetchPartitionAnswer): Promise<void> {
    const r = f.replica
    if (p.errorCode !== 0) {
      const leaderEnd = leaderEndOf(p)
      if (p.errorCode === OFFSET_OUT_OF_RANGE && leaderEnd >= 0n && fetchOffset > leaderEnd) {
        // Only reachable without an epoch to compare (an empty epoch cache): Kafka truncates to the leader's end.
        await r.truncateTo(leaderEnd, f.leaderEpoch)
        return
      }
      if (p.errorCode === OFFSET_OUT_OF_RANGE && fetchOffset < p.logStartOffset) {
        // Behind the leader's retention: what is missing is gone; start over at the leader's start.
        this.options.logger.warn(
          {
            topic: r.topic,
            partition: r.partition,
            fetchOffset: String(fetchOffset),
            leaderLogStart: String(p.logStartOffset),
          },
          "follower fell behind the leader's log start offset; restarting its log there",
        )
        await r.followLeaderLogStart(p.logStartOffset, f.leaderEpoch)
        return
      }
      f.retryAtMs = this.clock.nowMs() + PARTITION_BACKOFF_MS
      this.options.logger.debug(
        { topic: r.topic, partition: r.partition, error: errorNameFromId(p.errorCode), message: p.errorMessage },
        'replica fetch error for a partition',
      )
      return
    }
    const diverging = p.divergingEpoch!
    const plan = truncationFor(
      {
        endOffsetForEpoch: (e) => r.log.endOffsetForEpoch(e),
        logEndOffset: r.logEndOffset,
        highWatermark: r.highWatermark,
      },
      diverging,
    )
    this.options.logger.info(
      {
        topic: r.topic,
        partition: r.partition,
        diverging: { epoch: diverging.epoch, endOffset: String(diverging.endOffset) },
        truncateTo: String(plan.offset),
        logEndOffset: String(r.logEndOffset),
      },
      'follower log diverged from the leader; truncating',
    )
    if (plan.offset >= r.logEndOffset) f.retryAtMs = this.clock.nowMs() + PARTITION_BACKOFF_MS // no progress possible: do not spin
    await r.truncateTo(plan.offset, f.leaderEpoch)
  }
}

/**
 * Where the leader's log ends, as far as the answer tells: its log end offset (the gRPC answer
 * carries it), else its high watermark (Kafka's Fetch answer has no log end offset, and the high
 * watermark is never past it, so truncating there is safe; the records between it and the
 * leader's end are fetched again). -1 when neither is known.
 */
function leaderEndOf(p: FollowerFetchPartitionAnswer): bigint {
  return p.logEndOffset >= 0n ? p.logEndOffset : p.highWatermark
}
