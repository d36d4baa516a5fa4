/**
 * The streaming phase: pgoutput over a replication connection (`pg-logical-replication`, its
 * automatic acknowledgement off), each committed transaction turned into change records in
 * commit order and queued for poll().
 *
 * Positions. A record's source offset carries `lsn`, the end LSN of the last transaction all
 * of whose records are at or before it, so confirming it to PostgreSQL never skips a record
 * not yet in Sluice. A record inside a transaction also carries `lsn_partial` (that
 * transaction's end LSN) and `event` (its place in the transaction), so a restart skips exactly
 * the records already stored. PostgreSQL hears of a position only in confirm(), which the task
 * calls from commit(): after Sluice acknowledged the records and the worker stored the offsets.
 *
 * Heartbeats. While the captured tables are idle the server's WAL still moves (other tables,
 * other databases); `heartbeat.interval.ms` pings the server, whose keepalive answer carries
 * the position it has decoded up to, and once nothing is queued a heartbeat record with that
 * position as its offset is returned, so the slot moves on when that offset is committed.
 */
import { LogicalReplicationService, PgoutputPlugin, type Pgoutput } from 'pg-logical-replication'
import type { Logger } from '@sluice/client'
import type { SourceRecord } from '../../api/records.js'
import { ConnectError } from '../../errors.js'
import {
  envelope,
  keyValue,
  rowValue,
  tableShape,
  type Op,
  type SourceInfo,
  type TableShape,
} from './change-envelope.js'
import { formatLsn, parseLsn } from './lsn.js'
import type { SourceConfig } from './postgres-config.js'
import { clientConfig } from './replication-slot.js'

export interface ResumePoint {
  /** Transactions ending at or before this are already in Sluice. */
  readonly lsn: number
  /** A transaction partly delivered: its end LSN and how many of its records are stored. */
  readonly partial?: { readonly lsn: number; readonly event: number }
}

interface Change {
  readonly shape: TableShape
  readonly op: Op
  readonly lsn: number
  readonly before: Record<string, unknown> | null
  readonly after: Record<string, unknown> | null
  /** Key for a delete and its tombstone (from the old row or the key tuple). */
  readonly key?: Record<string, unknown> | null
}

interface OpenTx {
  readonly xid: number
  readonly commitMs: number
  readonly changes: Change[]
}

type TextRow = Record<string, string | null | undefined>

const POLL_WAIT_MS = 200

export class ChangeStream {
  private readonly service: LogicalReplicationService
  private readonly plugin: PgoutputPlugin
  private readonly shapes = new Map<number, TableShape | null>()
  private readonly queue: SourceRecord[] = []
  private tx: OpenTx | undefined
  /** End LSN of the newest transaction (or heartbeat) queued: the `lsn` of records queued next. */
  private queuedUpTo: number
  private confirmed: number
  /** A server position with nothing of ours before it left unreceived (from a keepalive). */
  private idleLsn = 0
  private lastHeartbeat = Date.now()
  private failure: Error | undefined
  private wake: (() => void) | undefined
  private drained: (() => void) | undefined
  private stopped = false

  constructor(
    private readonly cfg: SourceConfig,
    private readonly resume: ResumePoint,
    private readonly logger: Logger,
  ) {
    this.queuedUpTo = resume.lsn
    this.confirmed = resume.lsn
    this.service = new LogicalReplicationService(clientConfig(cfg.connection), {
      acknowledge: { auto: false, timeoutSeconds: 0 },
      flowControl: { enabled: true },
    })
    this.plugin = new PgoutputPlugin({ protoVersion: 1, publicationNames: [cfg.publication] })
    keepColumnsAsText(this.plugin)
    this.service.on('data', async (lsn: string, msg: Pgoutput.Message) => {
      await this.onMessage(parseLsn(lsn), msg)
    })
    this.service.on('heartbeat', (lsn: string, _ts: number, shouldRespond: boolean) => {
      this.onKeepalive(parseLsn(lsn), shouldRespond)
    })
    this.service.on('error', (err: Error) => {
      this.fail(err)
    })
  }

  start(): void {
    this.service.subscribe(this.plugin, this.cfg.slot, formatLsn(this.resume.lsn)).then(
      () => {
        if (!this.stopped) this.fail(new Error('the replication stream ended'))
      },
      (err: unknown) => {
        this.fail(err as Error)
      },
    )
  }

  /** Up to max.batch.size queued records; waits a little when there are none. */
  async take(signal: AbortSignal): Promise<SourceRecord[]> {
    this.throwIfFailed()
    if (this.queue.length === 0) {
      this.maybeHeartbeat()
      if (this.queue.length === 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, POLL_WAIT_MS)
          const done = (): void => {
            clearTimeout(timer)
            signal.removeEventListener('abort', done)
            this.wake = undefined
            resolve()
          }
          this.wake = done
          signal.addEventListener('abort', done)
        })
        this.throwIfFailed()
      }
    }
    const batch = this.queue.splice(0, this.cfg.maxBatch)
    if (this.queue.length < this.cfg.maxQueue) this.drained?.()
    return batch
  }

  /** Tells PostgreSQL everything up to `lsn` is stored (the slot may release that WAL). */
  confirm(lsn: number): void {
    if (lsn <= this.confirmed) return
    this.confirmed = lsn
    this.sendStatus(false)
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.drained?.()
    this.wake?.()
    await this.service.destroy().catch(() => {})
  }

  /**
   * The library's acknowledge(x) reports x + 1 as flushed (meant for the start of the last
   * message received); our positions are end LSNs, already "one past", so it gets lsn - 1.
   */
  private sendStatus(ping: boolean): void {
    if (this.confirmed <= 0) return
    void this.service.acknowledge(formatLsn(this.confirmed - 1), ping).catch(() => {})
  }

  private maybeHeartbeat(): void {
    if (this.cfg.heartbeatMs <= 0 || Date.now() - this.lastHeartbeat < this.cfg.heartbeatMs) return
    this.lastHeartbeat = Date.now()
    // Ask for a keepalive now; its position is used by the next heartbeat.
    if (this.confirmed > 0) this.sendStatus(true)
    else void this.service.acknowledge('0/0', true).catch(() => {})
    if (this.idleLsn <= this.queuedUpTo || this.tx !== undefined) return
    this.queuedUpTo = this.idleLsn
    this.queue.push({
      topic: this.cfg.heartbeatTopic,
      key: { serverName: this.cfg.prefix },
      keySchema: {
        type: 'struct',
        name: 'io.debezium.connector.common.ServerNameKey',
        optional: false,
        fields: [{ field: 'serverName', type: 'string', optional: false }],
      },
      value: { ts_ms: Date.now() },
      valueSchema: {
        type: 'struct',
        name: 'io.debezium.connector.common.Heartbeat',
        optional: false,
        fields: [{ field: 'ts_ms', type: 'int64', optional: false }],
      },
      headers: [],
      sourcePartition: { server: this.cfg.prefix },
      sourceOffset: { lsn: this.idleLsn, snapshot_completed: true },
    })
  }

  private onKeepalive(walEnd: number, shouldRespond: boolean): void {
    // Only a position with nothing received before it still waiting in the library's queue or
    // in an open transaction is safe to move the slot to.
    const lib = this.service as unknown as { _messageQueue?: unknown[]; _processing?: boolean }
    if (this.tx === undefined && (lib._messageQueue?.length ?? 0) === 0 && lib._processing !== true)
      this.idleLsn = Math.max(this.idleLsn, walEnd)
    if (shouldRespond) this.sendStatus(false)
  }

  private async onMessage(lsn: number, msg: Pgoutput.Message): Promise<void> {
    switch (msg.tag) {
      case 'begin':
        this.tx = { xid: msg.xid, commitMs: Number(msg.commitTime) / 1000, changes: [] }
        return
      case 'relation':
        this.shapes.set(msg.relationOid, this.shapeOf(msg))
        return
      case 'insert': {
        const shape = this.shapes.get(msg.relation.relationOid)
        if (shape) this.tx?.changes.push({ shape, op: 'c', lsn, before: null, after: rowValue(shape, msg.new) })
        return
      }
      case 'update': {
        const shape = this.shapes.get(msg.relation.relationOid)
        if (!shape) return
        const after = rowValue(shape, msg.new)
        const before = msg.old === null ? null : rowValue(shape, msg.old)
        const oldKey = msg.key === null ? null : keyValue(shape, rowValue(shape, msg.key as TextRow))
        if (oldKey !== null && !sameKey(oldKey, keyValue(shape, after))) {
          // The key changed: a delete of the old key (with its tombstone), then a create.
          const keyRow = rowValue(shape, msg.key as TextRow)
          this.tx?.changes.push({ shape, op: 'd', lsn, before: keyRow, after: null, key: oldKey })
          this.tx?.changes.push({ shape, op: 'c', lsn, before: null, after })
        } else {
          this.tx?.changes.push({ shape, op: 'u', lsn, before, after })
        }
        return
      }
      case 'delete': {
        const shape = this.shapes.get(msg.relation.relationOid)
        if (!shape) return
        const before = rowValue(shape, (msg.old ?? msg.key ?? {}) as TextRow)
        this.tx?.changes.push({ shape, op: 'd', lsn, before, after: null, key: keyValue(shape, before) })
        return
      }
      case 'truncate':
        for (const rel of msg.relations) {
          const shape = this.shapes.get(rel.relationOid)
          if (shape) this.tx?.changes.push({ shape, op: 't', lsn, before: null, after: null })
        }
        return
      case 'commit':
        await this.onCommit(parseLsn(msg.commitEndLsn!))
        return
      default:
        return
    }
  }

  private async onCommit(endLsn: number): Promise<void> {
    const tx = this.tx
    this.tx = undefined
    if (tx === undefined || endLsn <= this.resume.lsn) return
    const records = this.recordsOf(tx, endLsn)
    const skip = this.resume.partial?.lsn === endLsn ? this.resume.partial.event : 0
    const prev = this.queuedUpTo
    records.forEach((r, i) => {
      if (i < skip) return
      const offset =
        i === records.length - 1
          ? { lsn: endLsn, txId: tx.xid, snapshot_completed: true }
          : { lsn: prev, lsn_partial: endLsn, event: i + 1, txId: tx.xid, snapshot_completed: true }
      this.queue.push({ ...r, sourceOffset: offset })
    })
    this.queuedUpTo = Math.max(this.queuedUpTo, endLsn)
    this.wake?.()
    // Backpressure: the library pauses the socket while this handler runs.
    while (this.queue.length >= this.cfg.maxQueue && !this.stopped) {
      await new Promise<void>((resolve) => {
        this.drained = resolve
      })
    }
    this.drained = undefined
  }

  private recordsOf(tx: OpenTx, _endLsn: number): Array<Omit<SourceRecord, 'sourceOffset'>> {
    const out: Array<Omit<SourceRecord, 'sourceOffset'>> = []
    for (const ch of tx.changes) {
      const source: SourceInfo = {
        db: this.cfg.connection.database,
        name: this.cfg.prefix,
        tsMs: Math.floor(tx.commitMs),
        snapshot: 'false',
        txId: tx.xid,
        lsn: ch.lsn,
      }
      const key = ch.op === 't' ? null : (ch.key ?? keyValue(ch.shape, ch.after ?? ch.before ?? {}))
      const keyed = key !== null && ch.shape.keySchema !== undefined ? { keySchema: ch.shape.keySchema } : {}
      out.push({
        topic: ch.shape.topic,
        key,
        ...keyed,
        value: envelope(ch.shape, ch.op, ch.before, ch.after, source),
        valueSchema: ch.shape.envelopeSchema,
        headers: [],
        sourcePartition: { server: this.cfg.prefix },
      })
      if (ch.op === 'd') {
        out.push({
          topic: ch.shape.topic,
          key,
          ...keyed,
          value: null,
          headers: [],
          sourcePartition: { server: this.cfg.prefix },
        })
      }
    }
    return out
  }

  private shapeOf(rel: Pgoutput.MessageRelation): TableShape | null {
    const wanted =
      this.cfg.tableInclude.length === 0 || this.cfg.tableInclude.some((r) => r.test(`${rel.schema}.${rel.name}`))
    if (!wanted) return null
    return tableShape(
      this.cfg.prefix,
      rel.schema,
      rel.name,
      rel.columns.map((c) => ({ name: c.name, typeOid: c.typeOid })),
      rel.keyColumns,
    )
  }

  private fail(err: Error): void {
    if (this.stopped || this.failure !== undefined) return
    this.logger.error({ err, slot: this.cfg.slot }, 'PostgreSQL replication stream failed')
    this.failure = new ConnectError('TASK', `PostgreSQL replication (slot ${this.cfg.slot}): ${err.message}`, {
      cause: err,
      details: { retriable: true },
    })
    this.wake?.()
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure
  }
}

function sameKey(a: Record<string, unknown> | null, b: Record<string, unknown> | null): boolean {
  if (a === null || b === null) return a === b
  return Object.keys(a).every((k) => String(a[k]) === String(b[k]))
}

/**
 * pgoutput sends column values as text; the library would parse them with node-postgres'
 * global type parsers (Dates with milliseconds only, int8 as text). Each column's parser is
 * replaced, as its Relation message is read, by one that keeps the text for pg-types.ts.
 */
function keepColumnsAsText(plugin: PgoutputPlugin): void {
  const parser = (plugin as unknown as { parser: Record<string, (...a: unknown[]) => unknown> }).parser
  const readColumn = parser.readRelationColumn!.bind(parser)
  parser.readRelationColumn = (reader: unknown) => ({
    ...(readColumn(reader) as object),
    parser: (raw: string) => raw,
  })
}
