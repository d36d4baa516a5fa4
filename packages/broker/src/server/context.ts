/**
 * What the request handlers share: the metadata cache, the hosted replicas and the delayed-fetch
 * purgatory, plus the mapping from thrown errors to per-item error fields.
 */
import type { Logger } from 'pino'
import { ErrorCode, SluiceError, toInt64String, type ErrorCodeName, type wire } from '@sluice/protocol'
import type { MetadataCache } from '../metadata-cache.js'
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

export function errorFields (code: ErrorCodeName, message?: string): ErrorFields {
  return { error_code: ErrorCode[code].id, error_message: message ?? ErrorCode[code].description }
}

export const NO_ERROR: Readonly<ErrorFields> = Object.freeze({ error_code: 0, error_message: '' })

/**
 * A per-item error from anything thrown: typed errors keep their code; anything else is logged
 * (it is a bug or an I/O failure) and answered as UNKNOWN_SERVER_ERROR.
 */
export function errorFieldsFrom (err: unknown, logger: Logger, context: Record<string, unknown>): ErrorFields {
  if (err instanceof SluiceError) return errorFields(err.code, err.message)
  logger.error({ err, ...context }, 'unexpected error while serving a request')
  return errorFields('UNKNOWN_SERVER_ERROR', String((err as Error)?.message ?? err))
}

/** The offsets a failed partition fetch reports (so OFFSET_OUT_OF_RANGE tells the valid range). */
export interface FetchOffsets { hw: bigint, lso: bigint, leo: bigint }

const NO_RECORDS = Buffer.alloc(0)

/** A partition fetch answer without records: an error, with the partition's offsets when known. */
export function partitionFetchFailure (partition: number, f: ErrorFields, o?: FetchOffsets): wire.PartitionFetchResponse {
  return {
    partition,
    ...f,
    high_watermark: o === undefined ? '-1' : toInt64String(o.hw),
    last_stable_offset: o === undefined ? '-1' : toInt64String(o.hw),
    log_start_offset: o === undefined ? '-1' : toInt64String(o.lso),
    log_end_offset: o === undefined ? '-1' : toInt64String(o.leo),
    records: NO_RECORDS,
    leader_epoch: -1,
  }
}
