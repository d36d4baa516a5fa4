/**
 * The broker's fetch operation in its own terms (server/fetch-handler.ts): what is asked and what
 * is answered, with offsets and epochs as bigints. Its two edges convert: the Kafka listener's
 * Fetch (kafka/handlers/fetch-handler.ts) from Kafka's fields, which are bigints already, and the
 * gRPC Fetch (fetch-wire.ts) from the proto's decimal strings. Before, the operation spoke the
 * gRPC wire types, so every Kafka fetch (each follower fetch of replication among them, hundreds
 * a second) turned its offsets into text and back on both sides (issue 16).
 */
export interface FetchPartitionAsk {
  readonly partition: number
  readonly fetchOffset: bigint
  /** -1: no check (consumers that do not track the leader epoch). */
  readonly currentLeaderEpoch: number
  /** 0 or less: the default (1 MiB). */
  readonly partitionMaxBytes: number
  /** Followers: the epoch of their last fetched batch (divergence check); -1 unknown. */
  readonly lastFetchedEpoch: number
  /** Followers: their own log start offset; -1 unknown. */
  readonly logStartOffset: bigint
}

export interface FetchTopicAsk {
  readonly topic: string
  readonly partitions: readonly FetchPartitionAsk[]
}

export interface FetchAsk {
  /** A follower's broker id; negative for consumers. */
  readonly replicaId: number
  /** A follower's broker epoch (fenced when older than the metadata's); -1 for consumers. */
  readonly replicaEpoch: bigint
  readonly maxWaitMs: number
  readonly minBytes: number
  /** 0 or less: the operation's own cap. */
  readonly maxBytes: number
  readonly topics: readonly FetchTopicAsk[]
}

export interface DivergingEpoch {
  readonly epoch: number
  readonly endOffset: bigint
}

export interface FetchPartitionAnswer {
  readonly partition: number
  readonly errorCode: number
  readonly errorMessage: string
  /** -1 when unknown (an error before the partition was found). */
  readonly highWatermark: bigint
  readonly logStartOffset: bigint
  readonly logEndOffset: bigint
  readonly records: Buffer
  /** The leader's epoch; -1 with errors. */
  readonly leaderEpoch: number
  /** A follower whose log diverged: where to truncate to (replication/divergence.ts). */
  readonly divergingEpoch: DivergingEpoch | undefined
}

export interface FetchTopicAnswer {
  readonly topic: string
  readonly partitions: FetchPartitionAnswer[]
}

export interface FetchAnswer {
  readonly errorCode: number
  readonly errorMessage: string
  readonly topics: FetchTopicAnswer[]
}

/** The offsets a partition's answer reports (an OFFSET_OUT_OF_RANGE tells the valid range). */
export interface FetchOffsets {
  readonly hw: bigint
  readonly lso: bigint
  readonly leo: bigint
}

const NO_RECORDS = Buffer.alloc(0)

/**
 * A partition's answer, its error from context.ts's error fields. Every answer is made here, with
 * all its fields, so they share one shape (answers built by spreading and overriding would not).
 */
export function partitionAnswer(
  partition: number,
  f: { readonly error_code: number; readonly error_message: string },
  o: FetchOffsets | undefined,
  records: Buffer = NO_RECORDS,
  leaderEpoch = -1,
  divergingEpoch: DivergingEpoch | undefined = undefined,
): FetchPartitionAnswer {
  return {
    partition,
    errorCode: f.error_code,
    errorMessage: f.error_message,
    highWatermark: o === undefined ? -1n : o.hw,
    logStartOffset: o === undefined ? -1n : o.lso,
    logEndOffset: o === undefined ? -1n : o.leo,
    records,
    leaderEpoch,
    divergingEpoch,
  }
}
