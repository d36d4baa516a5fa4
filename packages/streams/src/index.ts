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
