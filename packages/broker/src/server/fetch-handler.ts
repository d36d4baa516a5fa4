/**
 * The fetch operation (docs/design.md §2), served to the Kafka listener's Fetch and the gRPC
 * Fetch alike, in its own types (fetch-types.ts: offsets as bigints; each edge converts).
 *
 * Per partition: UNKNOWN_TOPIC_OR_PARTITION when not in the metadata cache,
 * NOT_LEADER_OR_FOLLOWER unless this broker leads it, FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH
 * when the request names another leader epoch, OFFSET_OUT_OF_RANGE (with log start, log end and
 * high watermark filled in) when fetchOffset is outside [logStartOffset, logEndOffset]; else
 * whole stored batches from log.read, never decoded. Consumers (replicaId < 0) read only below
 * the high watermark.
 *
 * Sizes (KIP-74): partitions are read in request order against the remaining maxBytes; the
 * first partition that returns data may exceed its limits by one whole batch, so a consumer can
 * always make progress.
 *
 * Long poll: when fewer than minBytes are available and nothing failed, the request parks in the
 * delayed-fetch purgatory until appends to its partitions bring enough bytes or maxWaitMs
 * passes, then reads again. Parking never blocks later requests on the same stream.
 *
 * Follower fetches (replicaId >= 0, replication): after the leader check, each partition is
 * served by replication/follower-fetch.ts (replica and epoch checks, divergence, the follower's
 * position for the ISR and HW, records up to the log end offset). They park on the partitions'
 * follower keys, which leader appends notify; a diverging answer is returned at once.
 */
import { SluiceError, traceOn } from '@sluice/protocol'
import { partitionKey } from '../metadata-cache.js'
import type { Partition } from '../partition.js'
import { followerFetchKey, readForFollower } from '../replication/follower-fetch.js'
import { onAbort } from './abort-hooks.js'
import {
  errorFields,
  errorFieldsFrom,
  leaderEpochMismatch,
  leaderReplica,
  NO_ERROR,
  type BrokerContext,
  type ErrorFields,
} from './context.js'
import {
  partitionAnswer,
  type FetchAnswer,
  type FetchAsk,
  type FetchOffsets,
  type FetchPartitionAnswer,
  type FetchPartitionAsk,
  type FetchTopicAnswer,
} from './fetch-types.js'
import { traceFetchAnswered, traceFetchReceived } from './trace-points.js'

/** A response must fit in one gRPC message (64 MiB); leave room for framing and headers. */
const RESPONSE_BYTES_MAX = 60 * 1024 * 1024
const PARTITION_BYTES_DEFAULT = 1024 * 1024
const EMPTY = Buffer.alloc(0)

interface ReadOutcome {
  readonly topics: FetchTopicAnswer[]
  readonly bytes: number
  readonly failed: boolean
}

export async function handleFetch(
  ctx: BrokerContext,
  req: FetchAsk,
  signal: AbortSignal,
): Promise<FetchAnswer | undefined> {
  if (traceOn) traceFetchReceived(req)
  const reading = readAll(ctx, req, true)
  // Awaited only when a read went to the thread pool: an await costs a microtask hop even on a value.
  const first = reading instanceof Promise ? await reading : reading
  if (first.failed || first.bytes >= req.minBytes || req.maxWaitMs <= 0 || signal.aborted) {
    return response(ctx, req, first)
  }
  const keys = parkKeys(req)
  if (keys.length === 0) return response(ctx, req, first)
  const outcome = await new Promise<string>((resolve) => {
    let stopListening: (() => void) | undefined
    const handle = ctx.purgatory.park({
      keys,
      bytesNeeded: req.minBytes - first.bytes,
      maxWaitMs: req.maxWaitMs,
      onComplete: (o) => {
        // The stream's signal lives as long as the stream: drop the callback with the request.
        stopListening?.()
        resolve(o)
      },
    })
    if (!handle.done) stopListening = onAbort(signal, () => handle.cancel())
  })
  if (outcome === 'cancelled') return undefined // the stream closed or the broker is stopping
  const again = readAll(ctx, req, false)
  return response(ctx, req, again instanceof Promise ? await again : again)
}

/** The purgatory keys a parked request waits on: its partitions' (follower keys for a follower). */
function parkKeys(req: FetchAsk): string[] {
  const keys: string[] = []
  const fromFollower = req.replicaId >= 0
  for (const t of req.topics) {
    for (const p of t.partitions) {
      const key = partitionKey(t.topic, p.partition)
      keys.push(fromFollower ? followerFetchKey(key) : key)
    }
  }
  return keys
}

function response(ctx: BrokerContext, req: FetchAsk, outcome: ReadOutcome): FetchAnswer {
  const res: FetchAnswer = { errorCode: 0, errorMessage: '', topics: outcome.topics }
  if (traceOn) traceFetchAnswered(ctx.brokerId, req, res)
  return res
}

/**
 * Reads every partition of the request in order; a promise only once some partition's read went
 * to the thread pool (readPartition), from which point the rest continue after it.
 */
function readAll(ctx: BrokerContext, req: FetchAsk, firstRead: boolean): ReadOutcome | Promise<ReadOutcome> {
  const topics: FetchTopicAnswer[] = new Array(req.topics.length)
  for (let i = 0; i < req.topics.length; i++) topics[i] = { topic: req.topics[i]!.topic, partitions: [] }
  const state: ReadState = {
    remaining: req.maxBytes > 0 ? Math.min(req.maxBytes, RESPONSE_BYTES_MAX) : RESPONSE_BYTES_MAX,
    bytes: 0,
    failed: false,
    topics,
  }
  return readFrom(ctx, req, firstRead, state, 0, 0)
}

interface ReadState {
  remaining: number
  bytes: number
  failed: boolean
  readonly topics: FetchTopicAnswer[]
}

function readFrom(
  ctx: BrokerContext,
  req: FetchAsk,
  firstRead: boolean,
  state: ReadState,
  topicIndex: number,
  partitionIndex: number,
): ReadOutcome | Promise<ReadOutcome> {
  for (let ti = topicIndex; ti < req.topics.length; ti++) {
    const t = req.topics[ti]!
    for (let pi = ti === topicIndex ? partitionIndex : 0; pi < t.partitions.length; pi++) {
      const p = t.partitions[pi]!
      const limit = Math.min(p.partitionMaxBytes > 0 ? p.partitionMaxBytes : PARTITION_BYTES_DEFAULT, state.remaining)
      const r = readPartition(ctx, req, t.topic, p, limit, state.bytes === 0, firstRead)
      if (r instanceof Promise)
        return r.then((answer) => {
          addAnswer(state, ti, answer)
          return readFrom(ctx, req, firstRead, state, ti, pi + 1)
        })
      addAnswer(state, ti, r)
    }
  }
  return { topics: state.topics, bytes: state.bytes, failed: state.failed }
}

function addAnswer(state: ReadState, topicIndex: number, r: FetchPartitionAnswer): void {
  const size = r.records.length
  if (r.errorCode !== 0 || r.divergingEpoch !== undefined) state.failed = true
  state.bytes += size
  state.remaining = Math.max(0, state.remaining - size)
  state.topics[topicIndex]!.partitions.push(r)
}

/** One partition's answer; a promise only when its records are not at the active segment's tail. */
function readPartition(
  ctx: BrokerContext,
  req: FetchAsk,
  topic: string,
  p: FetchPartitionAsk,
  maxBytes: number,
  minOneBatch: boolean,
  firstRead: boolean,
): FetchPartitionAnswer | Promise<FetchPartitionAnswer> {
  const partition = p.partition
  try {
    const replica = leaderReplica(ctx, topic, partition)
    if ('error_code' in replica) return partitionAnswer(partition, replica, undefined)
    if (req.replicaId >= 0) {
      const answer = readForFollower(ctx, req, replica, p, { maxBytes, minOneBatch, recordPosition: firstRead })
      return answer instanceof Promise
        ? answer.catch((err: unknown) => readFailure(ctx, topic, partition, err))
        : answer
    }
    const epochError = leaderEpochMismatch(replica, p.currentLeaderEpoch)
    if (epochError !== undefined) return partitionAnswer(partition, epochError, undefined)
    const offsets: FetchOffsets = { hw: replica.highWatermark, lso: replica.logStartOffset, leo: replica.logEndOffset }
    const offset = p.fetchOffset
    if (offset < offsets.lso || offset > offsets.leo) {
      return partitionAnswer(
        partition,
        errorFields(
          'OFFSET_OUT_OF_RANGE',
          `offset ${offset} is outside [${offsets.lso}, ${offsets.leo}] of ${topic}-${partition}`,
        ),
        offsets,
      )
    }
    // Consumers read below the high watermark only.
    const maxOffset = offsets.hw
    if (offset >= maxOffset) return consumerAnswer(partition, offsets, replica, EMPTY)
    const readOptions = { maxOffset, minOneBatch }
    const read = replica.log.readSync(offset, maxBytes, readOptions)
    if (read !== undefined) return consumerAnswer(partition, offsets, replica, read.records)
    return replica.log.read(offset, maxBytes, readOptions).then(
      (r) => consumerAnswer(partition, offsets, replica, r.records),
      (err: unknown) => readFailure(ctx, topic, partition, err),
    )
  } catch (err) {
    return readFailure(ctx, topic, partition, err)
  }
}

function consumerAnswer(
  partition: number,
  offsets: FetchOffsets,
  replica: Partition,
  records: Buffer,
): FetchPartitionAnswer {
  return partitionAnswer(partition, NO_ERROR, offsets, records, replica.leaderEpoch)
}

function readFailure(ctx: BrokerContext, topic: string, partition: number, err: unknown): FetchPartitionAnswer {
  const f: ErrorFields = errorFieldsFrom(err, ctx.logger, { topic, partition, rpc: 'Fetch' })
  return partitionAnswer(partition, f, undefined)
}

/** A whole-request failure as an answer (the per-partition reads never ran). */
export function fetchFailure(err: unknown): FetchAnswer {
  const e =
    err instanceof SluiceError ? err : new SluiceError('UNKNOWN_SERVER_ERROR', String((err as Error)?.message ?? err))
  const f = errorFields(e.code, e.message)
  return { errorCode: f.error_code, errorMessage: f.error_message, topics: [] }
}
