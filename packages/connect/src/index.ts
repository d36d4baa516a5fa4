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
