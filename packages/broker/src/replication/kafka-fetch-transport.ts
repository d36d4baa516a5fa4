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
 * A new connection first asks ApiVersions (one round trip per connection, not per fetch): a
 * leader that does not serve Fetch v15 (a broker from before follower fetches over Kafka, during
 * a rolling upgrade) fails the fetch with UNSUPPORTED_VERSION and is reported through
 * `onUnsupported`, so the fetcher manager fetches from it over gRPC instead.
 */
import { kafka, SluiceError, type wire } from '@sluice/protocol'
import { isZeroTopicId, kafkaTopicId } from '../kafka/topic-id.js'
import type { ReplicaFetchConnection } from './replica-fetch-transport.js'

/** Fetch v15: the first version with ReplicaState (the follower's broker epoch). */
export const REPLICA_FETCH_VERSION = 15

/** ApiVersions v3: flexible, and answered by every Sluice broker with a Kafka listener. */
const API_VERSIONS_VERSION = 3

/** Answers up to 64 MiB (the leader caps a fetch answer below that, as on gRPC). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024

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

  async fetch(request: wire.FetchRequest__Output): Promise<wire.FetchResponse__Output> {
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
  req: wire.FetchRequest__Output,
  topicIdOf: (topic: string) => string | undefined,
): KafkaFollowerFetch {
  return {
    replicaState: { replicaId: req.replica_id, replicaEpoch: BigInt(req.replica_epoch) },
    maxWaitMs: req.max_wait_ms,
    minBytes: req.min_bytes,
    maxBytes: req.max_bytes,
    isolationLevel: req.isolation_level,
    sessionId: 0,
    sessionEpoch: -1,
    topics: req.topics.map((t) => {
      return {
        topicId: kafkaTopicId(topicIdOf(t.topic)),
        partitions: t.partitions.map((p) => ({
          partition: p.partition,
          currentLeaderEpoch: p.current_leader_epoch,
          fetchOffset: BigInt(p.fetch_offset),
          lastFetchedEpoch: p.last_fetched_epoch,
          logStartOffset: BigInt(p.log_start_offset),
          partitionMaxBytes: p.partition_max_bytes,
        })),
      }
    }),
  }
}

/** The answer in the shape the fetcher applies (the gRPC wire types), topics named as in `req`. */
export function fromKafkaFetch(
  req: wire.FetchRequest__Output,
  sent: KafkaFollowerFetch,
  res: kafka.FetchResponse,
): wire.FetchResponse__Output {
  const topics: wire.TopicFetchResponse__Output[] = []
  res.responses.forEach((t, i) => {
    const topic = sentTopicName(req, sent, t.topicId, i)
    if (topic === undefined) return // not a topic this request named by id: nothing to apply it to
    topics.push({
      topic,
      partitions: t.partitions.map((p) => kafka.wireFetchPartition(p, 'unknown')),
    })
  })
  return {
    correlation_id: req.correlation_id,
    error_code: res.errorCode,
    error_message: '',
    topics,
    throttle_time_ms: res.throttleTimeMs,
  }
}

/** The body toKafkaFetch built: its topics are the request's, index for index. */
interface KafkaFollowerFetch extends kafka.FetchRequestInput {
  topics: Array<kafka.FetchRequestFetchTopicInput & { topicId: Buffer }>
}

/** The name of the sent topic with this id, looked up at the answer's position first; never the zero id. */
function sentTopicName(
  req: wire.FetchRequest__Output,
  sent: KafkaFollowerFetch,
  id: Buffer,
  index: number,
): string | undefined {
  if (isZeroTopicId(id)) return undefined
  if (sent.topics[index]?.topicId.equals(id) === true) return req.topics[index]!.topic
  const i = sent.topics.findIndex((t) => t.topicId.equals(id))
  return i < 0 ? undefined : req.topics[i]!.topic
}

function splitAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':')
  return { host: address.slice(0, colon), port: Number(address.slice(colon + 1)) }
}
