/**
 * The one error table of Sluice. Brokers, the metadata service and the SDK all read it: servers
 * put `id` into per-item `error_code` fields (and map whole-call failures to `grpc`), clients turn
 * ids back into typed `SluiceError`s and retry only what `retriable` allows.
 *
 * Ids never change once published. Where Kafka has the same error the id is Kafka's
 * (clients/src/main/java/org/apache/kafka/common/protocol/Errors.java); Sluice-only errors use
 * ids from 10000 up so they can never collide with a future Kafka id.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
export interface ErrorSpec {
    readonly id: number;
    readonly grpc: GrpcStatus;
    readonly retriable: boolean;
    /** The client's cached metadata is probably stale: refresh before retrying. */
    readonly staleMetadata: boolean;
    readonly description: string;
}
export declare const ErrorCode: {
    readonly UNKNOWN_SERVER_ERROR: ErrorSpec;
    readonly NONE: ErrorSpec;
    readonly OFFSET_OUT_OF_RANGE: ErrorSpec;
    readonly CORRUPT_MESSAGE: ErrorSpec;
    readonly UNKNOWN_TOPIC_OR_PARTITION: ErrorSpec;
    readonly INVALID_FETCH_SIZE: ErrorSpec;
    readonly LEADER_NOT_AVAILABLE: ErrorSpec;
    readonly NOT_LEADER_OR_FOLLOWER: ErrorSpec;
    readonly REQUEST_TIMED_OUT: ErrorSpec;
    readonly BROKER_NOT_AVAILABLE: ErrorSpec;
    readonly REPLICA_NOT_AVAILABLE: ErrorSpec;
    readonly MESSAGE_TOO_LARGE: ErrorSpec;
    readonly NETWORK_EXCEPTION: ErrorSpec;
    readonly COORDINATOR_LOAD_IN_PROGRESS: ErrorSpec;
    readonly COORDINATOR_NOT_AVAILABLE: ErrorSpec;
    readonly NOT_COORDINATOR: ErrorSpec;
    readonly INVALID_TOPIC_EXCEPTION: ErrorSpec;
    readonly RECORD_LIST_TOO_LARGE: ErrorSpec;
    readonly NOT_ENOUGH_REPLICAS: ErrorSpec;
    readonly NOT_ENOUGH_REPLICAS_AFTER_APPEND: ErrorSpec;
    readonly INVALID_REQUIRED_ACKS: ErrorSpec;
    readonly ILLEGAL_GENERATION: ErrorSpec;
    readonly INCONSISTENT_GROUP_PROTOCOL: ErrorSpec;
    readonly INVALID_GROUP_ID: ErrorSpec;
    readonly UNKNOWN_MEMBER_ID: ErrorSpec;
    readonly INVALID_SESSION_TIMEOUT: ErrorSpec;
    readonly REBALANCE_IN_PROGRESS: ErrorSpec;
    readonly INVALID_COMMIT_OFFSET_SIZE: ErrorSpec;
    readonly INVALID_TIMESTAMP: ErrorSpec;
    readonly UNSUPPORTED_VERSION: ErrorSpec;
    readonly TOPIC_ALREADY_EXISTS: ErrorSpec;
    readonly INVALID_PARTITIONS: ErrorSpec;
    readonly INVALID_REPLICATION_FACTOR: ErrorSpec;
    readonly INVALID_REPLICA_ASSIGNMENT: ErrorSpec;
    readonly INVALID_CONFIG: ErrorSpec;
    readonly NOT_CONTROLLER: ErrorSpec;
    readonly INVALID_REQUEST: ErrorSpec;
    readonly POLICY_VIOLATION: ErrorSpec;
    readonly OUT_OF_ORDER_SEQUENCE_NUMBER: ErrorSpec;
    readonly DUPLICATE_SEQUENCE_NUMBER: ErrorSpec;
    readonly INVALID_PRODUCER_EPOCH: ErrorSpec;
    readonly INVALID_PRODUCER_ID_MAPPING: ErrorSpec;
    readonly KAFKA_STORAGE_ERROR: ErrorSpec;
    readonly LOG_DIR_NOT_FOUND: ErrorSpec;
    readonly UNKNOWN_PRODUCER_ID: ErrorSpec;
    readonly GROUP_ID_NOT_FOUND: ErrorSpec;
    readonly NON_EMPTY_GROUP: ErrorSpec;
    readonly FENCED_LEADER_EPOCH: ErrorSpec;
    readonly UNKNOWN_LEADER_EPOCH: ErrorSpec;
    readonly STALE_BROKER_EPOCH: ErrorSpec;
    readonly OFFSET_NOT_AVAILABLE: ErrorSpec;
    readonly MEMBER_ID_REQUIRED: ErrorSpec;
    readonly PREFERRED_LEADER_NOT_AVAILABLE: ErrorSpec;
    readonly ELECTION_NOT_NEEDED: ErrorSpec;
    readonly FENCED_INSTANCE_ID: ErrorSpec;
    readonly ELIGIBLE_LEADERS_NOT_AVAILABLE: ErrorSpec;
    readonly INVALID_RECORD: ErrorSpec;
    readonly PRODUCER_FENCED: ErrorSpec;
    readonly INCONSISTENT_TOPIC_ID: ErrorSpec;
    readonly INCONSISTENT_CLUSTER_ID: ErrorSpec;
    readonly INVALID_BATCH: ErrorSpec;
    readonly METADATA_UNAVAILABLE: ErrorSpec;
    readonly META_BAD_VERSION: ErrorSpec;
    readonly META_NO_NODE: ErrorSpec;
    readonly META_NODE_EXISTS: ErrorSpec;
    readonly META_NOT_EMPTY: ErrorSpec;
    readonly META_SESSION_EXPIRED: ErrorSpec;
    readonly DUPLICATE_BROKER_REGISTRATION: ErrorSpec;
    readonly INVALID_ARGUMENT: ErrorSpec;
    readonly DELIVERY_TIMEOUT: ErrorSpec;
    readonly CLIENT_CLOSED: ErrorSpec;
    readonly INTERNAL_ERROR: ErrorSpec;
};
export type ErrorCodeName = keyof typeof ErrorCode;
/** The name for a numeric id; an unknown id becomes UNKNOWN_SERVER_ERROR, never a crash. */
export declare function errorNameFromId(id: number): ErrorCodeName;
export declare function errorId(name: ErrorCodeName): number;
/** The typed error every Sluice package throws for operating errors. */
export declare class SluiceError extends Error {
    readonly name = "SluiceError";
    readonly code: ErrorCodeName;
    readonly details: Readonly<Record<string, unknown>>;
    constructor(code: ErrorCodeName, message?: string, details?: Readonly<Record<string, unknown>>, options?: ErrorOptions);
    get id(): number;
    get retriable(): boolean;
    get staleMetadata(): boolean;
    /** Converts a per-item error code from a response. */
    static fromId(id: number, message?: string, details?: Record<string, unknown>): SluiceError;
}
export declare function isSluiceError(e: unknown, code?: ErrorCodeName): e is SluiceError;
//# sourceMappingURL=errors.d.ts.map