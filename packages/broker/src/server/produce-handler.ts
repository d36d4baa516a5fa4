/**
 * The produce operation (docs/design.md §2), served to the Kafka listener's Produce and the gRPC
 * Produce alike, in its own types (produce-types.ts: offsets as bigints; the gRPC edge converts).
 *
 * A request with acks outside -1, 0, 1 or with a transactional id fails every partition
 * (INVALID_REQUIRED_ACKS / TRANSACTIONAL_ID_AUTHORIZATION_FAILED). Otherwise per partition, in
 * this order: the topic-partition must be in the metadata cache and this
 * broker must lead it (leaderReplica: UNKNOWN_TOPIC_OR_PARTITION / NOT_LEADER_OR_FOLLOWER), every
 * batch must pass validateBatches (CORRUPT_MESSAGE / INVALID_BATCH), and client batches may not be
 * control batches (INVALID_RECORD). Then the partition's whole records field goes to
 * Partition.appendAsLeader, which checks the lease, min.insync.replicas for acks=-1, the batch
 * sizes (max.message.bytes, in the log) and the idempotent-producer sequence at the append's turn
 * (partition.ts lists which layer owns which check), and has the log stamp offsets and the leader
 * epoch in place. A partition that fails appends nothing; the other partitions of the request are
 * unaffected. A duplicate retry is answered with the original offsets and appends nothing.
 * Records are never decoded: only batch headers are read (and rewritten for LogAppendTime topics).
 */
import {
  CONTROL_MASK,
  OFF_ATTRIBUTES,
  OFF_CRC,
  OFF_MAX_TIMESTAMP,
  TIMESTAMP_TYPE_MASK,
  SluiceError,
  crc32c,
  traceHop,
  traceNow,
  traceOn,
  validateBatches,
  type BatchSpan,
} from '@sluice/protocol'
import type { LeaderAppendResult, Partition } from '../partition.js'
import {
  errorFields,
  errorFieldsFrom,
  leaderReplica,
  NO_ERROR,
  type BrokerContext,
  type ErrorFields,
} from './context.js'
import {
  producePartitionAnswer,
  type ProduceAnswer,
  type ProduceAsk,
  type ProducePartitionAnswer,
  type ProducePartitionAsk,
  type ProduceTopicAnswer,
} from './produce-types.js'
import { traceProduceAnswered } from './trace-points.js'

const VALID_ACKS = new Set([-1, 0, 1])
/** acks=-1 waits this long when the request names no timeout. */
const DEFAULT_ACKS_TIMEOUT_MS = 30_000
const NO_RECORDS = Buffer.alloc(0)

/**
 * Handles one request; resolves to undefined when no answer is due (acks=0).
 *
 * Written with callbacks, not async functions: each partition reports its answer once, and the
 * request resolves when the last one has. An acks=all partition's answer comes from the
 * high-watermark waiter, which runs inside the call that advanced the HW (hw-waiters.ts), so the
 * request resolves there and its answer is queued ahead of the work that fetch answer started,
 * instead of after five promise hops behind it (issue 16: "HW advanced -> produce answered").
 * The request and each partition are small objects with methods rather than a nest of closures
 * made per request (a new closure's first call goes through V8's lazy-compile stub).
 */
export function handleProduce(ctx: BrokerContext, ask: ProduceAsk): Promise<ProduceAnswer | undefined> {
  return new Promise((resolve, reject) => new ProduceRun(ctx, ask, resolve, reject).start())
}

/** A whole-request failure: every partition of `ask` with one error (undefined for acks=0). */
export function produceFailure(ask: ProduceAsk, err: unknown): ProduceAnswer | undefined {
  if (ask.acks === 0) return undefined
  const e =
    err instanceof SluiceError ? err : new SluiceError('UNKNOWN_SERVER_ERROR', String((err as Error)?.message ?? err))
  const f = errorFields(e.code, e.message)
  return {
    topics: ask.topicData.map((t) => ({
      topic: t.name,
      partitions: t.partitionData.map((p) => producePartitionAnswer(p.index, f)),
    })),
  }
}

/** One request: its partitions' answers, filled in as each reports. */
class ProduceRun {
  readonly topics: ProduceTopicAnswer[]
  private pending = 0

  constructor(
    readonly ctx: BrokerContext,
    readonly ask: ProduceAsk,
    private readonly resolve: (answer: ProduceAnswer | undefined) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    this.topics = new Array(ask.topicData.length)
  }

  start(): void {
    const { topicData } = this.ask
    for (let ti = 0; ti < topicData.length; ti++) {
      const t = topicData[ti]!
      this.pending += t.partitionData.length
      this.topics[ti] = { topic: t.name, partitions: new Array(t.partitionData.length) }
    }
    if (this.pending === 0) {
      this.finish()
      return
    }
    const refusal = requestRefusal(this.ask)
    for (let ti = 0; ti < topicData.length; ti++) {
      const t = topicData[ti]!
      for (let pi = 0; pi < t.partitionData.length; pi++) {
        const p = t.partitionData[pi]!
        if (refusal === undefined) new PartitionProduce(this, t.name, p, ti, pi).start()
        else this.answer(ti, pi, producePartitionAnswer(p.index, refusal))
      }
    }
  }

  answer(ti: number, pi: number, a: ProducePartitionAnswer): void {
    this.topics[ti]!.partitions[pi] = a
    if (--this.pending === 0) this.finish()
  }

  private finish(): void {
    try {
      this.ctx.metrics?.produceAnswered(this.topics)
      if (traceOn) traceProduceAnswered(this.ctx.brokerId, this.topics)
      this.resolve(this.ask.acks === 0 ? undefined : { topics: this.topics })
    } catch (err) {
      this.reject(err)
    }
  }
}

/**
 * What makes every partition of a request fail before any is looked at: acks outside -1, 0, 1,
 * and a transactional id (Sluice has no transactions yet; docs/decisions.md says why this code).
 */
function requestRefusal(ask: ProduceAsk): ErrorFields | undefined {
  if (!VALID_ACKS.has(ask.acks)) return errorFields('INVALID_REQUIRED_ACKS', `acks must be -1, 0 or 1, not ${ask.acks}`)
  if (ask.transactionalId !== null && ask.transactionalId !== '') {
    return errorFields(
      'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
      `transactional id "${ask.transactionalId}": transactions are not supported`,
    )
  }
  return undefined
}

/**
 * One partition of a request: validates and appends its batches, then answers (after the HW
 * wait for acks=all) exactly once, whatever path fails late.
 */
class PartitionProduce {
  private answered = false
  private readonly received = traceOn ? traceNow() : 0n
  private readonly partition: number
  private readonly records: Buffer
  private replica: Partition | undefined
  private result: LeaderAppendResult | undefined
  private logAppendTimeMs = -1n
  private minIsr = 1

  constructor(
    private readonly run: ProduceRun,
    private readonly topic: string,
    data: ProducePartitionAsk,
    private readonly ti: number,
    private readonly pi: number,
  ) {
    this.partition = data.index
    this.records = data.records ?? NO_RECORDS
  }

  start(): void {
    try {
      const { ctx, ask } = this.run
      const replica = leaderReplica(ctx, this.topic, this.partition)
      if ('error_code' in replica) {
        this.done(producePartitionAnswer(this.partition, replica))
        return
      }
      this.replica = replica
      const config = ctx.cache.topicConfig(this.topic)
      let spans = validateBatches(this.records)
      for (const span of spans) {
        if ((span.attributes & CONTROL_MASK) !== 0) {
          this.done(
            producePartitionAnswer(
              this.partition,
              errorFields('INVALID_RECORD', 'producers may not send control batches'),
            ),
          )
          return
        }
      }
      if (config['message.timestamp.type'] === 'LogAppendTime') {
        this.logAppendTimeMs = BigInt(Date.now())
        spans = stampLogAppendTime(this.records, spans, this.logAppendTimeMs)
      }
      this.minIsr = config['min.insync.replicas']
      const appended = replica.appendAsLeader(this.records, spans, ask.acks === -1, this.minIsr)
      if (appended instanceof Promise) {
        appended.then(
          (result) => this.appended(result, spans),
          (err: unknown) => this.failed(err),
        )
      } else this.appended(appended, spans)
    } catch (err) {
      this.failed(err)
    }
  }

  private appended(result: LeaderAppendResult, spans: readonly BatchSpan[]): void {
    try {
      const { ctx, ask } = this.run
      this.result = result
      if (result.duplicate !== true) {
        ctx.metrics?.produced(this.topic, this.records.length, spans)
        // The anatomy's first leader stamp, written once the append gave the batch its offsets
        // (Partition.appendAsLeader stamps append-done itself, before it answers the followers).
        if (traceOn) {
          const { firstOffset, lastOffset } = result
          traceHop(
            'leader-received',
            ctx.brokerId,
            this.topic,
            this.partition,
            firstOffset,
            lastOffset + 1n,
            this.received,
          )
        }
      }
      if (ask.acks !== -1) {
        this.done(this.success())
        return
      }
      const timeoutMs = ask.timeoutMs > 0 ? ask.timeoutMs : DEFAULT_ACKS_TIMEOUT_MS
      this.replica!.watchHighWatermark(result.lastOffset + 1n, timeoutMs, (err, isrSize) =>
        this.replicated(err, isrSize),
      )
    } catch (err) {
      this.failed(err)
    }
  }

  /**
   * acks=all: the HW passed the batch. Kafka's checkEnoughReplicasReachOffset: when the ISR shrank
   * below min.insync.replicas on the way, the records are in the log, and the answer says so.
   */
  private replicated(err: Error | undefined, isrSize: number): void {
    if (err !== undefined) this.failed(err)
    else if (isrSize < this.minIsr) {
      const message = `appended at ${this.result!.firstOffset}, but only ${isrSize} in-sync replicas remained (min.insync.replicas ${this.minIsr})`
      this.done(producePartitionAnswer(this.partition, errorFields('NOT_ENOUGH_REPLICAS_AFTER_APPEND', message)))
    } else this.done(this.success())
  }

  private success(): ProducePartitionAnswer {
    const result = this.result!
    // A deduplicated retry answers with the original append time (producer-state/).
    const appendTime =
      this.logAppendTimeMs >= 0n && result.duplicate === true ? result.maxTimestamp : this.logAppendTimeMs
    return producePartitionAnswer(
      this.partition,
      NO_ERROR,
      result.firstOffset,
      appendTime,
      this.replica!.logStartOffset,
    )
  }

  private failed(err: unknown): void {
    const f = errorFieldsFrom(err, this.run.ctx.logger, {
      topic: this.topic,
      partition: this.partition,
      rpc: 'Produce',
    })
    this.done(producePartitionAnswer(this.partition, f))
  }

  private done(a: ProducePartitionAnswer): void {
    if (this.answered) return
    this.answered = true
    this.run.answer(this.ti, this.pi, a)
  }
}

/**
 * LogAppendTime topics: the broker's clock replaces maxTimestamp and the timestamp-type bit is
 * set (Kafka does the same). Both are covered by the CRC, so it is recomputed; the records
 * themselves are untouched.
 */
function stampLogAppendTime(buf: Buffer, spans: readonly BatchSpan[], nowMs: bigint): BatchSpan[] {
  return spans.map((s) => {
    const attributes = s.attributes | TIMESTAMP_TYPE_MASK
    buf.writeInt16BE(attributes, s.position + OFF_ATTRIBUTES)
    buf.writeBigInt64BE(nowMs, s.position + OFF_MAX_TIMESTAMP)
    buf.writeUInt32BE(crc32c(buf.subarray(s.position + OFF_ATTRIBUTES, s.position + s.sizeBytes)), s.position + OFF_CRC)
    return { ...s, attributes, maxTimestamp: nowMs }
  })
}
