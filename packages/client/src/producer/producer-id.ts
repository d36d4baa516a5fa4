/**
 * InitProducerId through the metadata service (found via the brokers' metadata_endpoints, as the
 * admin client does): a new producer id with epoch 0, retried on retriable errors and transport
 * failures (rotating metadata-service instances) within `deadlineMs`.
 */
import { SluiceError, toBigInt, type wire } from '@sluice/protocol'
import type { ConnectionPool } from '../network/connection-pool.js'
import type { MetadataCache } from '../network/metadata-cache.js'
import { callUnary } from '../network/unary.js'
import type { ResolvedConnectOptions } from '../options.js'
import { withRetry } from '../retry.js'

export interface ProducerIdentity {
  readonly producerId: bigint
  readonly epoch: number
}

const ROTATE_ON = new Set(['NETWORK_EXCEPTION', 'NOT_CONTROLLER', 'METADATA_UNAVAILABLE', 'REQUEST_TIMED_OUT'])

export async function initProducerId(
  cache: MetadataCache,
  pool: ConnectionPool,
  options: ResolvedConnectOptions,
  deadlineMs: number,
): Promise<ProducerIdentity> {
  return await withRetry(
    async () => {
      const res = await cache.onMetadataService(ROTATE_ON, async (endpoint) => {
        const client = pool.metadataClient(endpoint)
        const req: wire.InitProducerIdRequest = {
          transactional_id: '',
          transaction_timeout_ms: 0,
          producer_id: '-1',
          producer_epoch: -1,
        }
        const r = await callUnary<wire.InitProducerIdResponse__Output>(
          (o, cb) => client.InitProducerId(req, o, cb),
          options.requestTimeoutMs,
        )
        if (r.error_code !== 0) throw SluiceError.fromId(r.error_code, r.error_message)
        return r
      })
      const producerId = toBigInt(res.producer_id)
      if (producerId < 0n || res.producer_epoch < 0) {
        throw new SluiceError(
          'UNKNOWN_SERVER_ERROR',
          `InitProducerId answered producer id ${res.producer_id} epoch ${res.producer_epoch}`,
        )
      }
      return { producerId, epoch: res.producer_epoch }
    },
    {
      retry: { ...options.retry, retries: Math.max(options.retry.retries, 1000) }, // the deadline is the bound
      deadlineMs,
      operation: 'InitProducerId',
      onRetry: async (err) => {
        if (err.staleMetadata) await cache.refresh().catch(() => {})
      },
    },
  )
}
