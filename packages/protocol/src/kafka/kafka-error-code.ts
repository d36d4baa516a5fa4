/**
 * Kafka error codes for the per-item error ids the broker operations answer with, and back. Sluice's
 * error table uses Kafka's own id wherever Kafka has the error, so those ids pass through unchanged
 * both ways; the Sluice-only ids (10000 and up) mean nothing to a Kafka client and become the
 * nearest Kafka error. One copy for both ends: the broker's Kafka listener answers with
 * kafkaErrorCode, and the SDK's Kafka data path reads answers with sluiceErrorFromKafka.
 */
import { ErrorCode, SluiceError, errorNameFromId, type ErrorCodeName } from '../errors.js'

const FIRST_SLUICE_ONLY_ID = 10_000

const NEAREST_KAFKA_ERROR: Partial<Record<ErrorCodeName, ErrorCodeName>> = {
  // Bad magic, truncation, inconsistent header fields: Kafka calls all of these a corrupt message.
  INVALID_BATCH: 'CORRUPT_MESSAGE',
  INVALID_ARGUMENT: 'INVALID_REQUEST',
  // Retriable for a Kafka client too: it refreshes its metadata and tries again.
  METADATA_UNAVAILABLE: 'BROKER_NOT_AVAILABLE',
  DELIVERY_TIMEOUT: 'REQUEST_TIMED_OUT',
}

/** The Kafka error code for a wire error id (absent = no error). */
export function kafkaErrorCode(id: number | undefined): number {
  if (id === undefined) return 0
  if (id < FIRST_SLUICE_ONLY_ID) return id
  return ErrorCode[NEAREST_KAFKA_ERROR[errorNameFromId(id)] ?? 'UNKNOWN_SERVER_ERROR'].id
}

/**
 * The SluiceError for a Kafka error code in an answer (a Kafka code is the Sluice id of the same
 * error). A code Sluice does not know becomes UNKNOWN_SERVER_ERROR with the code in its details,
 * as SluiceError.fromId does; the message is Kafka's when the answer carried one.
 */
export function sluiceErrorFromKafka(
  code: number,
  message?: string | null,
  details: Record<string, unknown> = {},
): SluiceError {
  return SluiceError.fromId(code, message ?? undefined, details)
}
