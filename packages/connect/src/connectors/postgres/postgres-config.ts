/**
 * The PostgreSQL source connector's config fields (Debezium's names, so a Debezium connector
 * config works), parsed into a typed config. The connection fields are shared with the sink.
 */
import type { ConfigField, ConnectorConfig } from '../../api/config-def.js'
import { parseConfig } from '../../api/config-def.js'
import { PG_SESSION_OPTIONS } from './pg-types.js'

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/

function identifier(v: unknown): string | undefined {
  return typeof v === 'string' && IDENT.test(v) ? undefined : 'must be a plain SQL identifier (letters, digits, _)'
}

function nonEmpty(v: unknown): string | undefined {
  return v === '' ? 'must not be empty' : undefined
}

function regexList(v: unknown): string | undefined {
  for (const s of v as string[]) {
    try {
      new RegExp(s)
    } catch (e) {
      return `not a regular expression: ${s} (${(e as Error).message})`
    }
  }
  return undefined
}

export const CONNECTION_FIELDS: readonly ConfigField[] = [
  { name: 'database.hostname', type: 'string', doc: 'PostgreSQL host.', group: 'Connection', check: nonEmpty },
  { name: 'database.port', type: 'int', default: '5432', doc: 'PostgreSQL port.', group: 'Connection' },
  { name: 'database.user', type: 'string', doc: 'User (replication privilege for the source).', group: 'Connection' },
  { name: 'database.password', type: 'password', default: '', doc: 'Password.', group: 'Connection' },
  { name: 'database.dbname', type: 'string', doc: 'Database.', group: 'Connection', check: nonEmpty },
]

export const SOURCE_FIELDS: readonly ConfigField[] = [
  ...CONNECTION_FIELDS,
  {
    name: 'topic.prefix',
    type: 'string',
    doc: 'Topics are <prefix>.<schema>.<table>; also the source partition.',
    check: (v) => (typeof v === 'string' && /^[A-Za-z0-9._-]+$/.test(v) ? undefined : 'must be letters, digits, . _ -'),
  },
  {
    name: 'table.include.list',
    type: 'list',
    default: '',
    doc: 'Regular expressions matching <schema>.<table> of the tables to capture; empty: every table of the publication.',
    check: regexList,
  },
  { name: 'slot.name', type: 'string', default: 'debezium', doc: 'The logical replication slot.', check: identifier },
  {
    name: 'publication.name',
    type: 'string',
    default: 'dbz_publication',
    doc: 'The publication pgoutput streams; created (for the included tables) if missing.',
    check: identifier,
  },
  { name: 'plugin.name', type: 'string', default: 'pgoutput', oneOf: ['pgoutput'], doc: 'Only pgoutput.' },
  {
    name: 'snapshot.mode',
    type: 'string',
    default: 'initial',
    oneOf: ['initial', 'no_data', 'never'],
    doc: 'initial: the existing rows first (op r); no_data (or never): only changes from now.',
  },
  {
    name: 'heartbeat.interval.ms',
    type: 'int',
    default: '10000',
    doc: 'How often an idle connector moves its offset (and the slot) to the server position, writing a heartbeat record; 0: never.',
    check: (v) => ((v as number) >= 0 ? undefined : 'must be 0 or more'),
  },
  {
    name: 'heartbeat.topics.prefix',
    type: 'string',
    default: '__debezium-heartbeat',
    doc: 'Heartbeat records go to <this>.<topic.prefix>.',
  },
  {
    name: 'max.batch.size',
    type: 'int',
    default: '2048',
    doc: 'Most records one poll returns.',
    check: (v) => ((v as number) > 0 ? undefined : 'must be at least 1'),
  },
  {
    name: 'max.queue.size',
    type: 'int',
    default: '8192',
    doc: 'Records buffered before the replication stream is paused.',
    check: (v) => ((v as number) > 0 ? undefined : 'must be at least 1'),
  },
  {
    name: 'snapshot.fetch.size',
    type: 'int',
    default: '2048',
    doc: 'Rows fetched per round trip while snapshotting.',
    check: (v) => ((v as number) > 0 ? undefined : 'must be at least 1'),
  },
]

export interface PgConnection {
  readonly host: string
  readonly port: number
  readonly user: string
  readonly password: string
  readonly database: string
  readonly options: string
}

export interface SourceConfig {
  readonly connection: PgConnection
  readonly prefix: string
  readonly tableInclude: readonly RegExp[]
  readonly slot: string
  readonly publication: string
  readonly snapshot: boolean
  readonly heartbeatMs: number
  readonly heartbeatTopic: string
  readonly maxBatch: number
  readonly maxQueue: number
  readonly fetchSize: number
}

export function connectionOf(c: Record<string, unknown>): PgConnection {
  return {
    host: c['database.hostname'] as string,
    port: c['database.port'] as number,
    user: c['database.user'] as string,
    password: c['database.password'] as string,
    database: c['database.dbname'] as string,
    options: PG_SESSION_OPTIONS,
  }
}

/** The typed config, or a ConnectError CONFIG naming the field. */
export function parseSourceConfig(config: ConnectorConfig): SourceConfig {
  const c = parseConfig(SOURCE_FIELDS, config)
  const prefix = c['topic.prefix'] as string
  return {
    connection: connectionOf(c),
    prefix,
    tableInclude: (c['table.include.list'] as string[]).map((s) => new RegExp(`^(?:${s})$`)),
    slot: c['slot.name'] as string,
    publication: c['publication.name'] as string,
    snapshot: c['snapshot.mode'] === 'initial',
    heartbeatMs: c['heartbeat.interval.ms'] as number,
    heartbeatTopic: `${c['heartbeat.topics.prefix'] as string}.${prefix}`,
    maxBatch: c['max.batch.size'] as number,
    maxQueue: c['max.queue.size'] as number,
    fetchSize: c['snapshot.fetch.size'] as number,
  }
}
