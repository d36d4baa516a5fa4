/**
 * What the handlers answered by the metadata service share: a call on the coordinator or the
 * controller through the broker's forwarder, with the request's endpoints and cancellation
 * (toCoordinator, toController), and the Kafka error code for a call that failed.
 *
 * A failed call is one of two things. The metadata service could not be reached or was not the
 * active controller (transport errors, NOT_CONTROLLER / NOT_COORDINATOR, METADATA_UNAVAILABLE):
 * the answer is a retriable Kafka error the client acts on (COORDINATOR_NOT_AVAILABLE for group
 * APIs, so the client looks the coordinator up again and retries). Or the service refused the
 * request with a typed error: that error keeps its code, which is Kafka's wherever Kafka has it.
 */
import { SluiceError, errorId, errorNameFromId, type ErrorCodeName, type wire } from '@sluice/protocol'
import type { KafkaRequestContext } from '../kafka-api-handler.js'
import { kafkaErrorCode } from '../kafka-error-code.js'
import { forwarderFor, type ForwardOptions, type Invoker } from '../metadata-forwarder.js'

function forwardOptions(ctx: KafkaRequestContext, timeoutMs?: number): ForwardOptions {
  return {
    signal: ctx.signal,
    endpoints: ctx.metadataEndpoints(),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  }
}

/** The errors that say the metadata service was out of reach, rather than what it decided. */
const UNREACHABLE = new Set<ErrorCodeName>([
  'NETWORK_EXCEPTION',
  'REQUEST_TIMED_OUT',
  'NOT_CONTROLLER',
  'NOT_COORDINATOR',
  'COORDINATOR_NOT_AVAILABLE',
  'METADATA_UNAVAILABLE',
  'BROKER_NOT_AVAILABLE',
])

/**
 * Sluice-only ids whose nearest Kafka error depends on the API family: a member committing a
 * partition outside its assignment missed a rebalance, and ILLEGAL_GENERATION makes a Kafka
 * client rejoin, which is the way out.
 */
const GROUP_ERRORS: Partial<Record<ErrorCodeName, ErrorCodeName>> = {
  PARTITION_NOT_ASSIGNED: 'ILLEGAL_GENERATION',
  METADATA_UNAVAILABLE: 'COORDINATOR_NOT_AVAILABLE',
}

export interface KafkaFailure {
  readonly errorCode: number
  readonly errorMessage: string
}

/**
 * The Kafka error for a thrown error: `unreachable` when the metadata service could not answer,
 * the typed error's own code otherwise. Anything untyped is a bug: logged, UNKNOWN_SERVER_ERROR.
 */
export function failureOf(
  ctx: KafkaRequestContext,
  err: unknown,
  unreachable: ErrorCodeName,
  codeOf: (id: number) => number = kafkaErrorCode,
): KafkaFailure {
  if (err instanceof SluiceError) {
    if (UNREACHABLE.has(err.code))
      return { errorCode: errorId(unreachable), errorMessage: `metadata service unavailable: ${err.message}` }
    return { errorCode: codeOf(err.id), errorMessage: err.message }
  }
  ctx.broker.logger.error({ err, apiKey: ctx.header.apiKey }, 'unexpected error in a forwarded Kafka request')
  return { errorCode: errorId('UNKNOWN_SERVER_ERROR'), errorMessage: String((err as Error)?.message ?? err) }
}

/** A group coordinator's error id as a Kafka code. */
export function groupErrorCode(id: number): number {
  const nearest = id === 0 ? undefined : GROUP_ERRORS[errorNameFromId(id)]
  return nearest !== undefined ? errorId(nearest) : kafkaErrorCode(id)
}

/** Kafka's null for an absent string where the schema allows it; the gRPC shapes use ''. */
export function nullIfEmpty(s: string): string | null {
  return s === '' ? null : s
}

/**
 * The client's address for DescribeGroups' client host: the Kafka listener's connection ids
 * follow Kafka's format, "localHost:localPort-remoteHost:remotePort-index".
 */
export function clientHostOf(connectionId: string): string {
  const remote = connectionId.split('-')[1]
  if (remote === undefined) return ''
  const colon = remote.lastIndexOf(':')
  return colon > 0 ? remote.slice(0, colon) : remote
}

/** A call on the GroupCoordinator service with the request's endpoints and cancellation. */
export function toCoordinator<Res>(
  ctx: KafkaRequestContext,
  invoke: Invoker<wire.GroupCoordinatorClient, Res>,
  timeoutMs?: number,
): Promise<Res> {
  return forwarderFor(ctx.broker).group(invoke, forwardOptions(ctx, timeoutMs))
}

/** A call on the Metadata service (the controller) with the request's endpoints and cancellation. */
export function toController<Res>(
  ctx: KafkaRequestContext,
  invoke: Invoker<wire.MetadataClient, Res>,
  timeoutMs?: number,
): Promise<Res> {
  return forwarderFor(ctx.broker).metadata(invoke, forwardOptions(ctx, timeoutMs))
}
