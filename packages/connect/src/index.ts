/** @sluice/connect: connectors between Sluice topics and other systems (docs/connect.md). */
export { ConnectError, isConnectError, configError, type ConnectErrorCode, type ConnectErrorOptions } from './errors.js'
export type { Schema, SchemaType, Field } from './api/schema.js'
export { structSchema } from './api/schema.js'
export type { ConnectHeader, ConnectRecord, SourceRecord, SinkRecord } from './api/records.js'
export {
  validateConfig,
  parseConfig,
  type ConfigField,
  type ConfigType,
  type ConnectorConfig,
  type FieldResult,
} from './api/config-def.js'
export type {
  Connector,
  ExclusiveResource,
  ConnectorContext,
  SourceConnector,
  SinkConnector,
  SourceTask,
  SourceTaskContext,
  SinkTask,
  SinkTaskContext,
} from './api/connector.js'
export type { Converter, SchemaAndValue } from './api/converter.js'
export type { Transformation, Predicate } from './api/transform.js'
export { startConnectWorker, type RunningConnectWorker } from './start-worker.js'
export { ConnectWorker } from './worker/connect-worker.js'
export type { WorkerConfig } from './worker/worker-config.js'
export { BUILT_IN_PLUGINS, type ConnectorPlugin } from './plugins.js'

// Converters (docs/connect.md §Converters).
export { JsonConverter, JSON_CONVERTER_CONFIG } from './converters/json-converter.js'
export { StringConverter, STRING_CONVERTER_CONFIG } from './converters/string-converter.js'
export { ByteArrayConverter } from './converters/byte-array-converter.js'
export {
  createConverter,
  converterConfig,
  converterFromConfig,
  CONVERTER_NAMES,
} from './converters/create-converter.js'
export { parseJsonText, stringifyJson, type JsonValue } from './converters/json-text.js'

// Single-message transforms and predicates (docs/connect.md §Transforms).
export { buildTransformChain, TransformChain, type TransformStep } from './transforms/transform-chain.js'
export {
  BUILTIN_TRANSFORM_PLUGINS,
  type TransformPlugins,
  type TransformFactory,
  type PredicateFactory,
} from './transforms/transform-plugins.js'
export { InsertField } from './transforms/insert-field.js'
export { ReplaceField } from './transforms/replace-field.js'
export { MaskField } from './transforms/mask-field.js'
export { ExtractTopic } from './transforms/extract-topic.js'
export { RegexRouter } from './transforms/regex-router.js'
export { Filter } from './transforms/filter.js'
export { TopicNameMatches, HasHeaderKey, RecordIsTombstone } from './transforms/predicates.js'
export type { RecordPart } from './transforms/record-part.js'

// Error handling (docs/connect.md §Error handling).
export {
  parseErrorHandlingConfig,
  ERROR_HANDLING_CONFIG,
  DEAD_LETTER_QUEUE_CONFIG,
  type ErrorHandlingConfig,
  type ErrorTolerance,
} from './errors-handling/error-handling-config.js'
export {
  RetryWithToleranceOperator,
  type DeadLetterSink,
  type ErrorMetrics,
  type RetryWithToleranceDeps,
  type StageContext,
  type StageResult,
} from './errors-handling/retry-with-tolerance.js'
export {
  errorContextHeaders,
  type ConsumedRecord,
  type DeadLetterRecord,
  type ErrorContext,
  type ErrorStage,
} from './errors-handling/error-context.js'
export { isRetriable, retriableError } from './errors-handling/retriable.js'
