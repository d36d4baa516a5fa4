/**
 * The server-side objects change capture needs: the publication (which tables pgoutput
 * streams) and the logical replication slot (which keeps the WAL until its position is
 * confirmed). A slot is created with an exported snapshot when the initial snapshot is to be
 * read: the rows as of exactly the slot's starting point, so nothing is missed or read twice.
 */
import pg from 'pg'
import { setTimeout as delay } from 'node:timers/promises'
import { ConnectError, configError } from '../../errors.js'
import { parseLsn } from './lsn.js'
import type { PgConnection, SourceConfig } from './postgres-config.js'

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

export function clientConfig(c: PgConnection): pg.ClientConfig {
  return {
    host: c.host,
    port: c.port,
    user: c.user,
    password: c.password,
    database: c.database,
    options: c.options,
    // Every value as PostgreSQL's text: pg-types.ts reads it (node-postgres would make lossy Dates).
    types: { getTypeParser: () => (v: string) => v },
  }
}

export async function connectClient(c: PgConnection, replication = false): Promise<pg.Client> {
  // `replication` is a startup parameter node-postgres passes on but does not type.
  const config = replication ? ({ ...clientConfig(c), replication: 'database' } as pg.ClientConfig) : clientConfig(c)
  const client = new pg.Client(config)
  client.on('error', () => {}) // a broken connection surfaces as the failing query's error
  try {
    await client.connect()
  } catch (err) {
    throw new ConnectError(
      'TASK',
      `cannot connect to PostgreSQL at ${c.host}:${c.port}/${c.database}: ${(err as Error).message}`,
      { cause: err, details: { retriable: true } },
    )
  }
  return client
}

export interface CapturedTable {
  readonly schema: string
  readonly table: string
}

function included(cfg: SourceConfig, t: CapturedTable): boolean {
  return cfg.tableInclude.length === 0 || cfg.tableInclude.some((r) => r.test(`${t.schema}.${t.table}`))
}

/** Creates the publication if missing (for the included tables), then the tables it streams that are included. */
export async function ensurePublication(client: pg.Client, cfg: SourceConfig): Promise<CapturedTable[]> {
  const exists = await client.query('SELECT 1 FROM pg_publication WHERE pubname = $1', [cfg.publication])
  if (exists.rowCount === 0) {
    if (cfg.tableInclude.length === 0) {
      await client.query(`CREATE PUBLICATION ${quoteIdent(cfg.publication)} FOR ALL TABLES`)
    } else {
      const all = await client.query<{ schema: string; table: string }>(
        `SELECT schemaname AS schema, tablename AS table FROM pg_tables
         WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
      )
      const tables = all.rows.filter((t) => included(cfg, t))
      if (tables.length === 0) throw configError('table.include.list', 'matches no table of the database')
      const list = tables.map((t) => `${quoteIdent(t.schema)}.${quoteIdent(t.table)}`).join(', ')
      await client.query(`CREATE PUBLICATION ${quoteIdent(cfg.publication)} FOR TABLE ${list}`)
    }
  }
  const pub = await client.query<{ schema: string; table: string }>(
    'SELECT schemaname AS schema, tablename AS table FROM pg_publication_tables WHERE pubname = $1 ORDER BY 1, 2',
    [cfg.publication],
  )
  return pub.rows.filter((t) => included(cfg, t))
}

export interface SlotState {
  readonly activePid: number | null
  readonly confirmedLsn: number | null
  /** The database the slot decodes (a logical slot belongs to one). */
  readonly database: string
}

export async function slotState(client: pg.Client, slot: string): Promise<SlotState | undefined> {
  const r = await client.query<{ active_pid: string | null; confirmed_flush_lsn: string | null; database: string }>(
    'SELECT active_pid, confirmed_flush_lsn, database FROM pg_replication_slots WHERE slot_name = $1',
    [slot],
  )
  const row = r.rows[0]
  if (row === undefined) return undefined
  return {
    activePid: row.active_pid === null ? null : Number(row.active_pid),
    confirmedLsn: row.confirmed_flush_lsn === null ? null : parseLsn(row.confirmed_flush_lsn),
    database: row.database,
  }
}

/**
 * Waits for the slot to be free (a previous task's connection may linger after its worker
 * died), ending that connection after `graceMs`: the slot belongs to this connector's one task.
 */
export async function freeSlot(client: pg.Client, slot: string, graceMs = 10_000): Promise<void> {
  const deadline = Date.now() + graceMs
  for (;;) {
    const s = await slotState(client, slot)
    if (s === undefined || s.activePid === null) return
    if (Date.now() > deadline) {
      await client.query('SELECT pg_terminate_backend($1)', [s.activePid])
      await delay(200)
    } else {
      await delay(200)
    }
  }
}

export async function dropSlot(client: pg.Client, slot: string): Promise<void> {
  await freeSlot(client, slot)
  await client.query('SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1', [
    slot,
  ])
}

/** Creates the slot without a snapshot; its starting LSN. */
export async function createSlot(client: pg.Client, slot: string): Promise<number> {
  const r = await client.query<{ lsn: string }>("SELECT lsn FROM pg_create_logical_replication_slot($1, 'pgoutput')", [
    slot,
  ])
  return parseLsn(r.rows[0]!.lsn)
}

export interface ExportedSlot {
  /** The replication connection that holds the exported snapshot until it is imported. */
  readonly holder: pg.Client
  readonly snapshotName: string
  readonly consistentLsn: number
}

/** Creates the slot on a replication connection, exporting the snapshot of its starting point. */
export async function createSlotWithSnapshot(c: PgConnection, slot: string): Promise<ExportedSlot> {
  const holder = await connectClient(c, true)
  try {
    const r = await holder.query<{ consistent_point: string; snapshot_name: string }>(
      `CREATE_REPLICATION_SLOT ${quoteIdent(slot)} LOGICAL pgoutput EXPORT_SNAPSHOT`,
    )
    const row = r.rows[0]!
    return { holder, snapshotName: row.snapshot_name, consistentLsn: parseLsn(row.consistent_point) }
  } catch (err) {
    await holder.end().catch(() => {})
    throw err
  }
}
