/**
 * The broker's produce operation in its own terms (server/produce-handler.ts), as fetch-types.ts
 * is for fetch: offsets and times as bigints, no wire strings. The ask uses Kafka's field names
 * (topicData, partitionData, index), so the Kafka listener hands its decoded request over as it
 * is; the gRPC Produce converts at its edge (produce-wire.ts). Before, every Kafka produce was
 * turned into the gRPC wire shape and its answer parsed back from decimal strings (issue 16).
 */
export interface ProducePartitionAsk {
  readonly index: number
  /** The partition's record batches (null = none, refused as a corrupt message). */
  readonly records: Buffer | null
}

export interface ProduceTopicAsk {
  readonly name: string
  readonly partitionData: readonly ProducePartitionAsk[]
}

export interface ProduceAsk {
  /** -1 (all in-sync replicas), 0 (no answer) or 1 (the leader). */
  readonly acks: number
  /** How long acks=-1 waits for the in-sync replicas; 0 or less: the default. */
  readonly timeoutMs: number
  /** null or '': none (Sluice refuses transactional produce). */
  readonly transactionalId: string | null
  readonly topicData: readonly ProduceTopicAsk[]
}

export interface ProducePartitionAnswer {
  readonly partition: number
  /** A Sluice error id (0: none); Kafka's own code wherever Kafka has the error. */
  readonly errorCode: number
  readonly errorMessage: string
  /** -1 when nothing was appended. */
  readonly baseOffset: bigint
  /** -1 unless the topic stamps LogAppendTime. */
  readonly logAppendTimeMs: bigint
  readonly logStartOffset: bigint
}

export interface ProduceTopicAnswer {
  readonly topic: string
  readonly partitions: ProducePartitionAnswer[]
}

export interface ProduceAnswer {
  readonly topics: ProduceTopicAnswer[]
}

/** A partition's answer; every answer is made here, so all have one shape. */
export function producePartitionAnswer(
  partition: number,
  f: { readonly error_code: number; readonly error_message: string },
  baseOffset = -1n,
  logAppendTimeMs = -1n,
  logStartOffset = -1n,
): ProducePartitionAnswer {
  return {
    partition,
    errorCode: f.error_code,
    errorMessage: f.error_message,
    baseOffset,
    logAppendTimeMs,
    logStartOffset,
  }
}
