/**
 * Kafka Fetch v4-15 over the broker's fetch operation (server/fetch-handler.ts): the long poll
 * (maxWaitMs, minBytes), the size limits (maxBytes, partitionMaxBytes, one whole batch past them
 * for the first partition with data), the leader, epoch and offset checks are all the
 * operation's; this file converts the request and the answer.
 *
 * What is Kafka-only, and answered here before the operation runs:
 * - Fetch sessions (KIP-227) are declined: every answer carries session id 0, which tells the
 *   client to keep sending full fetches. A request naming a session (sessionId != 0) is
 *   FETCH_SESSION_ID_NOT_FOUND; without a session only the epochs 0 and -1 are valid
 *   (INVALID_FETCH_SESSION_EPOCH otherwise), as in Kafka.
 * - Follower fetches (replication, docs/decisions.md "Followers fetch over the Kafka protocol"):
 *   from v15 the follower names itself and its broker epoch in ReplicaState, and the request goes
 *   to the operation as a follower fetch (replica id and broker epoch), so the replica checks,
 *   the stale-broker-epoch fence, divergence, the follower's position (ISR, high watermark) and
 *   the follower long poll are the operation's, as on gRPC. Before v15 a follower fetch carries
 *   no broker epoch and could not be fenced: replicaId >= 0 there is INVALID_REQUEST.
 * - A diverging epoch is answered in v12+'s tagged DivergingEpoch. Kafka's "no epoch" pair
 *   (-1, -1) is that field's default, which the encoding leaves out; it is sent as (-1, 0), which
 *   the follower reads the same way (a negative epoch: fall back to the high watermark).
 * - read_committed reads like read_uncommitted: there are no transactions, so the last stable
 *   offset the operation answers is the high watermark and there is nothing aborted to list.
 * - NOT_LEADER_OR_FOLLOWER and the leader-epoch errors carry the leader and epoch the metadata
 *   cache knows (v12's tagged currentLeader), so the client need not refresh its metadata first.
 * - v13 names topics by id (KIP-516): ids are resolved to names through the metadata cache, and a
 *   topic whose id the cache does not know is UNKNOWN_TOPIC_ID for each of its partitions.
 *   @platformatic/kafka needs v13: at v12 it sends the topic id's text where the name belongs.
 */
import { errorId, kafka } from '@sluice/protocol'
import type { MetadataCache } from '../../metadata-cache.js'
import { fetchFailure, handleFetch } from '../../server/fetch-handler.js'
import type { DivergingEpoch, FetchAnswer, FetchAsk, FetchTopicAsk } from '../../server/fetch-types.js'
import type { KafkaApiHandler, KafkaRequestContext } from '../kafka-api-handler.js'
import { kafkaErrorCode } from '../kafka-error-code.js'
import { topicIdText } from '../topic-id.js'

const READ_COMMITTED = 1
/** Kafka's FetchMetadata epochs that need no session: a full fetch (0) and a sessionless one (-1). */
const SESSIONLESS_EPOCHS = new Set([0, -1])
const LEADER_HINT_ERRORS = new Set([
  errorId('NOT_LEADER_OR_FOLLOWER'),
  errorId('FENCED_LEADER_EPOCH'),
  errorId('UNKNOWN_LEADER_EPOCH'),
])

export const fetchHandler: KafkaApiHandler<kafka.FetchRequest, kafka.FetchResponseInput> = {
  codec: kafka.FetchApi,
  minVersion: 4,
  maxVersion: 15,
  async handle(req, version, ctx) {
    const refusal = requestRefusal(req, version, ctx)
    if (refusal !== undefined) return { errorCode: refusal, sessionId: 0, responses: [] }
    // v13+: the name of each requested topic id ('' for an unknown id, which no topic has).
    const names =
      version >= TOPIC_IDS_FROM ? req.topics.map((t) => topicNameOf(ctx.broker.cache, t.topicId)) : undefined
    const ask = fetchAsk(req, ctx, names)
    let res: FetchAnswer | undefined
    try {
      res = await handleFetch(ctx.broker, ask, ctx.signal)
    } catch (err) {
      res = fetchFailure(err)
    }
    if (res === undefined) return undefined // the connection closed or the broker is stopping
    ctx.broker.metrics?.fetchAnswered(ask.replicaId >= 0, res)
    const answer = toKafkaFetch(res, ctx.broker.cache, req.isolationLevel === READ_COMMITTED)
    if (names !== undefined) withTopicIds(answer, req, names)
    return answer
  },
}

/** The first Fetch version that names topics by id. */
const TOPIC_IDS_FROM = 13

function topicNameOf(cache: MetadataCache, topicId: Buffer): string {
  return cache.topicById(topicIdText(topicId)) ?? ''
}

/**
 * The answer's topics carry the request's ids (the operation answers topics in request order);
 * an id no topic has is UNKNOWN_TOPIC_ID for each partition, not the operation's
 * UNKNOWN_TOPIC_OR_PARTITION for the empty name.
 */
function withTopicIds(answer: kafka.FetchResponseInput, req: kafka.FetchRequest, names: readonly string[]): void {
  answer.responses?.forEach((t, i) => {
    const asked = req.topics[i]
    if (asked === undefined) return
    t.topicId = asked.topicId
    if (names[i] === '') for (const p of t.partitions ?? []) p.errorCode = errorId('UNKNOWN_TOPIC_ID')
  })
}

/** The first Fetch version whose follower fetches carry the broker epoch (ReplicaState, KIP-903). */
const REPLICA_STATE_FROM = 15

/** The Kafka error code of a request this listener refuses as a whole, or undefined. */
function requestRefusal(req: kafka.FetchRequest, version: number, ctx: KafkaRequestContext): number | undefined {
  if (req.sessionId !== 0) return errorId('FETCH_SESSION_ID_NOT_FOUND')
  if (!SESSIONLESS_EPOCHS.has(req.sessionEpoch)) return errorId('INVALID_FETCH_SESSION_EPOCH')
  if (version < REPLICA_STATE_FROM && req.replicaId >= 0) {
    ctx.broker.logger.info(
      { connectionId: ctx.connectionId, clientId: ctx.clientId, replicaId: req.replicaId, version },
      'refused a Kafka-protocol follower fetch below v15: it carries no broker epoch to fence',
    )
    return errorId('INVALID_REQUEST')
  }
  return undefined
}

function fetchAsk(req: kafka.FetchRequest, ctx: KafkaRequestContext, names: readonly string[] | undefined): FetchAsk {
  // From v15 the follower's id and broker epoch travel in ReplicaState (-1 and -1 for consumers).
  const replicaState = ctx.header.apiVersion >= REPLICA_STATE_FROM
  const topics: FetchTopicAsk[] = new Array(req.topics.length)
  for (let i = 0; i < req.topics.length; i++) {
    const t = req.topics[i]!
    // Kafka's partition fields are the operation's, by other names: the request's own objects are
    // read as they are, without a copy per partition.
    topics[i] = { topic: names?.[i] ?? t.topic, partitions: t.partitions }
  }
  return {
    replicaId: replicaState ? req.replicaState.replicaId : req.replicaId,
    replicaEpoch: replicaState ? req.replicaState.replicaEpoch : -1n,
    maxWaitMs: req.maxWaitMs,
    minBytes: req.minBytes,
    maxBytes: req.maxBytes,
    topics,
  }
}

function toKafkaFetch(res: FetchAnswer, cache: MetadataCache, readCommitted: boolean): kafka.FetchResponseInput {
  const responses: kafka.FetchResponseFetchableTopicResponseInput[] = new Array(res.topics.length)
  for (let i = 0; i < res.topics.length; i++) {
    const t = res.topics[i]!
    const partitions: kafka.FetchResponsePartitionDataInput[] = new Array(t.partitions.length)
    for (let j = 0; j < t.partitions.length; j++) {
      const p = t.partitions[j]!
      const errorCode = kafkaErrorCode(p.errorCode)
      partitions[j] = {
        partitionIndex: p.partition,
        errorCode,
        highWatermark: p.highWatermark,
        // No transactions: the last stable offset is the high watermark.
        lastStableOffset: p.highWatermark,
        logStartOffset: p.logStartOffset,
        // Kafka lists aborted transactions only to read_committed consumers; there are none.
        abortedTransactions: readCommitted ? [] : null,
        preferredReadReplica: -1,
        records: p.records,
        divergingEpoch: divergingEpochOf(p.divergingEpoch),
        currentLeader: LEADER_HINT_ERRORS.has(errorCode) ? leaderHint(cache, t.topic, p.partition) : undefined,
      }
    }
    responses[i] = { topic: t.topic, partitions }
  }
  return { throttleTimeMs: 0, errorCode: kafkaErrorCode(res.errorCode), sessionId: 0, responses }
}

function leaderHint(cache: MetadataCache, topic: string, partition: number): kafka.FetchResponseLeaderIdAndEpochInput {
  const state = cache.partition(topic, partition)
  return state === undefined ? {} : { leaderId: state.leader, leaderEpoch: state.leaderEpoch }
}

/**
 * The v12+ DivergingEpoch of a follower's answer (absent = none; see the file comment for (-1, -1)).
 * @internal exported for testing
 */
export function divergingEpochOf(d: DivergingEpoch | undefined): kafka.FetchResponseEpochEndOffsetInput | undefined {
  return d === undefined ? undefined : kafka.kafkaDivergingEpoch(d.epoch, d.endOffset)
}
