/**
 * The Kafka handlers of the data path: metadata, produce, fetch, offsets and record deletion.
 * The listener's registry lists them beside the other groups of handlers.
 */
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { deleteRecordsHandler } from './delete-records-handler.js'
import { fetchHandler } from './fetch-handler.js'
import { listOffsetsHandler } from './list-offsets-handler.js'
import { metadataHandler } from './metadata-handler.js'
import { offsetForLeaderEpochHandler } from './offset-for-leader-epoch-handler.js'
import { produceHandler } from './produce-handler.js'

export const dataHandlers: readonly KafkaApiHandler<unknown, unknown>[] = [
  produceHandler,
  fetchHandler,
  listOffsetsHandler,
  metadataHandler,
  deleteRecordsHandler,
  offsetForLeaderEpochHandler,
]
