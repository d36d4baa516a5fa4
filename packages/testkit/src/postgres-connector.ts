/**
 * The PostgreSQL source connector's config for a server started by `startPostgres()`: the
 * connection fields (Debezium's names) and the topic prefix, which every change-capture test
 * and benchmark repeats; what differs (slot, publication, tables, snapshot mode) comes in
 * `overrides`. Connector configs are string maps, as in Kafka Connect's REST API.
 */
import type { PostgresHandle } from './postgres.js'

export function postgresSourceConfig(
  server: PostgresHandle,
  database: string,
  topicPrefix: string,
  overrides: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return {
    'connector.class': 'io.debezium.connector.postgresql.PostgresConnector',
    'database.hostname': server.host,
    'database.port': String(server.port),
    'database.user': server.user,
    'database.dbname': database,
    'topic.prefix': topicPrefix,
    ...overrides,
  }
}
