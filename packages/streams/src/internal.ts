/** For sibling packages and tests only; not a stable API. */
export * from './index.js'
export type * from './runtime/task-contract.js'
export type { ChangelogRecord, ChangelogWriter, StateStoreContext } from './state/store-types.js'
// The group assignor the runtime plugs into its consumer, and its pure parts (docs/streams.md, "Task assignment").
export {
  StreamsPartitionAssignor,
  STREAMS_ASSIGNOR_NAME,
  withholdClaimed,
  type StreamsPartitionAssignorOptions,
  type StreamsTaskAssignment,
} from './runtime/assignment/streams-partition-assignor.js'
export {
  assignTasks,
  tasksOf,
  type TaskAssignmentInput,
  type TaskAssignment,
  type TaskAssignorMember,
  type MemberTasks,
  type SubtopologySources,
  type TaskSources,
} from './runtime/assignment/task-assignor.js'
export {
  encodeSubscriptionInfo,
  decodeSubscriptionInfo,
  encodeAssignmentInfo,
  decodeAssignmentInfo,
  STREAMS_USER_DATA_VERSION,
  type StreamsSubscriptionInfo,
  type StreamsAssignmentInfo,
  type TaskLag,
} from './runtime/assignment/streams-user-data.js'

export type { BytesEngine, BytesEngineFactory, BytesLayer, BytesEntry } from './state/bytes-engine.js'
export { SortedBytesMap } from './state/sorted-bytes-map.js'
export { InMemoryBytesEngine } from './state/in-memory-engine.js'
export { LmdbBytesEngine, LMDB_MAX_KEY_BYTES } from './state/lmdb-engine.js'
export { ChangeLoggingLayer } from './state/change-logging-layer.js'
export {
  CachingLayer,
  DEFAULT_CACHE_MAX_BYTES,
  type CacheFlushEntry,
  type CacheFlushListener,
} from './state/caching-layer.js'
export { LayeredStore, DEFAULT_LAYER_OPTIONS, type LayerOptions } from './state/layered-store.js'
export { TypedKeyValueStore } from './state/key-value-store.js'
export { TypedWindowStore } from './state/window-store.js'
export { TypedSessionStore } from './state/session-store.js'
export { checkName as checkStoreName } from './state/stores.js'
export { TopologyGraph, requireName, type GlobalStoreDef } from './topology/topology-graph.js'
export type { NodeDef, SourceNodeDef, ProcessorNodeDef, SinkNodeDef } from './topology/node-defs.js'
export { type TopicRef, resolveTopic, describeTopic } from './topology/topic-ref.js'
export { splitSubtopologies, type Subtopology } from './topology/subtopology-split.js'
export { planTopology, type BuiltTopology } from './topology/topology-plan.js'
export { TopologyStreamTask } from './topology/stream-task.js'
export { PunctuationQueue } from './topology/punctuation-queue.js'
export { TaskNode, NodeProcessorContext, type InternalProcessorContext } from './topology/task-node.js'
export { serdeError } from './serdes/serde-error.js'
// The windowed processors the DSL wires (windowedBy(...).count/reduce/aggregate, suppress).
export * from './processors/window-aggregation.js'
export { LatenessCounters } from './processors/lateness-counters.js'
export * from './processors/time-window-aggregate.js'
export * from './processors/sliding-window-aggregate.js'
export * from './processors/session-window-aggregate.js'
export * from './processors/suppress-processor.js'
export { stableKey, estimateBytes } from './processors/stable-key.js'
export { slidingRecordsSerde } from './processors/sliding-records-serde.js'
export * from './processors/windowed-aggregate-plan.js'
export {
  CHECKPOINT_FILE,
  checkpointPath,
  readCheckpoint,
  writeCheckpoint,
  removeCheckpoint,
  type CheckpointRead,
  type CheckpointStatus,
} from './state/checkpoint.js'
export { streamStreamJoin, type StreamStreamJoinOptions } from './joins/stream-stream-join.js'
export { streamJoinStores, streamJoinStoreNames, type StreamJoinStoreNames } from './joins/stream-joined.js'
export { streamTableJoin, type StreamTableJoinOptions } from './joins/stream-table-join.js'
export { tableStoreWriter } from './joins/table-store-writer.js'
export { tableTableJoin, type TableTableJoinOptions } from './joins/table-table-join.js'
export { streamGlobalTableJoin, type StreamGlobalTableJoinOptions } from './joins/stream-global-table-join.js'
export { timestampedValueSerde } from './joins/timestamped-value.js'
