/**
 * Fetch (proto/sluice/v1/broker.proto FetchRequest -> FetchResponse), docs/design.md §2.
 *
 * Per partition: UNKNOWN_TOPIC_OR_PARTITION when not in the metadata cache,
 * NOT_LEADER_OR_FOLLOWER unless this broker leads it, FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH
 * when the request names another leader epoch, OFFSET_OUT_OF_RANGE (with log start, log end and
 * high watermark filled in) when fetch_offset is outside [logStartOffset, logEndOffset]; else
 * whole stored batches from log.read, never decoded. Consumers (replica_id < 0) read only below
 * the high watermark.
 *
 * Sizes (KIP-74): partitions are read in request order against the remaining max_bytes; the
 * first partition that returns data may exceed its limits by one whole batch, so a consumer can
 * always make progress.
 *
 * Long poll: when fewer than min_bytes are available and nothing failed, the request parks in the
 * delayed-fetch purgatory until appends to its partitions bring enough bytes or max_wait_ms
 * passes, then reads again. Parking never blocks later requests on the same stream.
 *
 * Follower fetches (replica_id >= 0, replication): after the leader check, each partition is
 * served by replication/follower-fetch.ts (replica and epoch checks, divergence, the follower's
 * position for the ISR and HW, records up to the log end offset). They park on the partitions'
 * follower keys, which leader appends notify; a diverging answer is returned at once.
 */
import { SluiceError, toBigInt, toInt64String, traceOn, type wire } from '@sluice/protocol'
import { partitionKey } from '../metadata-cache.js'
import { followerFetchKey, readForFollower } from '../replication/follower-fetch.js'
import { onAbort } from './abort-hooks.js'
import {
  errorFields,
  errorFieldsFrom,
  leaderEpochMismatch,
  leaderReplica,
  NO_ERROR,
  partitionFetchFailure,
  type BrokerContext,
  type ErrorFields,
  type FetchOffsets,
} from './context.js'
import { traceFetchAnswered, traceFetchReceived } from './trace-points.js'

/** A response must fit in one gRPC message (64 MiB); leave room for framing and headers. */
const RESPONSE_BYTES_MAX = 60 * 1024 * 1024
const PARTITION_BYTES_DEFAULT = 1024 * 1024
const EMPTY = Buffer.alloc(0)

interface ReadOutcome {
  readonly topics: wire.TopicFetchResponse[]
  readonly bytes: number
  readonly failed: boolean
}

export async function handleFetch(
  ctx: BrokerContext,
  req: wire.FetchRequest__Output,
  signal: AbortSignal,
): Promise<wire.FetchResponse | undefined> {
  if (traceOn) traceFetchReceived(req)
  const reading = readAll(ctx, req, true)
  // Awaited only when a read went to the thread pool: an await costs a microtask hop even on a value.
  const first = reading instanceof Promise ? await reading : reading
  const fromFollower = req.replica_id >= 0
  const keys = req.topics.flatMap((t) =>
    t.partitions.map((p) => {
      const key = partitionKey(t.topic, p.partition)
      return fromFollower ? followerFetchKey(key) : key
    }),
  )
  if (first.failed || first.bytes >= req.min_bytes || req.max_wait_ms <= 0 || keys.length === 0 || signal.aborted) {
    return response(ctx, req, first)
  }
  const outcome = await new Promise<string>((resolve) => {
    let stopListening: (() => void) | undefined
    const handle = ctx.purgatory.park({
      keys,
      bytesNeeded: req.min_bytes - first.bytes,
      maxWaitMs: req.max_wait_ms,
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

function response(ctx: BrokerContext, req: wire.FetchRequest__Output, outcome: ReadOutcome): wire.FetchResponse {
  const res = { correlation_id: req.correlation_id, ...NO_ERROR, topics: outcome.topics, throttle_time_ms: 0 }
  if (traceOn) traceFetchAnswered(ctx.brokerId, req, res)
  return res
}

/**
 * Reads every partition of the request in order; a promise only once some partition's read went
 * to the thread pool (readPartition), from which point the rest continue after it.
 */
function readAll(
  ctx: BrokerContext,
  req: wire.FetchRequest__Output,
  firstRead: boolean,
): ReadOutcome | Promise<ReadOutcome> {
  const state: ReadState = {
    remaining: req.max_bytes > 0 ? Math.min(req.max_bytes, RESPONSE_BYTES_MAX) : RESPONSE_BYTES_MAX,
    bytes: 0,
    failed: false,
    topics: req.topics.map((t) => ({ topic: t.topic, partitions: [] })),
  }
  return readFrom(ctx, req, firstRead, state, 0, 0)
}

interface ReadState {
  remaining: number
  bytes: number
  failed: boolean
  readonly topics: Array<{ topic: string; partitions: wire.PartitionFetchResponse[] }>
}

function readFrom(
  ctx: BrokerContext,
  req: wire.FetchRequest__Output,
  firstRead: boolean,
  state: ReadState,
  topicIndex: number,
  partitionIndex: number,
): ReadOutcome | Promise<ReadOutcome> {
  for (let ti = topicIndex; ti < req.topics.length; ti++) {
    const t = req.topics[ti]!
    for (let pi = ti === topicIndex ? partitionIndex : 0; pi < t.partitions.length; pi++) {
      const p = t.partitions[pi]!
      const limit = Math.min(
        p.partition_max_bytes > 0 ? p.partition_max_bytes : PARTITION_BYTES_DEFAULT,
        state.remaining,
      )
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

function addAnswer(state: ReadState, topicIndex: number, r: wire.PartitionFetchResponse): void {
  const size = r.records instanceof Buffer ? r.records.length : 0
  if ((r.error_code ?? 0) !== 0 || r.diverging_epoch != null) state.failed = true
  state.bytes += size
  state.remaining = Math.max(0, state.remaining - size)
  state.topics[topicIndex]!.partitions.push(r)
}

/** One partition's answer; a promise only when its records are not at the active segment's tail. */
function readPartition(
  ctx: BrokerContext,
  req: wire.FetchRequest__Output,
  topic: string,
  p: wire.PartitionFetchData__Output,
  maxBytes: number,
  minOneBatch: boolean,
  firstRead: boolean,
): wire.PartitionFetchResponse | Promise<wire.PartitionFetchResponse> {
  const partition = p.partition
  const fail = (f: ErrorFields, offsets?: FetchOffsets): wire.PartitionFetchResponse =>
    partitionFetchFailure(partition, f, offsets)
  const failWith = (err: unknown): wire.PartitionFetchResponse =>
    fail(errorFieldsFrom(err, ctx.logger, { topic, partition, rpc: 'Fetch' }))
  try {
    const replica = leaderReplica(ctx, topic, partition)
    if ('error_code' in replica) return fail(replica)
    if (req.replica_id >= 0) {
      const answer = readForFollower(ctx, req, replica, p, { maxBytes, minOneBatch, recordPosition: firstRead })
      return answer instanceof Promise ? answer.catch(failWith) : answer
    }
    const epochError = leaderEpochMismatch(replica, p.current_leader_epoch)
    if (epochError !== undefined) return fail(epochError)
    const offsets = { hw: replica.highWatermark, lso: replica.logStartOffset, leo: replica.logEndOffset }
    const offset = toBigInt(p.fetch_offset)
    if (offset < offsets.lso || offset > offsets.leo) {
      return fail(
        errorFields(
          'OFFSET_OUT_OF_RANGE',
          `offset ${offset} is outside [${offsets.lso}, ${offsets.leo}] of ${topic}-${partition}`,
        ),
        offsets,
      )
    }
    const maxOffset = offsets.hw
    const answer = (records: Buffer): wire.PartitionFetchResponse => ({
      partition,
      ...NO_ERROR,
      high_watermark: toInt64String(offsets.hw),
      last_stable_offset: toInt64String(offsets.hw),
      log_start_offset: toInt64String(offsets.lso),
      log_end_offset: toInt64String(offsets.leo),
      records,
      leader_epoch: replica.leaderEpoch,
    })
    if (offset >= maxOffset) return answer(EMPTY)
    const readOptions = { maxOffset, minOneBatch }
    const read = replica.log.readSync(offset, maxBytes, readOptions)
    if (read !== undefined) return answer(read.records)
    return replica.log.read(offset, maxBytes, readOptions).then((r) => answer(r.records), failWith)
  } catch (err) {
    return failWith(err)
  }
}

/** A whole-request failure as a response (the per-partition reads never ran). */
export function fetchErrorResponse(req: wire.FetchRequest__Output, err: unknown): wire.FetchResponse {
  const e =
    err instanceof SluiceError ? err : new SluiceError('UNKNOWN_SERVER_ERROR', String((err as Error)?.message ?? err))
  return { correlation_id: req.correlation_id, ...errorFields(e.code, e.message), topics: [] }
}
