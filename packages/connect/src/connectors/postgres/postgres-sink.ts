/**
 * PostgreSQL sink (the JDBC sink's config names): each record's row (a Debezium envelope's
 * `after`, or a plain struct value) is upserted by the record key (INSERT … ON CONFLICT DO
 * UPDATE), a tombstone or op `d` deletes the key, op `t` truncates the table. Records are
 * written in one transaction from the first put() after a flush to the next flush(), which
 * commits it: the worker commits the consumed offsets only after that, so every committed
 * offset's row is in the database. Within one put() the records of a key collapse to the last
 * one (its final state), written as one multi-row statement per table.
 */
import pg from 'pg'
import type { ConfigField, ConnectorConfig } from '../../api/config-def.js'
import { parseConfig } from '../../api/config-def.js'
import type { SinkConnector, SinkTask, SinkTaskContext } from '../../api/connector.js'
import type { SinkRecord } from '../../api/records.js'
import type { Field, Schema } from '../../api/schema.js'
import { ConnectError } from '../../errors.js'
import { CONNECTOR_VERSION } from './change-envelope.js'
import { PG_SESSION_OPTIONS } from './pg-types.js'
import { quoteIdent } from './replication-slot.js'
import { columnType, paramValue } from './sink-columns.js'

/** The placeholder of table.name.format (Kafka's JDBC sink writes it `${topic}`). */
const TOPIC = ['$', '{topic}'].join('')

const SINK_FIELDS: readonly ConfigField[] = [
  {
    name: 'connection.url',
    type: 'string',
    doc: 'jdbc:postgresql://host:port/db or postgres://host:port/db.',
    group: 'Connection',
    check: (v) =>
      /^(jdbc:)?postgres(ql)?:\/\/[^/]+\/[^/?]+/.test(v as string)
        ? undefined
        : 'must be jdbc:postgresql://host:port/database',
  },
  { name: 'connection.username', type: 'string', default: 'postgres', doc: 'User.', group: 'Connection' },
  { name: 'connection.password', type: 'password', default: '', doc: 'Password.', group: 'Connection' },
  {
    name: 'topics',
    type: 'list',
    doc: 'The topics to read.',
    check: (v) => (Array.isArray(v) && v.length > 0 ? undefined : 'name at least one topic'),
  },
  {
    name: 'table.name.format',
    type: 'string',
    default: TOPIC,
    doc: `The table of a topic; ${TOPIC} is replaced by the topic, and the part after the last dot is the table.`,
  },
  { name: 'insert.mode', type: 'string', default: 'upsert', oneOf: ['upsert', 'insert'], doc: 'upsert or insert.' },
  {
    name: 'pk.mode',
    type: 'string',
    default: 'record_key',
    oneOf: ['record_key'],
    doc: 'The key struct is the primary key.',
  },
  { name: 'delete.enabled', type: 'boolean', default: 'true', doc: 'Delete the key on a tombstone or op d.' },
  {
    name: 'schema.evolution',
    type: 'string',
    default: 'none',
    oneOf: ['none', 'basic'],
    doc: 'basic: create missing tables and add missing columns from the record schema.',
  },
]

export class PostgresSinkConnector implements SinkConnector {
  readonly kind = 'sink'
  readonly version = CONNECTOR_VERSION
  readonly configDef = SINK_FIELDS
  private config: ConnectorConfig = {}

  start(config: ConnectorConfig): void {
    parseConfig(SINK_FIELDS, config)
    this.config = config
  }

  taskConfigs(maxTasks: number): ConnectorConfig[] {
    return Array.from({ length: Math.max(1, maxTasks) }, () => ({ ...this.config }))
  }

  stop(): void {}

  createTask(): SinkTask {
    return new PostgresSinkTask()
  }
}

type Pending =
  | { kind: 'upsert'; key: Record<string, unknown>; row: Record<string, unknown>; fields: readonly Field[] }
  | { kind: 'delete'; key: Record<string, unknown> }

interface TableBatch {
  readonly keyFields: readonly Field[]
  readonly byKey: Map<string, Pending>
}

/** Rows per statement stay under PostgreSQL's 65535 parameters. */
const MAX_PARAMS = 60_000

export class PostgresSinkTask implements SinkTask {
  private client: pg.Client | undefined
  private format = TOPIC
  private upsert = true
  private deletes = true
  private evolve = false
  private inTx = false
  /** Columns known per table (evolution only). */
  private readonly columns = new Map<string, Set<string>>()

  async start(config: ConnectorConfig, _ctx: SinkTaskContext): Promise<void> {
    const c = parseConfig(SINK_FIELDS, config)
    this.format = c['table.name.format'] as string
    this.upsert = c['insert.mode'] === 'upsert'
    this.deletes = c['delete.enabled'] as boolean
    this.evolve = c['schema.evolution'] === 'basic'
    // node-postgres lets a connection string's (absent) user override `user`: the URL is taken apart here.
    const url = new URL((c['connection.url'] as string).replace(/^jdbc:/, '').replace(/^postgresql:/, 'postgres:'))
    this.client = new pg.Client({
      host: url.hostname,
      port: url.port === '' ? 5432 : Number(url.port),
      database: decodeURIComponent(url.pathname.slice(1)),
      user: c['connection.username'] as string,
      password: c['connection.password'] as string,
      options: PG_SESSION_OPTIONS,
    })
    this.client.on('error', () => {})
    await this.client.connect()
  }

  tableOf(topic: string): string {
    const name = this.format.replaceAll(TOPIC, topic)
    return name.slice(name.lastIndexOf('.') + 1)
  }

  async put(records: readonly SinkRecord[]): Promise<void> {
    const batches = new Map<string, TableBatch>()
    try {
      for (const r of records) {
        const table = this.tableOf(r.topic)
        const change = rowChange(r)
        if (change === undefined) continue
        if (change.kind === 'truncate') {
          await this.write(batches)
          batches.clear()
          await this.exec(`TRUNCATE ${quoteIdent(table)}`)
          continue
        }
        if (r.key === null || typeof r.key !== 'object')
          throw new ConnectError(
            'TASK',
            `pk.mode=record_key: a record of ${r.topic} at offset ${r.offset} has no key struct`,
          )
        const key = r.key as Record<string, unknown>
        const keyFields = r.keySchema?.fields ?? Object.keys(key).map((k) => ({ field: k, type: 'string' as const }))
        const batch = batches.get(table) ?? { keyFields, byKey: new Map() }
        batches.set(table, batch)
        const id = JSON.stringify(keyFields.map((f) => String(key[f.field])))
        if (change.kind === 'delete') {
          if (this.deletes) batch.byKey.set(id, { kind: 'delete', key })
        } else {
          batch.byKey.set(id, { kind: 'upsert', key, row: change.row, fields: change.fields })
        }
      }
      await this.write(batches)
    } catch (err) {
      await this.rollback()
      throw err
    }
  }

  async flush(): Promise<void> {
    if (!this.inTx) return
    this.inTx = false
    await this.client!.query('COMMIT')
  }

  async stop(): Promise<void> {
    await this.rollback()
    await this.client?.end().catch(() => {})
    this.client = undefined
  }

  private async rollback(): Promise<void> {
    if (!this.inTx) return
    this.inTx = false
    await this.client?.query('ROLLBACK').catch(() => {})
  }

  private async exec(sql: string, params: unknown[] = []): Promise<void> {
    if (!this.inTx) {
      await this.client!.query('BEGIN')
      this.inTx = true
    }
    await this.client!.query(sql, params)
  }

  private async write(batches: ReadonlyMap<string, TableBatch>): Promise<void> {
    for (const [table, batch] of batches) {
      const ups: Array<Extract<Pending, { kind: 'upsert' }>> = []
      const dels: Array<Record<string, unknown>> = []
      for (const p of batch.byKey.values()) {
        if (p.kind === 'upsert') ups.push(p)
        else dels.push(p.key)
      }
      if (this.evolve && ups.length > 0) await this.evolveTable(table, batch.keyFields, ups[ups.length - 1]!.fields)
      if (dels.length > 0) await this.deleteKeys(table, batch.keyFields, dels)
      // Rows of one batch may differ in columns (ADD COLUMN mid-batch): one statement per column set.
      const byColumns = new Map<string, typeof ups>()
      for (const u of ups) {
        const sig = u.fields.map((f) => f.field).join(',')
        byColumns.set(sig, [...(byColumns.get(sig) ?? []), u])
      }
      for (const group of byColumns.values()) await this.upsertRows(table, batch.keyFields, group)
    }
  }

  private async upsertRows(
    table: string,
    keyFields: readonly Field[],
    rows: ReadonlyArray<Extract<Pending, { kind: 'upsert' }>>,
  ): Promise<void> {
    const fields = rows[0]!.fields
    const keys = new Set(keyFields.map((f) => f.field))
    const cols = fields.map((f) => quoteIdent(f.field)).join(', ')
    const set = fields
      .filter((f) => !keys.has(f.field))
      .map((f) => `${quoteIdent(f.field)} = EXCLUDED.${quoteIdent(f.field)}`)
    const conflict = !this.upsert
      ? ''
      : ` ON CONFLICT (${keyFields.map((f) => quoteIdent(f.field)).join(', ')}) DO ${set.length > 0 ? `UPDATE SET ${set.join(', ')}` : 'NOTHING'}`
    const perStatement = Math.max(1, Math.floor(MAX_PARAMS / fields.length))
    for (let i = 0; i < rows.length; i += perStatement) {
      const chunk = rows.slice(i, i + perStatement)
      const params: unknown[] = []
      const tuples = chunk.map((r) => {
        const slots = fields.map((f) => {
          params.push(paramValue(f, r.row[f.field]))
          return `$${params.length}`
        })
        return `(${slots.join(', ')})`
      })
      await this.exec(`INSERT INTO ${quoteIdent(table)} (${cols}) VALUES ${tuples.join(', ')}${conflict}`, params)
    }
  }

  private async deleteKeys(
    table: string,
    keyFields: readonly Field[],
    keys: ReadonlyArray<Record<string, unknown>>,
  ): Promise<void> {
    const perStatement = Math.max(1, Math.floor(MAX_PARAMS / keyFields.length))
    const cols = `(${keyFields.map((f) => quoteIdent(f.field)).join(', ')})`
    for (let i = 0; i < keys.length; i += perStatement) {
      const params: unknown[] = []
      const tuples = keys.slice(i, i + perStatement).map((k) => {
        const slots = keyFields.map((f) => {
          params.push(paramValue(f, k[f.field]))
          return `$${params.length}`
        })
        return `(${slots.join(', ')})`
      })
      await this.exec(`DELETE FROM ${quoteIdent(table)} WHERE ${cols} IN (${tuples.join(', ')})`, params)
    }
  }

  /** schema.evolution=basic: the table is created, or given the columns it lacks. */
  private async evolveTable(table: string, keyFields: readonly Field[], fields: readonly Field[]): Promise<void> {
    let known = this.columns.get(table)
    if (known === undefined) {
      const r = await this.client!.query<{ column_name: string }>(
        'SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1',
        [table],
      )
      known = new Set(r.rows.map((x) => x.column_name))
      this.columns.set(table, known)
    }
    const missing = fields.filter((f) => !known.has(f.field))
    if (missing.length === 0) return
    const keys = new Set(keyFields.map((f) => f.field))
    if (known.size === 0) {
      const defs = fields.map((f) => `${quoteIdent(f.field)} ${columnType(f)}${keys.has(f.field) ? ' NOT NULL' : ''}`)
      const pk = keyFields.length > 0 ? `, PRIMARY KEY (${keyFields.map((f) => quoteIdent(f.field)).join(', ')})` : ''
      await this.exec(`CREATE TABLE IF NOT EXISTS ${quoteIdent(table)} (${defs.join(', ')}${pk})`)
    } else {
      for (const f of missing)
        await this.exec(
          `ALTER TABLE ${quoteIdent(table)} ADD COLUMN IF NOT EXISTS ${quoteIdent(f.field)} ${columnType(f)}`,
        )
    }
    for (const f of fields) known.add(f.field)
  }
}

type RowChange =
  | { kind: 'upsert'; row: Record<string, unknown>; fields: readonly Field[] }
  | { kind: 'delete' }
  | { kind: 'truncate' }

function isEnvelope(value: Record<string, unknown>, schema: Schema | undefined): boolean {
  if (schema?.name?.endsWith('.Envelope') === true) return true
  return typeof value.op === 'string' && 'after' in value && 'before' in value
}

/** What a record asks of its table (undefined: nothing, e.g. a heartbeat). */
export function rowChange(r: SinkRecord): RowChange | undefined {
  if (r.value === null || r.value === undefined) return { kind: 'delete' }
  if (typeof r.value !== 'object')
    throw new ConnectError('TASK', `a record of ${r.topic} at offset ${r.offset} is not a struct`)
  const value = r.value as Record<string, unknown>
  if (!isEnvelope(value, r.valueSchema)) return { kind: 'upsert', row: value, fields: fieldsOf(r.valueSchema, value) }
  switch (value.op) {
    case 'd':
      return { kind: 'delete' }
    case 't':
      return { kind: 'truncate' }
    default: {
      const after = value.after as Record<string, unknown> | null
      if (after === null || after === undefined) return undefined
      const afterSchema = r.valueSchema?.fields?.find((f) => f.field === 'after')
      return { kind: 'upsert', row: after, fields: fieldsOf(afterSchema, after) }
    }
  }
}

function fieldsOf(schema: Schema | undefined, row: Record<string, unknown>): readonly Field[] {
  if (schema?.fields !== undefined) return schema.fields
  return Object.keys(row).map((k) => ({ field: k, type: 'string' as const, optional: true }))
}
