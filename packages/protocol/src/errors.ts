/**
 * The one error table of Sluice. Brokers, the metadata service and the SDK all read it: servers
 * put `id` into per-item `error_code` fields (and map whole-call failures to `grpc`), clients turn
 * ids back into typed `SluiceError`s and retry only what `retriable` allows.
 *
 * Ids never change once published. Where Kafka has the same error the id is Kafka's
 * (clients/src/main/java/org/apache/kafka/common/protocol/Errors.java); Sluice-only errors use
 * ids from 10000 up so they can never collide with a future Kafka id.
 */
import { status as GrpcStatus } from '@grpc/grpc-js'

export interface ErrorSpec {
  readonly id: number
  readonly grpc: GrpcStatus
  readonly retriable: boolean
  /** The client's cached metadata is probably stale: refresh before retrying. */
  readonly staleMetadata: boolean
  readonly description: string
}

function spec(
  id: number,
  grpc: GrpcStatus,
  retriable: boolean,
  staleMetadata: boolean,
  description: string,
): ErrorSpec {
  return { id, grpc, retriable, staleMetadata, description }
}

const S = GrpcStatus

export const ErrorCode = {
  UNKNOWN_SERVER_ERROR: spec(-1, S.INTERNAL, false, false, 'The server hit an unexpected error.'),
  NONE: spec(0, S.OK, false, false, 'No error.'),
  OFFSET_OUT_OF_RANGE: spec(
    1,
    S.OUT_OF_RANGE,
    false,
    false,
    'The requested offset is outside the range the partition holds.',
  ),
  CORRUPT_MESSAGE: spec(
    2,
    S.INVALID_ARGUMENT,
    false,
    false,
    'A record batch failed its CRC check or is otherwise corrupt.',
  ),
  UNKNOWN_TOPIC_OR_PARTITION: spec(3, S.NOT_FOUND, true, true, 'This server does not host this topic-partition.'),
  INVALID_FETCH_SIZE: spec(4, S.INVALID_ARGUMENT, false, false, 'The requested fetch size is invalid.'),
  LEADER_NOT_AVAILABLE: spec(
    5,
    S.UNAVAILABLE,
    true,
    true,
    'There is no leader for this partition right now (an election is in progress).',
  ),
  NOT_LEADER_OR_FOLLOWER: spec(
    6,
    S.FAILED_PRECONDITION,
    true,
    true,
    'This broker is not the leader (or a follower) of the partition.',
  ),
  REQUEST_TIMED_OUT: spec(7, S.DEADLINE_EXCEEDED, true, false, 'The request timed out.'),
  BROKER_NOT_AVAILABLE: spec(8, S.UNAVAILABLE, true, true, 'The broker is not available.'),
  REPLICA_NOT_AVAILABLE: spec(9, S.UNAVAILABLE, true, true, 'The replica is not available.'),
  MESSAGE_TOO_LARGE: spec(
    10,
    S.INVALID_ARGUMENT,
    false,
    false,
    'The request included a record batch larger than the maximum the server accepts.',
  ),
  NETWORK_EXCEPTION: spec(13, S.UNAVAILABLE, true, true, 'The server disconnected before a response was received.'),
  COORDINATOR_LOAD_IN_PROGRESS: spec(
    14,
    S.UNAVAILABLE,
    true,
    false,
    'The coordinator is loading and cannot serve this request yet.',
  ),
  COORDINATOR_NOT_AVAILABLE: spec(15, S.UNAVAILABLE, true, true, 'The coordinator is not available.'),
  NOT_COORDINATOR: spec(16, S.FAILED_PRECONDITION, true, true, 'This is not the right coordinator.'),
  INVALID_TOPIC_EXCEPTION: spec(
    17,
    S.INVALID_ARGUMENT,
    false,
    false,
    'The topic name is invalid or the request names an internal topic it may not touch.',
  ),
  RECORD_LIST_TOO_LARGE: spec(
    18,
    S.INVALID_ARGUMENT,
    false,
    false,
    'The request included records larger than the maximum segment size.',
  ),
  NOT_ENOUGH_REPLICAS: spec(
    19,
    S.UNAVAILABLE,
    true,
    false,
    'Fewer in-sync replicas than min.insync.replicas; nothing was appended.',
  ),
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: spec(
    20,
    S.UNAVAILABLE,
    true,
    false,
    'The records were appended, but fewer in-sync replicas than required remained.',
  ),
  INVALID_REQUIRED_ACKS: spec(21, S.INVALID_ARGUMENT, false, false, 'acks must be -1, 0 or 1.'),
  ILLEGAL_GENERATION: spec(
    22,
    S.FAILED_PRECONDITION,
    false,
    false,
    "The generation id is not the group's current generation.",
  ),
  INCONSISTENT_GROUP_PROTOCOL: spec(
    23,
    S.INVALID_ARGUMENT,
    false,
    false,
    "The member's protocol type or protocols are incompatible with the group.",
  ),
  INVALID_GROUP_ID: spec(24, S.INVALID_ARGUMENT, false, false, 'The group id is invalid.'),
  UNKNOWN_MEMBER_ID: spec(25, S.FAILED_PRECONDITION, false, false, 'The coordinator does not know this member id.'),
  INVALID_SESSION_TIMEOUT: spec(
    26,
    S.INVALID_ARGUMENT,
    false,
    false,
    'The session timeout is outside the range the coordinator allows.',
  ),
  REBALANCE_IN_PROGRESS: spec(27, S.FAILED_PRECONDITION, false, false, 'The group is rebalancing; rejoin.'),
  INVALID_COMMIT_OFFSET_SIZE: spec(28, S.INVALID_ARGUMENT, false, false, 'The committed offset metadata is too large.'),
  INVALID_TIMESTAMP: spec(32, S.INVALID_ARGUMENT, false, false, 'The timestamp is out of range.'),
  UNSUPPORTED_VERSION: spec(35, S.UNIMPLEMENTED, false, false, 'The request version is not supported.'),
  TOPIC_ALREADY_EXISTS: spec(36, S.ALREADY_EXISTS, false, false, 'The topic already exists.'),
  INVALID_PARTITIONS: spec(37, S.INVALID_ARGUMENT, false, false, 'The number of partitions is invalid.'),
  INVALID_REPLICATION_FACTOR: spec(
    38,
    S.INVALID_ARGUMENT,
    false,
    false,
    'The replication factor is invalid or larger than the number of live brokers.',
  ),
  INVALID_REPLICA_ASSIGNMENT: spec(39, S.INVALID_ARGUMENT, false, false, 'The replica assignment is invalid.'),
  INVALID_CONFIG: spec(40, S.INVALID_ARGUMENT, false, false, 'A configuration value is invalid.'),
  NOT_CONTROLLER: spec(
    41,
    S.FAILED_PRECONDITION,
    true,
    true,
    'This metadata-service instance is not the active controller.',
  ),
  INVALID_REQUEST: spec(42, S.INVALID_ARGUMENT, false, false, 'The request is malformed.'),
  POLICY_VIOLATION: spec(44, S.FAILED_PRECONDITION, false, false, 'The request violates a cluster policy.'),
  OUT_OF_ORDER_SEQUENCE_NUMBER: spec(
    45,
    S.FAILED_PRECONDITION,
    false,
    false,
    'The broker received an out-of-order sequence number from an idempotent producer.',
  ),
  DUPLICATE_SEQUENCE_NUMBER: spec(
    46,
    S.ALREADY_EXISTS,
    false,
    false,
    'The broker received a duplicate sequence number.',
  ),
  INVALID_PRODUCER_EPOCH: spec(
    47,
    S.FAILED_PRECONDITION,
    false,
    false,
    'The producer epoch is older than the one the broker knows.',
  ),
  INVALID_PRODUCER_ID_MAPPING: spec(
    49,
    S.FAILED_PRECONDITION,
    false,
    false,
    'The producer id does not match the transactional id.',
  ),
  KAFKA_STORAGE_ERROR: spec(56, S.UNAVAILABLE, true, true, 'The broker could not read or write the log on disk.'),
  LOG_DIR_NOT_FOUND: spec(57, S.NOT_FOUND, false, false, 'The log directory does not exist.'),
  UNKNOWN_PRODUCER_ID: spec(59, S.FAILED_PRECONDITION, false, false, 'The broker has no state for this producer id.'),
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: spec(
    53,
    S.PERMISSION_DENIED,
    false,
    false,
    'Transactional producers are not supported: a request with a transactional id is refused.',
  ),
  GROUP_ID_NOT_FOUND: spec(69, S.NOT_FOUND, false, false, 'The group does not exist.'),
  NON_EMPTY_GROUP: spec(68, S.FAILED_PRECONDITION, false, false, 'The group is not empty.'),
  FETCH_SESSION_ID_NOT_FOUND: spec(
    70,
    S.FAILED_PRECONDITION,
    true,
    false,
    'The fetch session does not exist (this broker declines fetch sessions: send session id 0).',
  ),
  INVALID_FETCH_SESSION_EPOCH: spec(
    71,
    S.FAILED_PRECONDITION,
    true,
    false,
    'The fetch session epoch is invalid (without a session only 0 and -1 are valid).',
  ),
  FENCED_LEADER_EPOCH: spec(
    74,
    S.FAILED_PRECONDITION,
    true,
    true,
    "The leader epoch in the request is older than the broker's.",
  ),
  UNKNOWN_LEADER_EPOCH: spec(
    75,
    S.FAILED_PRECONDITION,
    true,
    true,
    "The leader epoch in the request is newer than the broker's.",
  ),
  STALE_BROKER_EPOCH: spec(
    77,
    S.FAILED_PRECONDITION,
    false,
    false,
    "The broker epoch is not the broker's current session epoch.",
  ),
  OFFSET_NOT_AVAILABLE: spec(
    78,
    S.UNAVAILABLE,
    true,
    false,
    'The leader high watermark has not caught up after a leader change.',
  ),
  MEMBER_ID_REQUIRED: spec(
    79,
    S.FAILED_PRECONDITION,
    false,
    false,
    'The member must rejoin with the member id it was given.',
  ),
  PREFERRED_LEADER_NOT_AVAILABLE: spec(80, S.UNAVAILABLE, true, true, 'The preferred leader is not available.'),
  ELECTION_NOT_NEEDED: spec(84, S.FAILED_PRECONDITION, false, false, 'The partition already has its preferred leader.'),
  FENCED_INSTANCE_ID: spec(
    82,
    S.FAILED_PRECONDITION,
    false,
    false,
    'Another member with the same group instance id has been registered.',
  ),
  ELIGIBLE_LEADERS_NOT_AVAILABLE: spec(83, S.UNAVAILABLE, true, true, 'No eligible replica can become leader.'),
  INVALID_RECORD: spec(87, S.INVALID_ARGUMENT, false, false, 'A record failed validation on the broker.'),
  PRODUCER_FENCED: spec(
    90,
    S.FAILED_PRECONDITION,
    false,
    false,
    'A newer producer with the same transactional id has fenced this one.',
  ),
  UNKNOWN_TOPIC_ID: spec(100, S.NOT_FOUND, true, true, 'No topic has this topic id.'),
  INCONSISTENT_TOPIC_ID: spec(
    103,
    S.FAILED_PRECONDITION,
    true,
    true,
    'The topic id does not match the topic name (the topic was recreated).',
  ),
  INCONSISTENT_CLUSTER_ID: spec(
    104,
    S.FAILED_PRECONDITION,
    false,
    false,
    'The cluster id does not match this cluster.',
  ),
  INELIGIBLE_REPLICA: spec(
    107,
    S.FAILED_PRECONDITION,
    false,
    false,
    'The new ISR contains at least one ineligible replica (e.g. a broker in controlled shutdown).',
  ),
  // ---- Sluice-only errors (ids from 10000) ----
  INVALID_BATCH: spec(
    10000,
    S.INVALID_ARGUMENT,
    false,
    false,
    'A record batch is malformed (bad magic, truncated, or inconsistent header fields).',
  ),
  METADATA_UNAVAILABLE: spec(
    10001,
    S.UNAVAILABLE,
    true,
    true,
    'The metadata service cannot be reached or has lost its store.',
  ),
  META_BAD_VERSION: spec(
    10002,
    S.ABORTED,
    false,
    false,
    'A conditional metadata write saw a different version than expected.',
  ),
  META_NO_NODE: spec(10003, S.NOT_FOUND, false, false, 'The metadata node does not exist.'),
  META_NODE_EXISTS: spec(10004, S.ALREADY_EXISTS, false, false, 'The metadata node already exists.'),
  META_NOT_EMPTY: spec(10005, S.FAILED_PRECONDITION, false, false, 'The metadata node has children.'),
  META_SESSION_EXPIRED: spec(
    10006,
    S.FAILED_PRECONDITION,
    false,
    false,
    'The metadata session expired; register again.',
  ),
  DUPLICATE_BROKER_REGISTRATION: spec(
    10007,
    S.ALREADY_EXISTS,
    false,
    false,
    'A live broker with the same id is already registered.',
  ),
  INVALID_ARGUMENT: spec(10008, S.INVALID_ARGUMENT, false, false, 'An argument is invalid.'),
  DELIVERY_TIMEOUT: spec(
    10009,
    S.DEADLINE_EXCEEDED,
    false,
    false,
    'The record was not acknowledged within the delivery timeout.',
  ),
  CLIENT_CLOSED: spec(10010, S.CANCELLED, false, false, 'The client was closed.'),
  INTERNAL_ERROR: spec(
    10011,
    S.INTERNAL,
    false,
    false,
    'An internal invariant was violated; please report this as a bug.',
  ),
  PARTITION_NOT_ASSIGNED: spec(
    10012,
    S.FAILED_PRECONDITION,
    false,
    false,
    'The member committed an offset for a partition its current assignment does not include.',
  ),
} as const satisfies Record<string, ErrorSpec>

export type ErrorCodeName = keyof typeof ErrorCode

const byId = new Map<number, ErrorCodeName>()
for (const [name, s] of Object.entries(ErrorCode) as Array<[ErrorCodeName, ErrorSpec]>) {
  byId.set(s.id, name)
}

/** The name for a numeric id; an unknown id becomes UNKNOWN_SERVER_ERROR, never a crash. */
export function errorNameFromId(id: number): ErrorCodeName {
  return byId.get(id) ?? 'UNKNOWN_SERVER_ERROR'
}

export function errorId(name: ErrorCodeName): number {
  return ErrorCode[name].id
}

/** The typed error every Sluice package throws for operating errors. */
export class SluiceError extends Error {
  override readonly name = 'SluiceError'
  readonly code: ErrorCodeName
  readonly details: Readonly<Record<string, unknown>>

  constructor(
    code: ErrorCodeName,
    message?: string,
    details: Readonly<Record<string, unknown>> = {},
    options?: ErrorOptions,
  ) {
    super(message ?? ErrorCode[code].description, options)
    this.code = code
    this.details = details
    // Enumerable so structured logs serialise them.
    Object.defineProperty(this, 'message', { enumerable: true, value: this.message })
  }

  get id(): number {
    return ErrorCode[this.code].id
  }
  get retriable(): boolean {
    return ErrorCode[this.code].retriable
  }
  get staleMetadata(): boolean {
    return ErrorCode[this.code].staleMetadata
  }

  /** Converts a per-item error code from a response. */
  static fromId(id: number, message?: string, details: Record<string, unknown> = {}): SluiceError {
    const code = errorNameFromId(id)
    return new SluiceError(
      code,
      message !== undefined && message !== '' ? message : undefined,
      code === 'UNKNOWN_SERVER_ERROR' && id !== -1 ? { ...details, unknownErrorId: id } : details,
    )
  }
}

export function isSluiceError(e: unknown, code?: ErrorCodeName): e is SluiceError {
  return e instanceof SluiceError && (code === undefined || e.code === code)
}
