/**
 * One ZooKeeper client connection = one ZooKeeper session (node-zookeeper-client 1.1.3), wrapped
 * with what the store needs and the library lacks: a deadline on the first connect, a deadline on
 * every request, a settled state machine, and an awaitable close.
 *
 * States: 'connected' -> 'disconnected' (the library reconnects by itself; ZooKeeper keeps the
 * session and its ephemerals if it comes back within the session timeout) -> 'connected' ...;
 * 'expired' (terminal: ZooKeeper ended the session, its ephemerals are gone; `onExpired` runs
 * once) and 'closed' (terminal: we closed it). Requests made while disconnected wait in the
 * library's queue until it reconnects or `operationTimeoutMs` passes.
 *
 * Handshake watchdog: the library has no deadline between TCP connect and ZooKeeper's connect
 * response, and ZooKeeper 3.8 leaves a connection open without answering when it arrives while
 * the server is still loading its database (an NPE in NIOServerCnxn.close). Such a client would
 * wait forever, so while not connected, a socket that has not completed its handshake within
 * `handshakeTimeoutMs` (to 2x that) is destroyed, and the library connects again.
 */
import zookeeper from 'node-zookeeper-client'
import type { Client, State } from 'node-zookeeper-client'
import { SluiceError } from '@sluice/protocol'

export type ConnectionState = 'connected' | 'disconnected' | 'expired' | 'closed'

export interface ZkConnectionOptions {
  /** host:port[,host:port...] followed by the chroot, if any (the library's syntax). */
  readonly connectString: string
  /** Requested session timeout; the server clamps it to [2, 20] x tickTime. */
  readonly sessionTimeoutMs: number
  readonly connectTimeoutMs: number
  readonly operationTimeoutMs: number
  /** Upper bound of the random pause before retrying after every server refused (default 200 ms). */
  readonly spinDelayMs?: number
  /** See the handshake watchdog above (default 2000 ms). */
  readonly handshakeTimeoutMs?: number
  readonly onExpired?: () => void
  readonly onStateChange?: (state: ConnectionState) => void
}

/** A request callback in node-zookeeper-client's style. */
export type ZkCallback<T> = (error: unknown, result?: T) => void

/** The marker error a connection throws when its session is gone; the store maps it by context. */
export class ZkSessionGone extends Error {
  constructor(readonly how: 'expired' | 'closed') {
    super(`the ZooKeeper session is ${how}`)
  }
}

const CLOSE_TIMEOUT_MS = 3_000

export class ZkConnection {
  private stateValue: ConnectionState = 'disconnected'
  private expiredFired = false
  private watchdog: NodeJS.Timeout | undefined

  private constructor(
    readonly client: Client,
    private readonly options: ZkConnectionOptions,
  ) {}

  /** Connects and waits for the session; METADATA_UNAVAILABLE if that takes longer than connectTimeoutMs. */
  static async open(options: ZkConnectionOptions): Promise<ZkConnection> {
    const client = zookeeper.createClient(options.connectString, {
      sessionTimeout: options.sessionTimeoutMs,
      spinDelay: options.spinDelayMs ?? 200,
      retries: 0,
    })
    const conn = new ZkConnection(client, options)
    client.on('state', (s) => {
      conn.onState(s)
    })
    conn.startWatchdog()
    let timer: NodeJS.Timeout | undefined
    const connected = await new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), options.connectTimeoutMs)
      client.once('connected', () => resolve(true))
      client.once('expired', () => resolve(false))
      client.connect()
    })
    clearTimeout(timer)
    if (!connected) {
      conn.stateValue = 'closed'
      conn.stopWatchdog()
      client.close()
      throw new SluiceError(
        'METADATA_UNAVAILABLE',
        `could not open a ZooKeeper session with ${options.connectString} within ${options.connectTimeoutMs} ms`,
        { connectString: options.connectString },
      )
    }
    return conn
  }

  get state(): ConnectionState {
    return this.stateValue
  }

  /** ZooKeeper's session id as 16 hex digits (the same form NodeStat.ephemeralOwner uses). */
  get sessionId(): string {
    return this.client.getSessionId().toString('hex')
  }

  /** The timeout the server granted, in ms. */
  get negotiatedTimeoutMs(): number {
    return this.client.getSessionTimeout()
  }

  private onState(s: State): void {
    if (this.stateValue === 'closed' || this.stateValue === 'expired') return
    let next: ConnectionState | undefined
    if (s === zookeeper.State.SYNC_CONNECTED) next = 'connected'
    else if (s === zookeeper.State.DISCONNECTED) next = 'disconnected'
    else if (s === zookeeper.State.EXPIRED) next = 'expired'
    if (next === undefined || next === this.stateValue) return
    this.stateValue = next
    if (next === 'disconnected') this.startWatchdog()
    else this.stopWatchdog()
    this.options.onStateChange?.(next)
    if (next === 'expired' && !this.expiredFired) {
      this.expiredFired = true
      // The library does not reconnect an expired session; release its socket and timers.
      this.client.close()
      this.options.onExpired?.()
    }
  }

  private startWatchdog(): void {
    if (this.watchdog !== undefined) return
    const manager = (this.client as unknown as { connectionManager?: { socket?: { destroy(): void } } })
      .connectionManager
    let seen: unknown
    this.watchdog = setInterval(() => {
      const socket = manager?.socket
      if (this.stateValue !== 'disconnected') {
        this.stopWatchdog()
        return
      }
      if (socket !== undefined && socket === seen) socket.destroy()
      seen = socket
    }, this.options.handshakeTimeoutMs ?? 2_000)
    this.watchdog.unref()
  }

  private stopWatchdog(): void {
    if (this.watchdog !== undefined) clearInterval(this.watchdog)
    this.watchdog = undefined
  }

  /**
   * Runs one library request with a deadline. Rejects with ZkSessionGone when the session is
   * over, with the library's Exception (or assertion Error) as it came, or with
   * METADATA_UNAVAILABLE when no answer came in time (the request may still be applied later:
   * the same ambiguity as ZooKeeper's CONNECTION_LOSS).
   */
  async call<T>(what: string, request: (cb: ZkCallback<T>) => void): Promise<T> {
    if (this.stateValue === 'expired' || this.stateValue === 'closed') throw new ZkSessionGone(this.stateValue)
    let timer: NodeJS.Timeout | undefined
    try {
      return await new Promise<T>((resolve, reject) => {
        timer = setTimeout(() => {
          reject(
            new SluiceError(
              'METADATA_UNAVAILABLE',
              `no answer from ZooKeeper to ${what} within ${this.options.operationTimeoutMs} ms`,
            ),
          )
        }, this.options.operationTimeoutMs)
        // The library validates arguments with assert(), throwing synchronously.
        request((error, result) => {
          if (error !== null && error !== undefined) reject(error)
          else resolve(result as T)
        })
      })
    } finally {
      clearTimeout(timer)
    }
  }

  /**
   * Closes the session: ZooKeeper deletes its ephemeral nodes before it answers, and then drops
   * the connection, which is what we wait for (bounded, since a disconnected client may never
   * get to send the close).
   */
  async close(): Promise<void> {
    const was = this.stateValue
    if (was === 'closed') return
    this.stateValue = 'closed'
    this.stopWatchdog()
    if (was === 'expired') return
    let timer: NodeJS.Timeout | undefined
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_TIMEOUT_MS)
      this.client.once('disconnected', () => resolve())
      this.client.close()
    })
    clearTimeout(timer)
  }
}
