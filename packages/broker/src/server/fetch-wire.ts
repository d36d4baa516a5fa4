/**
 * The gRPC edge of the fetch operation (proto/sluice/v1/broker.proto FetchRequest ->
 * FetchResponse): the proto's int64 decimal strings become the operation's bigints on the way in
 * and strings again on the way out (fetch-types.ts says why the operation has its own types).
 */
import { int64FromText, toBigInt, toInt64String, type wire } from '@sluice/protocol'
import type { BrokerContext } from './context.js'
import { fetchFailure, handleFetch } from './fetch-handler.js'
import type { FetchAnswer, FetchAsk } from './fetch-types.js'

/**
 * The smallest int64: a broker epoch whose text is not a number (proto-loader never gives one)
 * stands for this, which every broker epoch the metadata knows fences.
 */
const UNREADABLE_EPOCH = -(2n ** 63n)

/** Serves one gRPC Fetch; undefined when the stream closed while it was parked. */
export async function handleWireFetch(
  ctx: BrokerContext,
  req: wire.FetchRequest__Output,
  signal: AbortSignal,
): Promise<wire.FetchResponse | undefined> {
  const ask = fetchAskFromWire(req)
  const answer = await handleFetch(ctx, ask, signal)
  if (answer === undefined) return undefined
  ctx.metrics?.fetchAnswered(ask.replicaId >= 0, answer)
  return fetchAnswerToWire(req.correlation_id, answer)
}

/** A whole-request failure as the gRPC answer. */
export function wireFetchFailure(req: wire.FetchRequest__Output, err: unknown): wire.FetchResponse {
  return fetchAnswerToWire(req.correlation_id, fetchFailure(err))
}

export function fetchAskFromWire(req: wire.FetchRequest__Output): FetchAsk {
  return {
    replicaId: req.replica_id,
    replicaEpoch: int64FromText(req.replica_epoch) ?? UNREADABLE_EPOCH,
    maxWaitMs: req.max_wait_ms,
    minBytes: req.min_bytes,
    maxBytes: req.max_bytes,
    topics: req.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => ({
        partition: p.partition,
        fetchOffset: toBigInt(p.fetch_offset),
        currentLeaderEpoch: p.current_leader_epoch,
        partitionMaxBytes: p.partition_max_bytes,
        lastFetchedEpoch: p.last_fetched_epoch,
        logStartOffset: p.log_start_offset === '' ? -1n : toBigInt(p.log_start_offset),
      })),
    })),
  }
}

export function fetchAnswerToWire(correlationId: string, a: FetchAnswer): wire.FetchResponse {
  return {
    correlation_id: correlationId,
    error_code: a.errorCode,
    error_message: a.errorMessage,
    throttle_time_ms: 0,
    topics: a.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => {
        const highWatermark = toInt64String(p.highWatermark)
        return {
          partition: p.partition,
          error_code: p.errorCode,
          error_message: p.errorMessage,
          high_watermark: highWatermark,
          // No transactions: the last stable offset is the high watermark.
          last_stable_offset: highWatermark,
          log_start_offset: toInt64String(p.logStartOffset),
          log_end_offset: toInt64String(p.logEndOffset),
          records: p.records,
          leader_epoch: p.leaderEpoch,
          diverging_epoch:
            p.divergingEpoch === undefined
              ? undefined
              : { epoch: p.divergingEpoch.epoch, end_offset: toInt64String(p.divergingEpoch.endOffset) },
        }
      }),
    })),
  }
}
