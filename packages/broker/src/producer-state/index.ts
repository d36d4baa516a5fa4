// Idempotent-producer state per partition (docs/kafka-facts.md §4.2); see producer-state-manager.ts.
export {
  ProducerStateManager,
  DEFAULT_PRODUCER_ID_EXPIRATION_MS,
  type AppendOutcome,
  type ProducerStateOptions,
} from './producer-state-manager.js'
export {
  ProducerStateTable,
  MAX_CACHED_BATCHES,
  type CachedBatch,
  type ProducerEntry,
  type ProducerBatchInfo,
  type LeaderCheck,
} from './producer-state-table.js'
export { producerStateSweeper, SWEEP_INTERVAL_MS } from './producer-state-sweeper.js'
export { SNAPSHOT_FILE, encodeSnapshot, decodeSnapshot } from './producer-state-snapshot.js'
export { incrementSequence, decrementSequence, inSequence, INT32_MAX } from './sequence.js'
