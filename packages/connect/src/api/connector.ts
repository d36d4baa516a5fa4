/**
 * The interfaces a connector implements. A connector is configured once and splits its work
 * into at most `tasks.max` task configs; the worker runs each task (on whichever worker of the
 * group holds it) and moves data between the task and Sluice topics:
 * - a source task's poll() returns records, which the worker converts, transforms and
 *   produces; once they are acknowledged their source offsets are stored (the offsets topic)
 *   and commit() tells the task, so it may release what the source holds for them;
 * - a sink task's put() gets records the worker consumed (through the connector's consumer
 *   group `connect-<name>`), and flush() is called before their offsets are committed, so
 *   anything flush() confirmed is never read again and anything it did not is.
 */
import type { ConfigField, ConnectorConfig } from './config-def.js'
import type { SinkRecord, SourceRecord } from './records.js'
import type { Logger } from '@sluice/client'

export interface ConnectorContext {
  readonly name: string
  readonly logger: Logger
  /** Asks the worker to call taskConfigs() again (the source's shape changed: a new table). */
  requestTaskReconfiguration(): void
}

/** Something outside Sluice a connector must hold alone, such as a replication slot. */
export interface ExclusiveResource {
  /** Equal ids name the same thing (e.g. `postgres-slot:<host>:<port>/<slot>`). */
  readonly id: string
  /** The config field that names it, for the 400 answer. */
  readonly field: string
  /** How a person would name it: "replication slot debezium on db:5432". */
  readonly description: string
}

interface ConnectorBase {
  /** The plugin's version, shown by GET /connector-plugins. */
  readonly version: string
  /** Fields checked before start() and listed by the validate endpoint. */
  readonly configDef: readonly ConfigField[]
  start(config: ConnectorConfig, ctx: ConnectorContext): Promise<void> | void
  /** At most `maxTasks` configs, one per task to run. */
  taskConfigs(maxTasks: number): ConnectorConfig[]
  stop(): Promise<void> | void
  /**
   * What this config would hold alone. The worker refuses a connector that names something
   * another connector already holds. For example, two change-capture connectors on one slot
   * would each confirm WAL the other has not read yet.
   */
  exclusiveResources?(config: ConnectorConfig): ExclusiveResource[]
}

export interface SourceConnector extends ConnectorBase {
  readonly kind: 'source'
  createTask(): SourceTask
}

export interface SinkConnector extends ConnectorBase {
  readonly kind: 'sink'
  createTask(): SinkTask
}

export type Connector = SourceConnector | SinkConnector

export interface SourceTaskContext {
  readonly connector: string
  readonly taskId: number
  readonly logger: Logger
  /** The newest stored offset of each source partition asked for (undefined: none stored). */
  offsetOf(sourcePartition: Readonly<Record<string, unknown>>): Promise<Readonly<Record<string, unknown>> | undefined>
}

export interface SourceTask {
  start(config: ConnectorConfig, ctx: SourceTaskContext): Promise<void> | void
  /**
   * The next records, or an empty array when there is nothing now. It may wait a little for
   * data (a few hundred ms at most) so the worker can stop it promptly; `signal` aborts a wait.
   */
  poll(signal: AbortSignal): Promise<SourceRecord[]>
  /**
   * The offsets up to these records are stored: what the source keeps for them may be released
   * (PostgreSQL's confirmed LSN). Called after the offsets topic acknowledged them.
   */
  commit?(committed: ReadonlyMap<string, Readonly<Record<string, unknown>>>): Promise<void> | void
  stop(): Promise<void> | void
}

export interface SinkTaskContext {
  readonly connector: string
  readonly taskId: number
  readonly logger: Logger
}

export interface SinkTask {
  start(config: ConnectorConfig, ctx: SinkTaskContext): Promise<void> | void
  /** Records in offset order per partition; may buffer them until flush(). */
  put(records: readonly SinkRecord[]): Promise<void> | void
  /** Makes everything put() so far durable in the external system. */
  flush(): Promise<void> | void
  stop(): Promise<void> | void
}
