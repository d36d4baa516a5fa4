/**
 * The broker's session with the metadata service: the Metadata service's BrokerSession stream
 * (proto/sluice/v1/metadata.proto). Up: RegisterBroker, then a BrokerHeartbeat every
 * heartbeatIntervalMs carrying the broker epoch the service assigned. Down: BrokerRegistered,
 * heartbeat acks, MetadataUpdate (first a full snapshot, then deltas) and SessionError.
 *
 * Invariants:
 * - At most one stream is open at a time. When it breaks, errors, reports a SessionError, or no
 *   message arrives within sessionTimeoutMs, it is torn down and a new one registers again
 *   (the service assigns a new broker epoch) after a jittered exponential backoff, trying the
 *   next metadata endpoint (of the configured list; a standby answering NOT_CONTROLLER is left quickly).
 * - Updates are handed to `onUpdate` one at a time, in arrival order; a failing update is logged
 *   and the next one still runs.
 * - Losing the session does not stop the broker: it keeps serving from its last metadata, but
 *   `hasLease` turns false, and leaders refuse writes until it is true again (the fencing rule,
 *   docs/replication.md). The lease runs from the *send* time of the last acknowledged heartbeat
 *   (or of the registration): the controller restarts its session timer when that heartbeat
 *   arrives, which is later, so the lease always ends before the controller can expire the
 *   session and move leadership. After a new registration the lease also waits for the first
 *   full snapshot of that session to be applied: that snapshot is the controller confirming (or
 *   moving) this broker's leaderships.
 */
import * as grpc from '@grpc/grpc-js'
import type { Logger } from 'pino'
import {
  GRPC_CHANNEL_OPTIONS,
  errorNameFromId,
  fromGrpcError,
  loadSluiceProto,
  systemClock,
  toBigInt,
  type Clock,
  type Timer,
  type wire,
} from '@sluice/protocol'

export interface MetadataSessionOptions {
  readonly brokerId: number
  readonly advertisedHost: string
  readonly port: number
  /** The advertised Kafka listener, registered so Kafka Metadata answers can name it; absent = none. */
  readonly kafkaEndpoint?: { readonly host: string; readonly port: number }
  /** The admin HTTP server's port (metrics, health), registered so tools can find it. */
  readonly adminPort?: number
  readonly rack: string
  readonly sessionTimeoutMs: number
  readonly heartbeatIntervalMs: number
  /** The endpoints to try, read afresh before each connection attempt. */
  readonly endpoints: () => readonly string[]
  readonly onUpdate: (update: wire.MetadataUpdate__Output) => Promise<void>
  readonly logger: Logger
  /**
   * Times the lease, the heartbeats, the silence watchdog and the reconnect backoff (default:
   * systemClock). gRPC call deadlines stay on the real clock: the transport enforces them.
   */
  readonly clock?: Clock
}

const BACKOFF_MIN_MS = 100
const BACKOFF_MAX_MS = 5000

export class MetadataSession {
  private stopped = false
  private call: grpc.ClientDuplexStream<wire.BrokerSessionRequest, wire.BrokerSessionResponse__Output> | undefined
  private client: wire.MetadataClient | undefined
  private brokerEpochValue: bigint | undefined
  private lastBrokerEpochValue: bigint | undefined
  private clusterId = ''
  private updates: Promise<void> = Promise.resolve()
  /** Send times of heartbeats not yet acknowledged, oldest first (acks come back in order). */
  private heartbeatsSentMs: number[] = []
  private leaseStartMs = 0
  /** Counts streams; an update belongs to the stream that delivered it. */
  private generation = 0
  private snapshotApplied = false
  private loop: Promise<void> | undefined
  private wakeBackoff: (() => void) | undefined
  private readyResolve!: () => void
  private onShutdownAck: ((ack: wire.ControlledShutdownAck__Output | undefined) => void) | undefined
  /** Resolves once registered and the first snapshot is applied. */
  readonly ready: Promise<void> = new Promise((resolve) => {
    this.readyResolve = resolve
  })

  private readonly clock: Clock

  constructor(private readonly options: MetadataSessionOptions) {
    this.clock = options.clock ?? systemClock
  }

  /** The current session's broker epoch, undefined while not registered. */
  get brokerEpoch(): bigint | undefined {
    return this.brokerEpochValue
  }

  /**
   * The epoch of the last registration, kept after the session is lost: replication goes on with
   * it while the metadata service is unreachable (leaders refuse only epochs older than the one
   * they know), so followers keep the ISR's high watermark moving.
   */
  get lastBrokerEpoch(): bigint | undefined {
    return this.lastBrokerEpochValue
  }

  /**
   * Whether this broker may act as a leader: registered, the session's first snapshot applied,
   * and less than sessionTimeoutMs since the send time of the last acknowledged heartbeat.
   */
  hasLease(nowMs: number = this.clock.nowMs()): boolean {
    return (
      this.brokerEpochValue !== undefined &&
      this.snapshotApplied &&
      nowMs - this.leaseStartMs < this.options.sessionTimeoutMs
    )
  }

  start(): void {
    this.loop ??= this.run()
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.wakeBackoff?.()
    this.teardown()
    await this.loop
    await this.updates
  }

  /**
   * Kafka's controlled shutdown, the first step of a clean stop: asks the controller to move this
   * broker's leaderships to other in-sync replicas and to take it out of every ISR, and waits
   * until that answer and the metadata change before it have been applied here. Resolves to the
   * number of partitions still led here (no one could take over), or undefined when there was no
   * session or no answer within `timeoutMs` (the stop goes on; the controller then moves
   * leadership when the session ends, as after a crash).
   */
  async controlledShutdown(timeoutMs: number): Promise<number | undefined> {
    const call = this.call
    const epoch = this.brokerEpochValue
    if (call === undefined || epoch === undefined) return undefined
    const answer = new Promise<number | undefined>((resolve) => {
      const timer = this.clock.setTimeout(() => {
        this.onShutdownAck = undefined
        resolve(undefined)
      }, timeoutMs)
      this.onShutdownAck = (ack) => {
        timer.cancel()
        this.onShutdownAck = undefined
        if (ack === undefined || ack.error_code !== 0) {
          this.options.logger.warn(
            {
              error: ack === undefined ? 'session ended' : errorNameFromId(ack.error_code),
              message: ack?.error_message,
            },
            'controlled shutdown refused',
          )
          resolve(undefined)
        } else {
          resolve(ack.partitions_remaining)
        }
      }
    })
    try {
      call.write({ controlled_shutdown: { broker_id: this.options.brokerId, broker_epoch: epoch.toString() } })
    } catch {
      this.onShutdownAck?.(undefined)
    }
    const remaining = await answer
    await this.updates
    return remaining
  }

  /** AlterPartition on the current metadata endpoint (for ISR changes by leaders). */
  alterPartition(request: wire.AlterPartitionRequest): Promise<wire.AlterPartitionResponse__Output> {
    const client = this.client
    if (client === undefined)
      return Promise.reject(fromGrpcError({ code: grpc.status.UNAVAILABLE, details: 'no metadata session' }))
    return new Promise((resolve, reject) => {
      client.AlterPartition(request, { deadline: Date.now() + this.options.sessionTimeoutMs }, (err, res) =>
        err !== null || res === undefined ? reject(fromGrpcError(err)) : resolve(res),
      )
    })
  }

  private async run(): Promise<void> {
    let attempt = 0
    let index = 0
    while (!this.stopped) {
      const endpoints = this.options.endpoints()
      const endpoint = endpoints[index % Math.max(1, endpoints.length)]
      if (endpoint === undefined) throw new Error('no metadata endpoints configured')
      const outcome = await this.runOnce(endpoint)
      if (this.stopped) break
      // A standby answering NOT_CONTROLLER is a healthy instance pointing elsewhere: move on
      // quickly instead of backing off as from a failure.
      attempt = outcome === 'registered' ? 0 : outcome === 'not-controller' ? Math.min(attempt, 1) : attempt + 1
      index++
      const delayMs = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(attempt, 10)) * (0.5 + Math.random() / 2)
      await new Promise<void>((resolve) => {
        const timer = this.clock.setTimeout(resolve, delayMs)
        this.wakeBackoff = () => {
          timer.cancel()
          resolve()
        }
      })
      this.wakeBackoff = undefined
    }
  }

  /** One stream's life; resolves to how it went. */
  private runOnce(endpoint: string): Promise<'registered' | 'not-controller' | 'failed'> {
    const log = this.options.logger
    const Metadata = loadSluiceProto().sluice.v1.Metadata
    const client = new Metadata(endpoint, grpc.credentials.createInsecure(), GRPC_CHANNEL_OPTIONS)
    const call = client.BrokerSession()
    this.client = client
    this.call = call
    const generation = ++this.generation
    this.snapshotApplied = false
    this.heartbeatsSentMs = []
    let registerSentMs = this.clock.nowMs()
    let registered = false
    let lastHeardMs = this.clock.nowMs()
    let heartbeat: Timer | undefined
    // The watchdog also covers a service that accepts the stream but never answers.
    const watchdog = this.clock.setInterval(
      () => {
        if (this.clock.nowMs() - lastHeardMs > this.options.sessionTimeoutMs) {
          log.warn({ endpoint }, 'metadata session timed out')
          call.cancel()
        }
      },
      Math.max(50, Math.floor(this.options.heartbeatIntervalMs / 2)),
    )

    return new Promise((resolve) => {
      let done = false
      let notController = false
      const end = (why: string, err?: unknown): void => {
        if (done) return
        done = true
        watchdog.cancel()
        heartbeat?.cancel()
        this.brokerEpochValue = undefined
        this.snapshotApplied = false
        this.onShutdownAck?.(undefined)
        if (this.call === call) {
          this.call = undefined
          this.client = undefined
        }
        try {
          call.cancel()
        } catch {
          /* already closed */
        }
        client.close()
        if (notController)
          log.info({ endpoint, why }, 'this metadata instance is not the controller; trying the next one')
        else if (!this.stopped) log.warn({ endpoint, err, why }, 'metadata session lost; will register again')
        resolve(registered ? 'registered' : notController ? 'not-controller' : 'failed')
      }
      call.on('data', (msg: wire.BrokerSessionResponse__Output) => {
        lastHeardMs = this.clock.nowMs()
        try {
          if (msg.registered != null) {
            registered = true
            this.leaseStartMs = registerSentMs
            this.brokerEpochValue = toBigInt(msg.registered.broker_epoch)
            this.lastBrokerEpochValue = this.brokerEpochValue
            if (msg.registered.cluster_id !== '') this.clusterId = msg.registered.cluster_id
            log.info(
              { endpoint, brokerEpoch: msg.registered.broker_epoch, clusterId: this.clusterId },
              'registered with the metadata service',
            )
            heartbeat?.cancel()
            heartbeat = this.clock.setInterval(() => this.sendHeartbeat(call), this.options.heartbeatIntervalMs)
          } else if (msg.heartbeat_ack != null) {
            const sent = this.heartbeatsSentMs.shift()
            if (sent !== undefined && sent > this.leaseStartMs) this.leaseStartMs = sent
          } else if (msg.update != null) {
            this.enqueueUpdate(msg.update, generation)
          } else if (msg.shutdown_ack != null) {
            this.onShutdownAck?.(msg.shutdown_ack)
          } else if (msg.error != null) {
            notController = errorNameFromId(msg.error.error_code) === 'NOT_CONTROLLER'
            end(`session error ${errorNameFromId(msg.error.error_code)}: ${msg.error.error_message}`)
          }
        } catch (err) {
          log.error({ err }, 'bad message on the metadata session')
          end('bad message', err)
        }
      })
      call.on('error', (err) => end('stream error', err))
      call.on('end', () => end('stream ended by the service'))
      call.on('close', () => end('stream closed'))
      registerSentMs = this.clock.nowMs()
      call.write({
        register: {
          broker_id: this.options.brokerId,
          host: this.options.advertisedHost,
          port: this.options.port,
          rack: this.options.rack,
          admin_port: this.options.adminPort ?? 0,
          kafka_host: this.options.kafkaEndpoint?.host ?? '',
          kafka_port: this.options.kafkaEndpoint?.port ?? 0,
          session_timeout_ms: this.options.sessionTimeoutMs,
          cluster_id: this.clusterId,
        },
      })
    })
  }

  private sendHeartbeat(
    call: grpc.ClientDuplexStream<wire.BrokerSessionRequest, wire.BrokerSessionResponse__Output>,
  ): void {
    const epoch = this.brokerEpochValue
    if (epoch === undefined || call !== this.call) return
    try {
      call.write({ heartbeat: { broker_id: this.options.brokerId, broker_epoch: epoch.toString() } })
      this.heartbeatsSentMs.push(this.clock.nowMs())
      // A service that never acknowledges must not grow this list: the watchdog ends the stream
      // long before, but bound it anyway.
      if (this.heartbeatsSentMs.length > 1000) this.heartbeatsSentMs.shift()
    } catch (err) {
      this.options.logger.debug({ err }, 'heartbeat write failed')
    }
  }

  private enqueueUpdate(update: wire.MetadataUpdate__Output, generation: number): void {
    if (update.cluster_id !== '') this.clusterId = update.cluster_id
    this.updates = this.updates.then(async () => {
      if (this.stopped) return
      try {
        await this.options.onUpdate(update)
        if (update.full) {
          if (generation === this.generation && this.brokerEpochValue !== undefined) this.snapshotApplied = true
          this.readyResolve()
        }
      } catch (err) {
        this.options.logger.error({ err, full: update.full }, 'could not apply a metadata update')
      }
    })
  }

  private teardown(): void {
    try {
      this.call?.cancel()
    } catch {
      /* already closed */
    }
  }
}
