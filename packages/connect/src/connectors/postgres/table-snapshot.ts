/**
 * The initial snapshot: every row of the captured tables as of the slot's starting point, read
 * in one REPEATABLE READ transaction that imports the slot's exported snapshot, a cursor per
 * table, `snapshot.fetch.size` rows per round trip. Records are op `r` with `source.snapshot`
 * `true`, the very last one `last`; their offsets say the snapshot is not finished, except the
 * last one's. A task that restarts before that last offset is stored reads the snapshot again
 * (docs/connect.md, "PostgreSQL change capture").
 */
import type pg from 'pg'
import type { SourceRecord } from '../../api/records.js'
import { envelope, keyValue, rowValue, tableShape, type TableShape } from './change-envelope.js'
import type { CapturedTable } from './replication-slot.js'
import { connectClient, quoteIdent, type ExportedSlot } from './replication-slot.js'
import type { SourceConfig } from './postgres-config.js'

export class TableSnapshot {
  private client: pg.Client | undefined
  private tableIndex = -1
  private shape: TableShape | undefined
  /** Held back one record so the last of all can be marked `last`. */
  private held: SourceRecord | undefined
  private done = false

  constructor(
    private readonly cfg: SourceConfig,
    private readonly tables: readonly CapturedTable[],
    private readonly slot: ExportedSlot,
  ) {}

  get finished(): boolean {
    return this.done
  }

  /** Imports the exported snapshot, then lets the slot's connection go. */
  async open(): Promise<void> {
    this.client = await connectClient(this.cfg.connection)
    await this.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    await this.client.query(`SET TRANSACTION SNAPSHOT '${this.slot.snapshotName}'`)
    await this.slot.holder.end().catch(() => {})
  }

  /** The next records (empty once finished). */
  async next(): Promise<SourceRecord[]> {
    const client = this.client!
    const out: SourceRecord[] = []
    while (out.length === 0 && !this.done) {
      if (this.shape === undefined) {
        this.tableIndex++
        const t = this.tables[this.tableIndex]
        if (t === undefined) {
          this.done = true
          break
        }
        this.shape = await this.describe(t)
        const cols = this.shape.columns.map((c) => quoteIdent(c.name)).join(', ')
        await client.query(
          `DECLARE snap_cursor NO SCROLL CURSOR FOR SELECT ${cols} FROM ${quoteIdent(t.schema)}.${quoteIdent(t.table)}`,
        )
      }
      const rows = await client.query<Record<string, string | null>>(`FETCH ${this.cfg.fetchSize} FROM snap_cursor`)
      if (rows.rows.length < this.cfg.fetchSize) {
        await client.query('CLOSE snap_cursor')
        this.shape = undefined
      }
      const shape = this.shape ?? this.lastShape
      for (const text of rows.rows) out.push(this.record(shape!, text))
    }
    // Emit all but the newest record; the newest waits to learn whether it is the last.
    if (this.held !== undefined) out.unshift(this.held)
    this.held = undefined
    if (!this.done) {
      this.held = out.pop()
      return out
    }
    const last = out.pop()
    if (last !== undefined) out.push(markLast(last, this.slot.consistentLsn))
    await this.close()
    return out
  }

  private lastShape: TableShape | undefined

  private async describe(t: CapturedTable): Promise<TableShape> {
    const client = this.client!
    const rel = `${quoteIdent(t.schema)}.${quoteIdent(t.table)}`
    const cols = await client.query<{ name: string; oid: string }>(
      `SELECT attname AS name, atttypid AS oid FROM pg_attribute
       WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
      [rel],
    )
    const keys = await client.query<{ name: string }>(
      `SELECT a.attname AS name FROM pg_index i
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
       WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY a.attnum`,
      [rel],
    )
    const shape = tableShape(
      this.cfg.prefix,
      t.schema,
      t.table,
      cols.rows.map((c) => ({ name: c.name, typeOid: Number(c.oid) })),
      keys.rows.map((k) => k.name),
    )
    this.lastShape = shape
    return shape
  }

  private record(shape: TableShape, text: Record<string, string | null>): SourceRecord {
    const after = rowValue(shape, text)
    return {
      topic: shape.topic,
      key: keyValue(shape, after),
      ...(shape.keySchema !== undefined ? { keySchema: shape.keySchema } : {}),
      value: envelope(shape, 'r', null, after, {
        db: this.cfg.connection.database,
        name: this.cfg.prefix,
        tsMs: Date.now(),
        snapshot: 'true',
        txId: null,
        lsn: this.slot.consistentLsn,
      }),
      valueSchema: shape.envelopeSchema,
      headers: [],
      sourcePartition: { server: this.cfg.prefix },
      sourceOffset: { lsn: this.slot.consistentLsn, snapshot: true, snapshot_completed: false },
    }
  }

  async close(): Promise<void> {
    this.done = true
    const client = this.client
    this.client = undefined
    if (client !== undefined) {
      await client.query('COMMIT').catch(() => {})
      await client.end().catch(() => {})
    }
    await this.slot.holder.end().catch(() => {})
  }
}

function markLast(r: SourceRecord, lsn: number): SourceRecord {
  const value = r.value as Record<string, unknown>
  return {
    ...r,
    value: { ...value, source: { ...(value.source as Record<string, unknown>), snapshot: 'last' } },
    sourceOffset: { lsn, snapshot_completed: true },
  }
}
