/**
 * What the request handlers share: the metadata cache, the hosted replicas and the delayed-fetch
 * purgatory, plus the mapping from thrown errors to per-item error fields.
 */
import type { Logger } from 'pino'
import { ErrorCode, SluiceError, type ErrorCodeName } from '@sluice/protocol'
import type { MetadataCache } from '../metadata-cache.js'
import type { ReplicaManager } from '../replica-manager.js'
import type { DelayedFetchPurgatory } from './delayed-fetch.js'

export interface BrokerContext {
  readonly brokerId: number
  readonly cache: MetadataCache
  readonly replicas: ReplicaManager
  readonly purgatory: DelayedFetchPurgatory
  readonly logger: Logger
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
