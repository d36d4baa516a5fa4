/**
 * Calls to the GroupCoordinator service, which the metadata service serves: its endpoints come
 * from the brokers' Metadata answers (MetadataCache.metadataEndpoint). A response's top-level
 * error_code becomes a thrown SluiceError carrying the response in `details.response`, so
 * callers that act on MEMBER_ID_REQUIRED (the id to rejoin with) still see it. Transport
 * failures and NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE move to the next metadata-service
 * instance (with several instances only the active controller coordinates).
 */
import type * as grpc from '@grpc/grpc-js'
import { SluiceError, type wire } from '@sluice/protocol'
import type { ConnectionPool } from '../../network/connection-pool.js'
import type { MetadataCache } from '../../network/metadata-cache.js'
import { callUnary } from '../../network/unary.js'
import type { ResolvedConnectOptions } from '../../options.js'
import { withRetry } from '../../retry.js'

const ROTATE_ON = new Set([
  'NETWORK_EXCEPTION',
  'REQUEST_TIMED_OUT',
  'NOT_COORDINATOR',
  'COORDINATOR_NOT_AVAILABLE',
  'METADATA_UNAVAILABLE',
])

export type CoordinatorInvoker<Res> = (
  client: wire.GroupCoordinatorClient,
  options: grpc.CallOptions,
  cb: grpc.requestCallback<Res>,
) => grpc.ClientUnaryCall

export interface CallOptions {
  /** Deadline of this call (JoinGroup long-polls for the whole rebalance). Default: requestTimeoutMs. */
  timeoutMs?: number
  /** Retry retriable errors with the client's policy. Default true. */
  retry?: boolean
  signal?: AbortSignal
}

export class CoordinatorClient {
  constructor(
    private readonly cache: MetadataCache,
    private readonly pool: ConnectionPool,
    private readonly options: ResolvedConnectOptions,
  ) {}

  /** One call; throws the response's error_code (with `details.response`) as a SluiceError. */
  async call<Res extends object>(
    operation: string,
    invoke: CoordinatorInvoker<Res>,
    options: CallOptions = {},
  ): Promise<Res> {
    const once = async (): Promise<Res> =>
      await this.cache.onMetadataService(ROTATE_ON, async (endpoint) => {
        const client = this.pool.groupClient(endpoint)
        const res = await callUnary<Res>(
          (o, cb) => invoke(client, o, cb),
          options.timeoutMs ?? this.options.requestTimeoutMs,
          options.signal,
        )
        const top = res as { error_code?: number; error_message?: string }
        if (top.error_code !== undefined && top.error_code !== 0) {
          throw SluiceError.fromId(top.error_code, top.error_message, { response: res, operation })
        }
        return res
      })
    if (options.retry === false) return await once()
    return await withRetry(once, {
      retry: this.options.retry,
      operation,
      signal: options.signal,
      onRetry: async (err) => {
        if (err.code === 'METADATA_UNAVAILABLE') await this.cache.refresh().catch(() => {})
      },
    })
  }
}

/** The response a coordinator error carried, if any. */
export function responseOf<Res>(err: unknown): Res | undefined {
  return err instanceof SluiceError ? (err.details.response as Res | undefined) : undefined
}
