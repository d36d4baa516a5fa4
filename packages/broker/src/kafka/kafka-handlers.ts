/**
 * The registry of Kafka API handlers: every API the listener answers is one entry here, and
 * nothing else (ApiVersions lists exactly these). Add a handler by appending it to the list.
 */
import { apiVersionsHandler } from './api-versions-handler.js'
import { coordinatorHandlers } from './handlers/coordinator-handlers.js'
import { dataHandlers } from './handlers/data-handlers.js'
import type { KafkaApiHandler } from './kafka-api-handler.js'

export function kafkaHandlers(): readonly KafkaApiHandler<unknown, unknown>[] {
  return [apiVersionsHandler, ...dataHandlers, ...coordinatorHandlers]
}
