/**
 * What the request handlers share: the metadata cache, the hosted replicas and the delayed-fetch
 * purgatory, plus the mapping from thrown errors to per-item error fields.
 */
import type { Logger } from 'pino'
import { ErrorCode, SluiceError, type ErrorCodeName } from '@sluice/protocol'
import type { MetadataCache } from '../metadata-cache.js'
import type { Partition } from '../partition.js'
import type { BrokerMetrics } from '../metrics/broker-metrics.js'
import type { ReplicaManager } from '../replica-manager.js'
import type { DelayedFetchPurgatory } from './delayed-fetch.js'

export interface BrokerContext {
  readonly brokerId: number
  readonly cache: MetadataCache
  readonly replicas: ReplicaManager
  readonly purgatory: DelayedFetchPurgatory
  readonly logger: Logger
  /** Present when the broker serves an admin port (metrics/broker-metrics.ts). */
  readonly metrics?: BrokerMetrics
}

export interface ErrorFields {
  error_code: number
  error_message: string
}

export function errorFields(code: ErrorCodeName, message?: string): ErrorFields {
  return { error_code: ErrorCode[code].id, error_message: message ?? ErrorCode[code].description }
}

export const NO_ERROR: Readonly<ErrorFields> = Object.freeze({ error_code: 0, error_message: '' })

/**
 * A per-item error from anything thrown: typed errors keep their code; anything else is logged
 * (it is a bug or an I/O failure) and answered as UNKNOWN_SERVER_ERROR.
 */
export function errorFieldsFrom(err: unknown, logger: Logger, context: Record<string, unknown>): ErrorFields {
  if (err instanceof SluiceError) return errorFields(err.code, err.message)
  logger.error({ err, ...context }, 'unexpected error while serving a request')
  return errorFields('UNKNOWN_SERVER_ERROR', String((err as Error)?.message ?? err))
}

/**
 * The first check of every per-partition request this broker answers as the leader (Produce,
 * Fetch, ListOffsets, DeleteRecords): the topic-partition is in the metadata cache
 * (UNKNOWN_TOPIC_OR_PARTITION) and this broker hosts its leader (NOT_LEADER_OR_FOLLOWER). The
 * replica, or the error to answer with. Whether the leader may take a write now (its lease) is
 * Partition's check, made at the write's turn.
 */
export function leaderReplica(ctx: BrokerContext, topic: string, partition: number): Partition | ErrorFields {
  if (ctx.cache.partition(topic, partition) === undefined) {
    return errorFields('UNKNOWN_TOPIC_OR_PARTITION', `unknown topic-partition ${topic}-${partition}`)
  }
  const replica = ctx.replicas.get(topic, partition)
  if (replica === undefined || !replica.isLeader) {
    return errorFields('NOT_LEADER_OR_FOLLOWER', `broker ${ctx.brokerId} is not the leader of ${topic}-${partition}`)
  }
  return replica
}

/**
 * A client's current_leader_epoch against the leader's (KIP-320): -1 skips the check; an older
 * one is FENCED_LEADER_EPOCH, a newer one (this broker lags the controller) UNKNOWN_LEADER_EPOCH.
 */
export function leaderEpochMismatch(replica: Partition, currentLeaderEpoch: number): ErrorFields | undefined {
  if (currentLeaderEpoch === -1 || currentLeaderEpoch === replica.leaderEpoch) return undefined
  const code = currentLeaderEpoch < replica.leaderEpoch ? 'FENCED_LEADER_EPOCH' : 'UNKNOWN_LEADER_EPOCH'
  return errorFields(code, `leader epoch ${currentLeaderEpoch} in the request, ${replica.leaderEpoch} on the broker`)
}
