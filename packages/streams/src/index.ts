/** @sluice/streams: stream processing over Sluice topics (docs/streams.md). */
export type { Serde } from './api/serde.js'
export { StreamsError, isStreamsError, type StreamsErrorCode, type StreamsErrorOptions } from './errors.js'
export type { StreamRecord, StreamHeader, RecordMetadata, Windowed } from './api/record.js'
export type {
  Processor,
  ProcessorContext,
  ProcessorSupplier,
  PunctuationType,
  Cancellable,
} from './api/processor.js'
export { taskIdString, type TaskId } from './api/task-id.js'
export type {
  StateStore,
  KeyValue,
  KeyValueStore,
  ReadOnlyKeyValueStore,
  WindowStore,
  ReadOnlyWindowStore,
  WindowEntry,
  SessionStore,
  ReadOnlySessionStore,
  StoreBuilder,
  StoreSpec,
  StoreKind,
  FlushedEntry,
  FlushListener,
} from './state/store-types.js'
export { changelogTopic } from './state/store-types.js'
export {
  Stores,
  type LayeredStoreBuilder,
  type StoreOptions,
  type WindowStoreOptions,
  type SessionStoreOptions,
} from './state/stores.js'
export { Serdes } from './serdes/serdes.js'
export { StreamsBuilder } from './dsl/streams-builder.js'
export type { KStream, BranchedKStream, KGroupedStream, KTable, GlobalKTable } from './dsl/dsl-types.js'
export type {
  ConsumedOptions,
  ProducedOptions,
  RepartitionOptions,
  GroupedOptions,
  MaterializedOptions,
  MaterializedWithValueSerde,
  TableOptions,
  GlobalTableOptions,
} from './dsl/options.js'
export type {
  TimestampExtractor,
  ExtractorInput,
  TopicNameExtractor,
  StreamPartitioner,
} from './topology/node-defs.js'
export { Topology } from './topology/topology.js'
export type {
  TopologyDescription,
  SubtopologyDescription,
  NodeDescription,
  SourceDescription,
  ProcessorDescription,
  SinkDescription,
  StoreDescription,
  GlobalStoreDescription,
} from './topology/topology-description.js'
export { repartitionTopic } from './topology/topic-ref.js'
export { TopologyTestDriver, type TopologyTestDriverOptions } from './driver/topology-test-driver.js'
export { TestInputTopic, TestOutputTopic, type TestRecord } from './driver/test-topics.js'
export { TimeWindows } from './windows/time-windows.js'
export { SlidingWindows } from './windows/sliding-windows.js'
export { SessionWindows } from './windows/session-windows.js'
export type { WindowBounds } from './windows/durations.js'
export {
  Suppressed,
  BufferConfig,
  type BufferFullPolicy,
  untilWindowCloses,
  untilTimeLimit,
  unbounded,
  maxRecords,
  maxBytes,
} from './processors/suppressed.js'
export type { WindowedKStream } from './dsl/dsl-types.js'
export type { WindowedMaterializedOptions } from './dsl/options.js'
export { windowedSerde } from './windows/windowed-serde.js'
export {
  StreamsApp,
  type PlanSource,
  type StreamsAppState,
  type StreamsAppMetrics,
  type TaskMetricsSnapshot,
} from './runtime/streams-app.js'
export type { StandbyMetricsSnapshot, StandbyChangelogMetrics } from './runtime/standby-tasks.js'
export type { StreamsConfig, DeserializationErrorPolicy } from './runtime/streams-config.js'
export type { KeyQueryMetadata } from './runtime/interactive-queries.js'
export {
  startQueryServer,
  type QueryServer,
  type QueryableApp,
  type ServedStore,
} from './runtime/query-http-server.js'
export type { RestoreMetrics } from './runtime/restore-progress.js'
export { JoinWindows } from './joins/join-windows.js'
export {
  StreamJoined,
  THIS_JOIN_STORE_SUFFIX,
  OTHER_JOIN_STORE_SUFFIX,
  OUTER_SHARED_JOIN_STORE_SUFFIX,
} from './joins/stream-joined.js'
export type { JoinKind, JoinSide, ValueJoiner } from './joins/join-types.js'
export type { GlobalKeySelector, GlobalValueJoiner } from './joins/stream-global-table-join.js'
export type { TimestampedValue } from './joins/timestamped-value.js'
