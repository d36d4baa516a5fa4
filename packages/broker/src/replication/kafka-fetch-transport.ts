/**
 * The Kafka transport of follower fetches (replica-fetch-transport.ts): Kafka's own Fetch, as
 * Kafka's followers send it, over one framed TCP connection to the leader's Kafka listener
 * (protocol's KafkaClientConnection). The leader's Kafka Fetch handler hands it to the same fetch
 * operation the gRPC Fetch uses.
 *
 * Version 15 is sent because it is the first that carries the follower's broker epoch
 * (ReplicaState: replica id and broker epoch, KIP-903), so the leader fences a follower from an
 * earlier incarnation exactly as it does on gRPC. Like every version from 13, it names topics by
 * id: the ids come from this broker's metadata cache, and the answer's ids are matched back to
 * the request's topics (the leader answers them in request order). A topic whose id is not
 * known here is sent with the zero id; the leader answers UNKNOWN_TOPIC_ID for it, which the
 * fetcher treats as any partition error (a short backoff, then again).
 *
 * Kafka's Fetch answer has no log end offset: it is answered as -1 (unknown), which the fetcher
 * handles (replica-fetcher.ts). Fetch sessions are not used: every request is a full fetch.
 *
 * This is the default transport, so a fetch converts nothing on its way through (issue 16): the
 * fetcher's request and answer (follower-fetch-types.ts) hold offsets as bigints, as Kafka's
 * codec does (topic ids in Kafka's form are remembered by kafka/topic-id.ts).
 *
 * A new connection first asks ApiVersions (one round trip per connection, not per fetch): a
 * leader that does not serve Fetch v15 (a broker from before follower fetches over Kafka, during
 * a rolling upgrade) fails the fetch with UNSUPPORTED_VERSION and is reported through
 * `onUnsupported`, so the fetcher manager fetches from it over gRPC instead.
 */
import { kafka, SluiceError } from '@sluice/protocol'
import { isZeroTopicId, kafkaTopicId } from '../kafka/topic-id.js'
import type {
  FollowerFetchAnswer,
  FollowerFetchPartitionAnswer,
  FollowerFetchRequest,
  FollowerFetchTopicAnswer,
} from './follower-fetch-types.js'
import type { ReplicaFetchConnection } from './replica-fetch-transport.js'

/** Fetch v15: the first version with ReplicaState (the follower's broker epoch). */
export const REPLICA_FETCH_VERSION = 15

/** ApiVersions v3: flexible, and answered by every Sluice broker with a Kafka listener. */
const API_VERSIONS_VERSION = 3

/** Answers up to 64 MiB (the leader caps a fetch answer below that, as on gRPC). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024

/** A follower reads everything up to the leader's log end, transactional or not. */
const READ_UNCOMMITTED = 0

/** What the fetcher reads as "the leader's log end offset is not known" (replica-fetcher.ts). */
const UNKNOWN_LOG_END_OFFSET = -1n

const NO_RECORDS = Buffer.alloc(0)

export interface KafkaFetchConnectionOptions {
  readonly address: string
  readonly clientId: string
  /** The topic id (Sluice's text form) of `topic` as this broker's metadata knows it. */
  readonly topicIdOf: (topic: string) => string | undefined
  /** Called when the leader turns out not to serve follower fetches over Kafka (Fetch v15). */
  readonly onUnsupported?: () => void
}

export class KafkaFetchConnection implements ReplicaFetchConnection {
  private readonly connecting: Promise<kafka.KafkaClientConnection>
  private connection: kafka.KafkaClientConnection | undefined
  private closedBy: Error | undefined

  constructor(private readonly options: KafkaFetchConnectionOptions) {
    const { host, port } = splitAddress(options.address)
    this.connecting = kafka.KafkaClientConnection.connect({
      host,
      port,
      clientId: options.clientId,
      maxFrameBytes: MAX_ANSWER_BYTES,
    }).then(async (c) => {
      // Closed while it was opening: nobody will use it.
      if (this.closedBy !== undefined) c.close()
      else this.connection = c
      await this.checkVersions(c)
      return c
    })
    // A failed connect surfaces from fetch(); do not let it go unhandled when nobody fetches.
    this.connecting.catch(() => {})
  }

  async fetch(request: FollowerFetchRequest): Promise<FollowerFetchAnswer> {
    if (this.closedBy !== undefined) throw this.closedBy
    const connection = await this.connecting
    if (this.closedBy !== undefined) throw this.closedBy
    const body = toKafkaFetch(request, this.options.topicIdOf)
    const answer = await connection.request(kafka.FetchApi, REPLICA_FETCH_VERSION, body)
    return fromKafkaFetch(request, body, answer)
  }

  /** Rejects (and closes `c`) unless the leader serves Fetch v15. */
  private async checkVersions(c: kafka.KafkaClientConnection): Promise<void> {
    const versions = await c.request(kafka.ApiVersionsApi, API_VERSIONS_VERSION, {
      clientSoftwareName: 'sluice-replica-fetcher',
      clientSoftwareVersion: '1',
    })
    const fetch = versions.apiKeys.find((k) => k.apiKey === kafka.FetchApi.apiKey)
    if (
      versions.errorCode === 0 &&
      fetch !== undefined &&
      fetch.minVersion <= REPLICA_FETCH_VERSION &&
      fetch.maxVersion >= REPLICA_FETCH_VERSION
    )
      return
    const err = new SluiceError(
      'UNSUPPORTED_VERSION',
      `the leader at ${this.options.address} serves Fetch ${fetch === undefined ? 'not at all' : `v${fetch.minVersion}-${fetch.maxVersion}`}; follower fetches need v${REPLICA_FETCH_VERSION}`,
    )
    c.close(err)
    this.options.onUnsupported?.()
    throw err
  }

  close(reason: Error): void {
    if (this.closedBy !== undefined) return
    this.closedBy = reason
    this.connection?.close()
  }
}

/** The Kafka Fetch v15 body of a follower fetch: `req`'s topics, in order, by id. */
export function toKafkaFetch(
  req: FollowerFetchRequest,
  topicIdOf: (topic: string) => string | undefined,
): KafkaFollowerFetch {
  const topics: KafkaFollowerFetch['topics'] = []
  // The request's partitions are Kafka's FetchPartition already (follower-fetch-types.ts): sent as they are.
  for (const t of req.topics) topics.push({ topicId: kafkaTopicId(topicIdOf(t.topic)), partitions: t.partitions })
  return {
    replicaState: { replicaId: req.replicaId, replicaEpoch: req.replicaEpoch },
    maxWaitMs: req.maxWaitMs,
    minBytes: req.minBytes,
    maxBytes: req.maxBytes,
    isolationLevel: READ_UNCOMMITTED,
    sessionId: 0,
    sessionEpoch: -1,
    topics,
  }
}

/** The answer in the fetcher's shape, topics named as in `req`; the offsets are Kafka's bigints as they are. */
export function fromKafkaFetch(
  req: FollowerFetchRequest,
  sent: KafkaFollowerFetch,
  res: kafka.FetchResponse,
): FollowerFetchAnswer {
  const topics: FollowerFetchTopicAnswer[] = []
  for (let i = 0; i < res.responses.length; i++) {
    const t = res.responses[i]!
    const topic = sentTopicName(req, sent, t.topicId, i)
    if (topic === undefined) continue // not a topic this request named by id: nothing to apply it to
    const partitions: FollowerFetchPartitionAnswer[] = []
    for (const p of t.partitions) partitions.push(partitionAnswer(p))
    topics.push({ topic, partitions })
  }
  return { correlationId: req.correlationId, errorCode: res.errorCode, errorMessage: '', topics }
}

/** Kafka's answer carries no log end offset and no error message. */
function partitionAnswer(p: kafka.FetchResponsePartitionData): FollowerFetchPartitionAnswer {
  return {
    partition: p.partitionIndex,
    errorCode: p.errorCode,
    errorMessage: '',
    highWatermark: p.highWatermark,
    logStartOffset: p.logStartOffset,
    logEndOffset: UNKNOWN_LOG_END_OFFSET,
    records: p.records ?? NO_RECORDS,
    // Kafka's default (-1, -1) is no divergence (protocol's fetch-partition-answer.ts).
    divergingEpoch: kafka.divergingEpochRead(p.divergingEpoch),
  }
}

/** The body toKafkaFetch built: its topics are the request's, index for index. */
interface KafkaFollowerFetch extends kafka.FetchRequestInput {
  topics: Array<kafka.FetchRequestFetchTopicInput & { topicId: Buffer }>
}

/** The name of the sent topic with this id, looked up at the answer's position first; never the zero id. */
function sentTopicName(
  req: FollowerFetchRequest,
  sent: KafkaFollowerFetch,
  id: Buffer,
  index: number,
): string | undefined {
  if (isZeroTopicId(id)) return undefined
  if (sent.topics[index]?.topicId.equals(id) === true) return req.topics[index]!.topic
  for (let i = 0; i < sent.topics.length; i++) if (sent.topics[i]!.topicId.equals(id)) return req.topics[i]!.topic
  return undefined
}

function splitAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':')
  return { host: address.slice(0, colon), port: Number(address.slice(colon + 1)) }
}
