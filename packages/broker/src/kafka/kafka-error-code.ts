/**
 * The Sluice ↔ Kafka error-code table lives in @sluice/protocol (kafka/kafka-error-code.ts), so the
 * broker's Kafka listener and the SDK's Kafka data path share one copy; the handlers import it
 * from here.
 */
export { kafkaErrorCode } from '@sluice/protocol'
