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

export async function initProducerId (cache: MetadataCache, pool: ConnectionPool, options: ResolvedConnectOptions,
  deadlineMs: number): Promise<ProducerIdentity> {
  return await withRetry(async () => {
    const endpoint = await cache.metadataEndpoint()
    const client = pool.metadataClient(endpoint)
    let res: wire.InitProducerIdResponse__Output
    try {
      const req: wire.InitProducerIdRequest = { transactional_id: '', transaction_timeout_ms: 0, producer_id: '-1', producer_epoch: -1 }
      res = await callUnary<wire.InitProducerIdResponse__Output>((o, cb) => client.InitProducerId(req, o, cb), options.requestTimeoutMs)
    } catch (err) {
      if (err instanceof SluiceError && ROTATE_ON.has(err.code)) cache.rotateMetadataEndpoint()
      throw err
    }
    if (res.error_code !== 0) {
      const err = SluiceError.fromId(res.error_code, res.error_message)
      if (ROTATE_ON.has(err.code)) cache.rotateMetadataEndpoint()
      throw err
    }
    const producerId = toBigInt(res.producer_id)
    if (producerId < 0n || res.producer_epoch < 0) {
      throw new SluiceError('UNKNOWN_SERVER_ERROR', `InitProducerId answered producer id ${res.producer_id} epoch ${res.producer_epoch}`)
    }
    return { producerId, epoch: res.producer_epoch }
  }, {
    retry: { ...options.retry, retries: Math.max(options.retry.retries, 1000) }, // the deadline is the bound
    deadlineMs,
    operation: 'InitProducerId',
    onRetry: async (err) => { if (err.staleMetadata) await cache.refresh().catch(() => {}) },
  })
}
