/**
 * Store sessions on ZooKeeper: each `createSession` opens a dedicated ZooKeeper connection, and
 * that connection's ZooKeeper session owns the store session's ephemeral nodes. So a broker's
 * /brokers/ids/<id> vanishes when *its* session ends, whichever way it ends:
 *
 * - closeSession: the connection is closed; ZooKeeper deletes the ephemerals before it answers.
 * - lease lapse: the MetadataStore contract says a session expires when it is not touched for
 *   timeoutMs (the controller relies on it: a broker that stops heartbeating but keeps its stream
 *   open, e.g. SIGSTOPped, must be declared lost). ZooKeeper's pings would keep the connection
 *   alive forever, so a sweep here closes sessions whose lease lapsed, then runs onExpired.
 * - ZooKeeper expiry: this process lost ZooKeeper for longer than the negotiated session timeout
 *   (at least 2 x tickTime, 4 s by default) or died. ZooKeeper deletes the ephemerals itself;
 *   when the library learns of it (on reconnect) onExpired runs. A reconnect within the timeout
 *   keeps the session and its ephemerals, with nothing to do.
 * onExpired runs at most once per session, never for closeSession or store close.
 */
import { SluiceError, type Clock } from '@sluice/protocol'
import type { Logger } from 'pino'
import type { SessionId } from './metadata-store.js'
import { LeaseTable } from './session-leases.js'
import { ZkConnection, type ZkConnectionOptions } from './zookeeper-connection.js'

interface Session {
  readonly conn: ZkConnection
  readonly onExpired?: (id: SessionId) => void
}

export class SessionTable {
  private readonly sessions: LeaseTable<Session>
  private closed = false

  constructor(
    private readonly connectOptions: Omit<ZkConnectionOptions, 'sessionTimeoutMs' | 'onExpired'>,
    private readonly log: Logger,
    clock: Clock,
  ) {
    this.sessions = new LeaseTable<Session>(clock, (id) => {
      this.expire(id, 'lease').catch((e: unknown) => {
        this.log.error({ err: e, session: id }, 'session expiry failed')
      })
    })
  }

  async create(timeoutMs: number, onExpired?: (id: SessionId) => void): Promise<SessionId> {
    let id: SessionId | undefined
    const conn = await ZkConnection.open({
      ...this.connectOptions,
      sessionTimeoutMs: timeoutMs,
      onExpired: () => {
        if (id !== undefined) this.expire(id, 'zookeeper').catch(() => {})
      },
    })
    id = conn.sessionId
    if (this.closed) {
      // The store was closed while this session was connecting.
      await conn.close()
      throw new SluiceError('METADATA_UNAVAILABLE', 'the metadata store is closed')
    }
    this.sessions.add(id, timeoutMs, { conn, ...(onExpired !== undefined ? { onExpired } : {}) })
    this.log.debug({ session: id, timeoutMs, zkTimeoutMs: conn.negotiatedTimeoutMs }, 'zookeeper session opened')
    return id
  }

  /** The live connection of a session, or META_SESSION_EXPIRED (what creating an ephemeral on a dead session says). */
  connectionOf(id: SessionId | undefined, path: string): ZkConnection {
    const conn = id === undefined ? undefined : this.sessions.get(id)?.value.conn
    if (conn === undefined || conn.state === 'expired' || conn.state === 'closed') {
      throw new SluiceError('META_SESSION_EXPIRED', `session ${String(id)} is not live`, { path })
    }
    return conn
  }

  /** @internal The ZooKeeper connection behind a session (tests use it to make ZooKeeper expire it). */
  connection(id: SessionId): ZkConnection | undefined {
    return this.sessions.get(id)?.value.conn
  }

  async touch(id: SessionId): Promise<void> {
    const conn = this.sessions.get(id)?.value.conn
    if (conn === undefined || conn.state === 'expired' || this.sessions.lapsed(id)) {
      if (conn !== undefined) await this.expire(id, conn.state === 'expired' ? 'zookeeper' : 'lease')
      throw new SluiceError('META_SESSION_EXPIRED', `session ${id} has expired`)
    }
    this.sessions.renew(id)
  }

  async close(id: SessionId): Promise<void> {
    const lease = this.sessions.remove(id)
    if (lease === undefined) return
    await lease.value.conn.close()
  }

  async closeAll(): Promise<void> {
    this.closed = true
    const all = [...this.sessions.values()]
    this.sessions.clear()
    await Promise.all(
      all.map(async (lease) => {
        await lease.value.conn.close()
      }),
    )
  }

  private async expire(id: SessionId, why: 'lease' | 'zookeeper'): Promise<void> {
    const lease = this.sessions.remove(id)
    if (lease === undefined) return
    // Closing makes ZooKeeper delete the ephemerals now, before onExpired runs (as embedded does).
    await lease.value.conn.close()
    this.log.info({ session: id, timeoutMs: lease.timeoutMs, why }, 'metadata session expired')
    if (lease.value.onExpired !== undefined) {
      const cb = lease.value.onExpired
      queueMicrotask(() => {
        try {
          cb(id)
        } catch (e) {
          this.log.error({ err: e }, 'session expiry callback threw')
        }
      })
    }
  }
}
