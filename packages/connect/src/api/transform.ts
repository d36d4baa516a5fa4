/**
 * Single-message transforms and the predicates that guard them (Kafka Connect's `transforms`
 * and `predicates` configs). A transform returns the changed record, or null to drop it.
 */
import type { ConfigField, ConnectorConfig } from './config-def.js'
import type { ConnectRecord } from './records.js'

export interface Transformation<R extends ConnectRecord = ConnectRecord> {
  readonly configDef: readonly ConfigField[]
  configure(config: ConnectorConfig): void
  apply(record: R): R | null
}

export interface Predicate<R extends ConnectRecord = ConnectRecord> {
  readonly configDef: readonly ConfigField[]
  configure(config: ConnectorConfig): void
  test(record: R): boolean
}
