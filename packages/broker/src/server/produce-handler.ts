/**
 * Produce (proto/sluice/v1/broker.proto ProduceRequest -> ProduceResponse), docs/design.md §2.
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
  toInt64String,
  traceHop,
  traceNow,
  traceOn,
  validateBatches,
  type BatchSpan,
  type wire,
} from '@sluice/protocol'
import {
  errorFields,
  errorFieldsFrom,
  leaderReplica,
  NO_ERROR,
  type BrokerContext,
  type ErrorFields,
} from './context.js'
import { traceProduceAnswered } from './trace-points.js'

const VALID_ACKS = new Set([-1, 0, 1])
/** acks=-1 waits this long when the request names no timeout. */
const DEFAULT_ACKS_TIMEOUT_MS = 30_000

/**
 * Handles one request; resolves to undefined when no answer is due (acks=0).
 *
 * Written with callbacks, not async functions: each partition reports its answer through `done`,
 * and the request resolves when the last one has. An acks=all partition's answer comes from the
 * high-watermark waiter, which runs inside the call that advanced the HW (hw-waiters.ts), so the
 * request resolves there and its answer is queued ahead of the work that fetch answer started,
 * instead of after five promise hops behind it (issue 16: "HW advanced -> produce answered").
 */
export function handleProduce(
  ctx: BrokerContext,
  req: wire.ProduceRequest__Output,
): Promise<wire.ProduceResponse | undefined> {
  return new Promise((resolve, reject) => {
    const refusal = requestRefusal(req)
    let pending = 0
    const topics: wire.TopicProduceResponse[] = req.topics.map((t) => {
      pending += t.partitions.length
      return { topic: t.topic, partitions: new Array<wire.PartitionProduceResponse>(t.partitions.length) }
    })
    const finish = (): void => {
      try {
        ctx.metrics?.produceAnswered(topics)
        if (traceOn) traceProduceAnswered(ctx.brokerId, topics)
        resolve(req.acks === 0 ? undefined : { correlation_id: req.correlation_id, topics, throttle_time_ms: 0 })
      } catch (err) {
        reject(err)
      }
    }
    if (pending === 0) {
      finish()
      return
    }
    req.topics.forEach((t, ti) => {
      const answers = topics[ti]!.partitions!
      t.partitions.forEach((p, pi) => {
        const done = (r: wire.PartitionProduceResponse): void => {
          answers[pi] = r
          if (--pending === 0) finish()
        }
        if (refusal === undefined) producePartition(ctx, req, t.topic, p, once(done))
        else done(failedWith(p.partition, refusal))
      })
    })
  })
}

/** `f` called at most once: a partition answers exactly once whatever path fails late. */
function once<A>(f: (a: A) => void): (a: A) => void {
  let called = false
  return (a) => {
    if (called) return
    called = true
    f(a)
  }
}

/**
 * What makes every partition of a request fail before any is looked at: acks outside -1, 0, 1,
 * and a transactional id (Sluice has no transactions yet; docs/decisions.md says why this code).
 */
function requestRefusal(req: wire.ProduceRequest__Output): ErrorFields | undefined {
  if (!VALID_ACKS.has(req.acks)) return errorFields('INVALID_REQUIRED_ACKS', `acks must be -1, 0 or 1, not ${req.acks}`)
  if (req.transactional_id !== '') {
    return errorFields(
      'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
      `transactional id "${req.transactional_id}": transactions are not supported`,
    )
  }
  return undefined
}

/** Validates and appends one partition's batches; `done` gets its answer (after the HW wait for acks=all). */
function producePartition(
  ctx: BrokerContext,
  req: wire.ProduceRequest__Output,
  topic: string,
  data: wire.PartitionProduceData__Output,
  done: (r: wire.PartitionProduceResponse) => void,
): void {
  const partition = data.partition
  const received = traceOn ? traceNow() : 0n
  const fail = (err: unknown): void =>
    done(failedWith(partition, errorFieldsFrom(err, ctx.logger, { topic, partition, rpc: 'Produce' })))
  try {
    const replica = leaderReplica(ctx, topic, partition)
    if ('error_code' in replica) {
      done(failedWith(partition, replica))
      return
    }
    const config = ctx.cache.topicConfig(topic)
    let spans = validateBatches(data.records)
    for (const span of spans) {
      if ((span.attributes & CONTROL_MASK) !== 0) {
        done(failed(partition, 'INVALID_RECORD', 'producers may not send control batches'))
        return
      }
    }
    let logAppendTimeMs = -1n
    if (config['message.timestamp.type'] === 'LogAppendTime') {
      logAppendTimeMs = BigInt(Date.now())
      spans = stampLogAppendTime(data.records, spans, logAppendTimeMs)
    }
    const minIsr = config['min.insync.replicas']
    replica.appendAsLeader(data.records, spans, req.acks === -1, minIsr).then((result) => {
      try {
        if (result.duplicate !== true) ctx.metrics?.produced(topic, data.records.length, spans)
        if (traceOn) traceLeaderAppend(ctx.brokerId, topic, partition, result.firstOffset, result.lastOffset, received)
        const answer = (): wire.PartitionProduceResponse => ({
          partition,
          ...NO_ERROR,
          base_offset: toInt64String(result.firstOffset),
          // A deduplicated retry answers with the original append time (producer-state/).
          log_append_time_ms: toInt64String(
            logAppendTimeMs >= 0n && result.duplicate === true ? result.maxTimestamp : logAppendTimeMs,
          ),
          log_start_offset: toInt64String(replica.logStartOffset),
        })
        if (req.acks !== -1) {
          done(answer())
          return
        }
        const timeoutMs = req.timeout_ms > 0 ? req.timeout_ms : DEFAULT_ACKS_TIMEOUT_MS
        replica.watchHighWatermark(result.lastOffset + 1n, timeoutMs, (err, isrSize) => {
          // Kafka's checkEnoughReplicasReachOffset: the HW passed the batch, but only because the
          // ISR shrank below min.insync.replicas on the way. The records are in the log; say so.
          if (err !== undefined) fail(err)
          else if (isrSize < minIsr)
            done(
              failed(
                partition,
                'NOT_ENOUGH_REPLICAS_AFTER_APPEND',
                `appended at ${result.firstOffset}, but only ${isrSize} in-sync replicas remained (min.insync.replicas ${minIsr})`,
              ),
            )
          else done(answer())
        })
      } catch (err) {
        fail(err)
      }
    }, fail)
  } catch (err) {
    fail(err)
  }
}

/** The anatomy's two leader stamps, written once the append assigned the batch its offsets. */
function traceLeaderAppend(
  node: number,
  topic: string,
  partition: number,
  first: bigint,
  last: bigint,
  at: bigint,
): void {
  traceHop('leader-received', node, topic, partition, first, last + 1n, at)
  traceHop('append-done', node, topic, partition, first, last + 1n)
}

function failed(
  partition: number,
  code: Parameters<typeof errorFields>[0],
  message: string,
): wire.PartitionProduceResponse {
  return failedWith(partition, errorFields(code, message))
}

/** A partition's answer that appended nothing. */
function failedWith(partition: number, f: ErrorFields): wire.PartitionProduceResponse {
  return { partition, ...f, base_offset: '-1', log_append_time_ms: '-1', log_start_offset: '-1' }
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

/** A response naming every partition of `req` with one error (the request as a whole failed). */
export function produceErrorResponse(req: wire.ProduceRequest__Output, err: unknown): wire.ProduceResponse | undefined {
  if (req.acks === 0) return undefined
  const e =
    err instanceof SluiceError ? err : new SluiceError('UNKNOWN_SERVER_ERROR', String((err as Error)?.message ?? err))
  return {
    correlation_id: req.correlation_id,
    topics: req.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => failed(p.partition, e.code, e.message)),
    })),
  }
}
