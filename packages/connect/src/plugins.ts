/**
 * The connector plugins a worker can run, by Kafka's class name or a short alias
 * (`connector.class` accepts either, as Kafka Connect accepts a class's simple name).
 */
import type { Connector } from './api/connector.js'
import { FileSinkConnector } from './connectors/file/file-sink.js'
import { FileSourceConnector } from './connectors/file/file-source.js'
import { PostgresSinkConnector } from './connectors/postgres/postgres-sink.js'
import { PostgresSourceConnector } from './connectors/postgres/postgres-source.js'
import { ConnectError } from './errors.js'

export interface ConnectorPlugin {
  /** The canonical class name GET /connector-plugins shows. */
  readonly className: string
  readonly aliases: readonly string[]
  readonly type: 'source' | 'sink'
  create(): Connector
}

export const BUILT_IN_PLUGINS: readonly ConnectorPlugin[] = [
  {
    className: 'org.apache.kafka.connect.file.FileStreamSourceConnector',
    aliases: ['FileStreamSourceConnector', 'FileStreamSource', 'file-source'],
    type: 'source',
    create: () => new FileSourceConnector(),
  },
  {
    className: 'org.apache.kafka.connect.file.FileStreamSinkConnector',
    aliases: ['FileStreamSinkConnector', 'FileStreamSink', 'file-sink'],
    type: 'sink',
    create: () => new FileSinkConnector(),
  },
  {
    className: 'io.sluice.connect.postgres.PostgresSourceConnector',
    aliases: ['io.debezium.connector.postgresql.PostgresConnector', 'PostgresConnector', 'postgres-source'],
    type: 'source',
    create: () => new PostgresSourceConnector(),
  },
  {
    className: 'io.sluice.connect.postgres.PostgresSinkConnector',
    aliases: ['PostgresSinkConnector', 'postgres-sink'],
    type: 'sink',
    create: () => new PostgresSinkConnector(),
  },
]

export class PluginRegistry {
  constructor(private readonly plugins: readonly ConnectorPlugin[] = BUILT_IN_PLUGINS) {}

  list(): readonly ConnectorPlugin[] {
    return this.plugins
  }

  /** The plugin `connector.class` names; ConnectError 'CONFIG' (field connector.class) for none. */
  resolve(name: string | undefined): ConnectorPlugin {
    if (name === undefined || name === '') {
      throw new ConnectError('CONFIG', 'connector.class: Missing required configuration "connector.class"', {
        details: { field: 'connector.class' },
      })
    }
    const p = this.find(name)
    if (p === undefined) {
      throw new ConnectError(
        'CONFIG',
        `connector.class: no plugin named ${name}; known: ${this.plugins.map((x) => x.className).join(', ')}`,
        {
          details: { field: 'connector.class' },
        },
      )
    }
    return p
  }

  find(name: string): ConnectorPlugin | undefined {
    const short = name.split('.').pop()!
    return this.plugins.find((p) => p.className === name || p.aliases.includes(name) || p.aliases.includes(short))
  }
}
