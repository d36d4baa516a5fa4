/**
 * PostgreSQL change capture (Debezium's PostgresConnector, pgoutput only): the publication and
 * the logical slot are created if missing, the existing rows are read as a consistent snapshot
 * (snapshot.mode=initial), then every insert, update, delete and truncate is streamed in commit
 * order as Debezium's envelope, one topic per table. One task: a slot has one reader.
 *
 * What the stored offset decides on start (source partition `{"server": <topic.prefix>}`):
 * - no offset, or one whose snapshot did not finish, and snapshot.mode=initial: the slot is
 *   (re)created with an exported snapshot and the snapshot is read from the start;
 * - otherwise streaming resumes after the stored position (the slot is created if missing, with
 *   a warning: what happened while it was gone is not captured).
 * The slot's position is confirmed to PostgreSQL only in commit().
 */
import type { ConfigField, ConnectorConfig } from '../../api/config-def.js'
import type { ExclusiveResource, SourceConnector, SourceTask, SourceTaskContext } from '../../api/connector.js'
import type { SourceRecord } from '../../api/records.js'
import type { Logger } from '@sluice/client'
import { ChangeStream, type ResumePoint } from './change-stream.js'
import { CONNECTOR_VERSION } from './change-envelope.js'
import { parseSourceConfig, SOURCE_FIELDS, type SourceConfig } from './postgres-config.js'
import {
  connectClient,
  createSlot,
  createSlotWithSnapshot,
  dropSlot,
  ensurePublication,
  freeSlot,
  slotState,
} from './replication-slot.js'
import { TableSnapshot } from './table-snapshot.js'
import { configError } from '../../errors.js'

export class PostgresSourceConnector implements SourceConnector {
  readonly kind = 'source'
  readonly version = CONNECTOR_VERSION
  readonly configDef: readonly ConfigField[] = SOURCE_FIELDS
  private config: ConnectorConfig = {}

  start(config: ConnectorConfig): void {
    parseSourceConfig(config)
    this.config = config
  }

  /** One task whatever tasks.max says: a replication slot has a single reader. */
  taskConfigs(): ConnectorConfig[] {
    return [{ ...this.config }]
  }

  stop(): void {}

  /** Slot names are unique per PostgreSQL server, and a slot has one reader. */
  exclusiveResources(config: ConnectorConfig): ExclusiveResource[] {
    const c = parseSourceConfig(config)
    const where = `${c.connection.host}:${c.connection.port}`
    return [
      {
        id: `postgres-slot:${where}/${c.slot}`,
        field: 'slot.name',
        description: `replication slot ${c.slot} on ${where}`,
      },
    ]
  }

  createTask(): SourceTask {
    return new PostgresSourceTask()
  }
}

function numberOr(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback
}

export class PostgresSourceTask implements SourceTask {
  private cfg: SourceConfig | undefined
  private logger: Logger | undefined
  private snapshot: TableSnapshot | undefined
  private stream: ChangeStream | undefined
  private resume: ResumePoint = { lsn: 0 }

  async start(config: ConnectorConfig, ctx: SourceTaskContext): Promise<void> {
    const cfg = parseSourceConfig(config)
    this.cfg = cfg
    this.logger = ctx.logger
    const stored = await ctx.offsetOf({ server: cfg.prefix })
    const admin = await connectClient(cfg.connection)
    try {
      const tables = await ensurePublication(admin, cfg)
      const slot = await slotState(admin, cfg.slot)
      // A slot of another database is another connector's (two connectors left on the default
      // `debezium`): dropping it, or ending its reader, would lose that connector's changes.
      if (slot !== undefined && slot.database !== cfg.connection.database)
        throw configError(
          'slot.name',
          `replication slot ${cfg.slot} belongs to database ${slot.database}, not ${cfg.connection.database}: give this connector its own slot.name`,
        )
      if (cfg.snapshot && stored?.snapshot_completed !== true) {
        if (slot !== undefined) await dropSlot(admin, cfg.slot)
        const exported = await createSlotWithSnapshot(cfg.connection, cfg.slot)
        this.resume = { lsn: exported.consistentLsn }
        this.snapshot = new TableSnapshot(cfg, tables, exported)
        await this.snapshot.open()
        ctx.logger.info({ slot: cfg.slot, tables: tables.length }, 'PostgreSQL snapshot started')
        return
      }
      let startLsn: number
      if (slot === undefined) {
        startLsn = await createSlot(admin, cfg.slot)
        if (stored !== undefined)
          ctx.logger.warn(
            { slot: cfg.slot },
            'replication slot was missing and is created again: changes in between are not captured',
          )
      } else {
        await freeSlot(admin, cfg.slot)
        startLsn = slot.confirmedLsn ?? 0
      }
      const partialLsn = stored?.lsn_partial
      this.resume = {
        lsn: Math.max(numberOr(stored?.lsn, 0), stored === undefined ? startLsn : 0),
        ...(typeof partialLsn === 'number' ? { partial: { lsn: partialLsn, event: numberOr(stored?.event, 0) } } : {}),
      }
      this.startStream()
    } finally {
      await admin.end().catch(() => {})
    }
  }

  private startStream(): void {
    this.stream = new ChangeStream(this.cfg!, this.resume, this.logger!)
    this.stream.start()
  }

  async poll(signal: AbortSignal): Promise<SourceRecord[]> {
    if (this.snapshot !== undefined) {
      const records = await this.snapshot.next()
      if (this.snapshot.finished) {
        this.snapshot = undefined
        this.logger?.info({ slot: this.cfg!.slot }, 'PostgreSQL snapshot finished; streaming')
        const admin = await connectClient(this.cfg!.connection)
        await freeSlot(admin, this.cfg!.slot).finally(async () => await admin.end().catch(() => {}))
        this.startStream()
      }
      return records
    }
    return (await this.stream?.take(signal)) ?? []
  }

  commit(committed: ReadonlyMap<string, Readonly<Record<string, unknown>>>): void {
    for (const offset of committed.values()) {
      if (typeof offset.lsn === 'number') this.stream?.confirm(offset.lsn)
    }
  }

  async stop(): Promise<void> {
    await this.snapshot?.close()
    await this.stream?.stop()
  }
}
