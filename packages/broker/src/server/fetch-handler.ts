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
  const first = await readAll(ctx, req, true)
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
    let onAbort: (() => void) | undefined
    const handle = ctx.purgatory.park({
      keys,
      bytesNeeded: req.min_bytes - first.bytes,
      maxWaitMs: req.max_wait_ms,
      onComplete: (o) => {
        // The stream's signal lives as long as the stream: drop the listener with the request.
        if (onAbort !== undefined) signal.removeEventListener('abort', onAbort)
        resolve(o)
      },
    })
    if (!handle.done) {
      onAbort = () => handle.cancel()
      signal.addEventListener('abort', onAbort, { once: true })
    }
  })
  if (outcome === 'cancelled') return undefined // the stream closed or the broker is stopping
  return response(ctx, req, await readAll(ctx, req, false))
}

function response(ctx: BrokerContext, req: wire.FetchRequest__Output, outcome: ReadOutcome): wire.FetchResponse {
  const res = { correlation_id: req.correlation_id, ...NO_ERROR, topics: outcome.topics, throttle_time_ms: 0 }
  if (traceOn) traceFetchAnswered(ctx.brokerId, req, res)
  return res
}

async function readAll(ctx: BrokerContext, req: wire.FetchRequest__Output, firstRead: boolean): Promise<ReadOutcome> {
  let remaining = req.max_bytes > 0 ? Math.min(req.max_bytes, RESPONSE_BYTES_MAX) : RESPONSE_BYTES_MAX
  let bytes = 0
  let failed = false
  const topics: wire.TopicFetchResponse[] = []
  for (const t of req.topics) {
    const partitions: wire.PartitionFetchResponse[] = []
    for (const p of t.partitions) {
      const limit = Math.min(p.partition_max_bytes > 0 ? p.partition_max_bytes : PARTITION_BYTES_DEFAULT, remaining)
      const r = await readPartition(ctx, req, t.topic, p, limit, bytes === 0, firstRead)
      const size = r.records instanceof Buffer ? r.records.length : 0
      if ((r.error_code ?? 0) !== 0 || r.diverging_epoch != null) failed = true
      bytes += size
      remaining = Math.max(0, remaining - size)
      partitions.push(r)
    }
    topics.push({ topic: t.topic, partitions })
  }
  return { topics, bytes, failed }
}

async function readPartition(
  ctx: BrokerContext,
  req: wire.FetchRequest__Output,
  topic: string,
  p: wire.PartitionFetchData__Output,
  maxBytes: number,
  minOneBatch: boolean,
  firstRead: boolean,
): Promise<wire.PartitionFetchResponse> {
  const partition = p.partition
  const fail = (f: ErrorFields, offsets?: FetchOffsets): wire.PartitionFetchResponse =>
    partitionFetchFailure(partition, f, offsets)
  try {
    const replica = leaderReplica(ctx, topic, partition)
    if ('error_code' in replica) return fail(replica)
    if (req.replica_id >= 0)
      return await readForFollower(ctx, req, replica, p, { maxBytes, minOneBatch, recordPosition: firstRead })
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
    let records: Buffer = EMPTY
    if (offset < maxOffset) {
      const read = await replica.log.read(offset, maxBytes, { maxOffset, minOneBatch })
      records = read.records
    }
    return {
      partition,
      ...NO_ERROR,
      high_watermark: toInt64String(offsets.hw),
      last_stable_offset: toInt64String(offsets.hw),
      log_start_offset: toInt64String(offsets.lso),
      log_end_offset: toInt64String(offsets.leo),
      records,
      leader_epoch: replica.leaderEpoch,
    }
  } catch (err) {
    return fail(errorFieldsFrom(err, ctx.logger, { topic, partition, rpc: 'Fetch' }))
  }
}

/** A whole-request failure as a response (the per-partition reads never ran). */
export function fetchErrorResponse(req: wire.FetchRequest__Output, err: unknown): wire.FetchResponse {
  const e =
    err instanceof SluiceError ? err : new SluiceError('UNKNOWN_SERVER_ERROR', String((err as Error)?.message ?? err))
  return { correlation_id: req.correlation_id, ...errorFields(e.code, e.message), topics: [] }
}
