/**
 * The controller: owns the cluster state in the store (layout.ts) and its in-memory view
 * (cluster-view.ts), the live broker sessions, and every state change.
 *
 * Invariants:
 * - All changes run one at a time through `serial` and go through `commit`: one store multi
 *   (guarded by a version check of /controller_epoch, so a deposed controller cannot write; RPCs
 *   reach the controller only while its election lease holds, see metadata-server.ts), then
 *   the in-memory view, then a delta `update` to every live broker session. A failed write leaves
 *   the view untouched.
 * - A broker is live exactly while it has a session here (and its ephemeral /brokers/ids/<id>).
 *   Broker epochs come from the persistent counter /brokers/epoch, so they only grow, across
 *   restarts too.
 * - After a start, brokers named by partition states get one session timeout to register again
 *   before they are treated as lost; a restart of the metadata service then moves no leaders.
 */
import type { Logger } from 'pino'
import { SluiceError, systemClock, type Clock, type Timer, type wire } from '@sluice/protocol'
import { SerialQueue } from '@sluice/server-kit'
import { mkdirp, type MetadataStore, type SessionId, type StoreOp } from '../store/metadata-store.js'
import { ClusterView, type TopicState } from './cluster-view.js'
import type { ControllerTerm } from './controller-election.js'
import {
  PATHS,
  brokerPath,
  decodeBigInt,
  decodeClusterId,
  encodeBroker,
  encodeClusterId,
  encodeInt,
  encodeState,
  newKafkaUuid,
  statePath,
  type BrokerRecord,
  type PartitionStateRecord,
} from './layout.js'
import { afterBrokersLost, afterControlledShutdown, electOffline, type ElectionContext } from './partition-election.js'
import type { RandomInt } from './placement.js'
import { PreferredLeaderBalancer } from './preferred-leader-balancer.js'
import { ProducerIdAllocator } from './producer-ids.js'

export interface ControllerOptions {
  readonly store: MetadataStore
  readonly logger: Logger
  readonly metadataEndpoints: () => string[]
  readonly defaultNumPartitions: number
  readonly defaultReplicationFactor: number
  readonly maxPartitionsPerTopic: number
  readonly brokerSessionTimeoutMs: number
  /** The id this metadata-service node reports as controller (never a broker id: 3000 by default). */
  readonly controllerId: number
  readonly random: RandomInt
  /** The election this controller won (controller-election.ts): its epoch fences every write. */
  readonly term: ControllerTerm
  /** A write was refused by the epoch fence: another instance has become controller. */
  readonly onFenced: (err: SluiceError) => void
  /** A committed state change moved a partition's leader (to -1: offline); for metrics. */
  readonly onLeaderChange?: ((topic: string, partition: number, from: number, to: number) => void) | undefined
  /**
   * Delay before leadership moves back to a preferred replica that re-entered the ISR
   * (preferred-leader-balancer.ts); default 2000, negative disables it.
   */
  readonly preferredLeaderElectionDelayMs?: number
  /** The startup grace timer, the preferred-leader delay and broker record timestamps (default systemClock). */
  readonly clock?: Clock
}

/** The downstream half of one BrokerSession stream. */
export interface BrokerSink {
  /** Called once the registration is durable, before `registered` is sent. */
  registered(brokerId: number, brokerEpoch: bigint): void
  send(msg: wire.BrokerSessionResponse): void
  /** Ends the stream; with an error, a SessionError message goes first. */
  close(error?: SluiceError): void
}

interface LiveSession {
  readonly brokerEpoch: bigint
  readonly storeSession: SessionId
  readonly sink: BrokerSink
}

export interface StateChange {
  readonly ops: StoreOp[]
  readonly apply: () => void
  readonly partitions?: ReadonlyArray<readonly [string, number]>
  readonly deletedTopics?: readonly string[]
  readonly configTopics?: readonly string[]
  readonly brokersChanged?: boolean
}

export class Controller {
  readonly view = new ClusterView()
  readonly log: Logger
  clusterId = ''
  controllerEpoch = 0
  private controllerEpochVersion = 0
  private brokerEpochCounter = { value: 0n, version: -1 }
  private readonly queue = new SerialQueue()
  private readonly sessions = new Map<number, LiveSession>()
  /** Brokers in controlled shutdown: alive, but never elected leader or let back into an ISR. */
  private readonly shuttingDown = new Set<number>()
  private readonly timers: Timer[] = []
  private readonly clock: Clock
  private stopping = false
  readonly producerIds: ProducerIdAllocator
  readonly preferredLeaders: PreferredLeaderBalancer<StateChange>

  private constructor(readonly options: ControllerOptions) {
    this.log = options.logger
    this.clock = options.clock ?? systemClock
    this.preferredLeaders = new PreferredLeaderBalancer(
      this,
      options.preferredLeaderElectionDelayMs ?? 2000,
      this.clock,
    )
    this.producerIds = new ProducerIdAllocator(options.store, options.controllerId, () => this.fenceOp())
  }

  /** The check every controller write carries: fails once another controller has bumped the epoch. */
  fenceOp(): StoreOp {
    return { type: 'check', path: PATHS.controllerEpoch, version: this.controllerEpochVersion }
  }

  static async start(options: ControllerOptions): Promise<Controller> {
    const c = new Controller(options)
    await c.init()
    return c
  }

  private async init(): Promise<void> {
    const store = this.options.store
    for (const p of ['/cluster', PATHS.brokerIds, PATHS.topics, PATHS.topicConfigs]) await mkdirp(store, p)
    if ((await store.exists(PATHS.clusterId)) === undefined)
      await store.create(PATHS.clusterId, encodeClusterId(newKafkaUuid()))
    this.clusterId = decodeClusterId((await store.get(PATHS.clusterId)).data)
    this.controllerEpoch = this.options.term.epoch
    this.controllerEpochVersion = this.options.term.epochVersion
    const counter = await store.exists(PATHS.brokerEpoch)
    if (counter !== undefined) {
      this.brokerEpochCounter = {
        value: decodeBigInt(PATHS.brokerEpoch, (await store.get(PATHS.brokerEpoch)).data),
        version: counter.version,
      }
    }
    await this.view.load(store, this.log)
    await this.producerIds.loadWatermark()
    this.timers.push(
      this.clock
        .setTimeout(() => {
          this.serial(async () => {
            await this.loseMissingBrokers()
          }).catch((e: unknown) => this.log.error({ err: e }, 'startup broker check failed'))
        }, this.options.brokerSessionTimeoutMs)
        .unref(),
    )
    this.log.info(
      { clusterId: this.clusterId, controllerEpoch: this.controllerEpoch, topics: this.view.topics.size },
      'controller started',
    )
  }

  serial<T>(job: () => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      if (this.stopping) throw new SluiceError('NOT_CONTROLLER', 'the controller is shutting down')
      return await job()
    })
  }

  electionContext(topic: string): ElectionContext {
    return { isLive: this.isEligible, controllerEpoch: this.controllerEpoch, unclean: this.view.uncleanAllowed(topic) }
  }

  /** Alive and not shutting down: may lead, or join an ISR. */
  readonly isEligible = (brokerId: number): boolean => this.view.isLive(brokerId) && !this.shuttingDown.has(brokerId)

  /**
   * Kafka's controlled shutdown: moves every leadership of the broker to another in-sync replica
   * and takes it out of every ISR (never emptying one), in one committed change pushed to all
   * brokers before the answer. Returns how many partitions it still leads (no one could take over).
   */
  async controlledShutdown(brokerId: number, brokerEpoch: bigint): Promise<number> {
    return await this.serial(async () => {
      if (!this.isCurrentBroker(brokerId, brokerEpoch)) {
        throw new SluiceError(
          'STALE_BROKER_EPOCH',
          `broker ${brokerId} epoch ${brokerEpoch} is not its current session epoch`,
        )
      }
      this.shuttingDown.add(brokerId)
      await this.commit(
        this.partitionChange((t, p) =>
          afterControlledShutdown(t.assignment[p]!, t.states[p]!, brokerId, this.electionContext(t.name)),
        ),
      )
      let remaining = 0
      for (const t of this.view.topics.values()) for (const st of t.states) if (st.leader === brokerId) remaining++
      this.log.info({ brokerId, partitionsRemaining: remaining }, 'controlled shutdown: leaderships moved')
      return remaining
    })
  }

  /** Persists a change, applies it to the view and pushes the delta. Call inside `serial`. */
  async commit(change: StateChange): Promise<void> {
    if (change.ops.length > 0) await this.fencedMulti(change.ops)
    change.apply()
    const partitions: wire.PartitionState[] = []
    for (const [name, p] of change.partitions ?? []) {
      const t = this.view.topics.get(name)
      if (t !== undefined && p < t.states.length) partitions.push(this.view.partitionToWire(t, p))
    }
    const configs = (change.configTopics ?? []).flatMap((name) => {
      const t = this.view.topics.get(name)
      return t === undefined ? [] : [this.view.topicConfigToWire(t)]
    })
    const deleted = [...(change.deletedTopics ?? [])]
    if (partitions.length === 0 && configs.length === 0 && deleted.length === 0 && change.brokersChanged !== true)
      return
    const update = this.update(false, partitions, configs, deleted)
    for (const s of this.sessions.values()) s.sink.send({ update })
  }

  /** A store transaction behind the epoch fence; a fence failure deposes this controller. */
  async fencedMulti(ops: readonly StoreOp[]): Promise<void> {
    try {
      await this.options.store.multi([this.fenceOp(), ...ops])
    } catch (e) {
      if (
        e instanceof SluiceError &&
        e.code === 'META_BAD_VERSION' &&
        (e.details as { opIndex?: number } | undefined)?.opIndex === 0
      ) {
        const fenced = new SluiceError(
          'NOT_CONTROLLER',
          `controller epoch ${this.controllerEpoch} is fenced: another instance has become controller`,
          {},
          { cause: e },
        )
        this.options.onFenced(fenced)
        throw fenced
      }
      throw e
    }
  }

  /** A change setting new states for some partitions (nothing when `next` returns undefined everywhere). */
  partitionChange(
    next: (t: TopicState, p: number) => PartitionStateRecord | undefined,
    brokersChanged = false,
  ): StateChange {
    const ops: StoreOp[] = []
    const updates: Array<[TopicState, number, PartitionStateRecord]> = []
    for (const t of this.view.topics.values()) {
      for (let p = 0; p < t.states.length; p++) {
        const s = next(t, p)
        if (s === undefined) continue
        updates.push([t, p, s])
        ops.push({ type: 'set', path: statePath(t.name, p), data: encodeState(s), version: -1 })
      }
    }
    return {
      ops,
      apply: () => {
        for (const [t, p, s] of updates) {
          const before = t.states[p]?.leader ?? -1
          t.states[p] = s
          if (before !== s.leader) this.options.onLeaderChange?.(t.name, p, before, s.leader)
        }
      },
      partitions: updates.map(([t, p]) => [t.name, p] as const),
      brokersChanged,
    }
  }

  update(
    full: boolean,
    partitions: wire.PartitionState[],
    topicConfigs: wire.TopicConfig[],
    deletedTopics: string[],
  ): wire.MetadataUpdate {
    return {
      full,
      brokers: this.view.brokersToWire(),
      partitions,
      deleted_topics: deletedTopics,
      topic_configs: topicConfigs,
      controller_id: this.options.controllerId,
      controller_epoch: this.controllerEpoch,
      metadata_endpoints: this.options.metadataEndpoints(),
      cluster_id: this.clusterId,
    }
  }

  /** Registers a broker, sends it `registered` and the full snapshot, then elects leaders it can take. */
  async registerBroker(reg: wire.RegisterBroker__Output, sink: BrokerSink): Promise<bigint> {
    const timeoutMs = validateRegistration(reg, this.clusterId, this.options.brokerSessionTimeoutMs)
    return await this.serial(async () => {
      const id = reg.broker_id
      if (this.sessions.has(id))
        throw new SluiceError('DUPLICATE_BROKER_REGISTRATION', `broker ${id} is already registered with a live session`)
      const store = this.options.store
      const storeSession = await store.createSession(timeoutMs, () => {
        this.sessionExpired(id, storeSession)
      })
      const epoch = this.brokerEpochCounter.value + 1n
      const record: BrokerRecord = {
        id,
        host: reg.host,
        port: reg.port,
        rack: reg.rack,
        adminPort: reg.admin_port,
        kafkaHost: reg.kafka_host,
        kafkaPort: reg.kafka_port,
        brokerEpoch: epoch,
        timestampMs: this.clock.nowMs(),
      }
      const counterOp: StoreOp =
        this.brokerEpochCounter.version === -1
          ? { type: 'create', path: PATHS.brokerEpoch, data: encodeInt(epoch) }
          : { type: 'set', path: PATHS.brokerEpoch, data: encodeInt(epoch), version: this.brokerEpochCounter.version }
      // A registration left by the previous controller's session (it died; ZooKeeper has not
      // expired that session yet) is replaced: this controller's word on liveness is the one.
      const stale = await store.exists(brokerPath(id))
      const replace: StoreOp[] =
        stale === undefined ? [] : [{ type: 'delete', path: brokerPath(id), version: stale.version }]
      try {
        await this.fencedMulti([
          counterOp,
          ...replace,
          {
            type: 'create',
            path: brokerPath(id),
            data: encodeBroker(record),
            mode: 'ephemeral',
            sessionId: storeSession,
          },
        ])
      } catch (e) {
        await store.closeSession(storeSession).catch(() => {})
        throw e
      }
      this.brokerEpochCounter = { value: epoch, version: this.brokerEpochCounter.version + 1 }
      this.sessions.set(id, { brokerEpoch: epoch, storeSession, sink })
      this.view.brokers.set(id, record)
      this.log.info(
        { brokerId: id, brokerEpoch: epoch.toString(), host: reg.host, port: reg.port },
        'broker registered',
      )
      sink.registered(id, epoch)
      sink.send({
        registered: {
          broker_epoch: epoch.toString(),
          cluster_id: this.clusterId,
          controller_id: this.options.controllerId,
          controller_epoch: this.controllerEpoch,
        },
      })
      const configs = [...this.view.topics.values()].map((t) => this.view.topicConfigToWire(t))
      sink.send({ update: this.update(true, this.view.allPartitionsToWire(), configs, []) })
      try {
        await this.commit(
          this.partitionChange(
            (t, p) => electOffline(t.assignment[p]!, t.states[p]!, this.electionContext(t.name)),
            true,
          ),
        )
      } catch (e) {
        // The registration stands; the offline partitions stay offline until the next change retries.
        this.log.error({ err: e, brokerId: id }, 'electing leaders for a registered broker failed')
      }
      return epoch
    })
  }

  /** A heartbeat: the epoch must be the broker's current one; keeps its store session alive. */
  async heartbeat(brokerId: number, brokerEpoch: bigint): Promise<void> {
    const s = this.sessions.get(brokerId)
    if (s === undefined || s.brokerEpoch !== brokerEpoch) {
      throw new SluiceError(
        'STALE_BROKER_EPOCH',
        `broker ${brokerId} epoch ${brokerEpoch} is not its current session epoch`,
      )
    }
    await this.options.store.touchSession(s.storeSession)
  }

  isCurrentBroker(brokerId: number, brokerEpoch: bigint): boolean {
    return this.sessions.get(brokerId)?.brokerEpoch === brokerEpoch
  }

  /** The stream of a session ended or broke: the broker is lost at once. */
  brokerSessionEnded(brokerId: number, brokerEpoch: bigint, reason: string): void {
    if (this.stopping) return
    this.serial(async () => {
      const s = this.sessions.get(brokerId)
      if (s === undefined || s.brokerEpoch !== brokerEpoch) return
      await this.dropSession(brokerId, s, reason)
    }).catch((e: unknown) => {
      if (!this.stopping) this.log.error({ err: e, brokerId }, 'handling the end of a broker session failed')
    })
  }

  private sessionExpired(brokerId: number, storeSession: SessionId): void {
    if (this.stopping) return
    this.serial(async () => {
      const s = this.sessions.get(brokerId)
      if (s === undefined || s.storeSession !== storeSession) return
      s.sink.close(
        new SluiceError('META_SESSION_EXPIRED', `no heartbeat from broker ${brokerId} within its session timeout`),
      )
      await this.dropSession(brokerId, s, 'session expired')
    }).catch((e: unknown) => {
      if (!this.stopping) this.log.error({ err: e, brokerId }, 'handling a broker session expiry failed')
    })
  }

  private async dropSession(brokerId: number, s: LiveSession, reason: string): Promise<void> {
    this.sessions.delete(brokerId)
    this.shuttingDown.delete(brokerId)
    this.view.brokers.delete(brokerId)
    this.log.warn({ brokerId, brokerEpoch: s.brokerEpoch.toString(), reason }, 'broker lost')
    await this.options.store
      .closeSession(s.storeSession)
      .catch((e: unknown) => this.log.warn({ err: e }, 'closing a broker store session failed'))
    const lost = new Set([brokerId])
    await this.commit(
      this.partitionChange(
        (t, p) => afterBrokersLost(t.assignment[p]!, t.states[p]!, lost, this.electionContext(t.name)),
        true,
      ),
    )
  }

  /** After the startup grace period: brokers the partition states name but that did not come back are lost. */
  private async loseMissingBrokers(): Promise<void> {
    const missing = new Set<number>()
    for (const t of this.view.topics.values()) {
      for (const s of t.states) for (const b of [s.leader, ...s.isr]) if (b >= 0 && !this.view.isLive(b)) missing.add(b)
    }
    if (missing.size === 0) return
    this.log.warn(
      { brokers: [...missing] },
      'brokers did not register again after the controller started; treating them as lost',
    )
    await this.commit(
      this.partitionChange((t, p) =>
        afterBrokersLost(t.assignment[p]!, t.states[p]!, missing, this.electionContext(t.name)),
      ),
    )
  }

  async stop(): Promise<void> {
    if (this.stopping) return
    // Let running changes finish, then refuse new ones; sessions end without elections (the
    // brokers stay alive and register with the next controller).
    await this.queue.run(async () => {
      this.stopping = true
    })
    for (const t of this.timers) t.cancel()
    this.preferredLeaders.stop()
    for (const s of this.sessions.values()) s.sink.close()
    this.sessions.clear()
  }
}

const SESSION_TIMEOUT_MIN_MS = 50
const SESSION_TIMEOUT_MAX_MS = 600_000

/** Validates a RegisterBroker message; returns the session timeout to use. */
export function validateRegistration(
  reg: wire.RegisterBroker__Output,
  clusterId: string,
  defaultTimeoutMs: number,
): number {
  const bad = (m: string): SluiceError => new SluiceError('INVALID_REQUEST', `register: ${m}`)
  if (!Number.isInteger(reg.broker_id) || reg.broker_id < 0) throw bad(`broker_id ${reg.broker_id} must be >= 0`)
  if (typeof reg.host !== 'string' || reg.host.trim() === '' || reg.host.length > 255)
    throw bad('host must be 1-255 characters')
  if (!Number.isInteger(reg.port) || reg.port < 1 || reg.port > 65535) throw bad(`port ${reg.port} must be in 1..65535`)
  if (!Number.isInteger(reg.admin_port) || reg.admin_port < 0 || reg.admin_port > 65535)
    throw bad(`admin_port ${reg.admin_port} must be in 0..65535`)
  // Both empty means the broker has no Kafka listener (or predates them); a port without a host
  // or the reverse would advertise an endpoint no client can reach.
  if (!Number.isInteger(reg.kafka_port) || reg.kafka_port < 0 || reg.kafka_port > 65535)
    throw bad(`kafka_port ${reg.kafka_port} must be in 0..65535`)
  if (reg.kafka_host.length > 255) throw bad('kafka_host must be at most 255 characters')
  if ((reg.kafka_port === 0) !== (reg.kafka_host.trim() === ''))
    throw bad('kafka_host and kafka_port are given together (both empty: no Kafka listener)')
  if (reg.rack.length > 255) throw bad('rack must be at most 255 characters')
  if (
    reg.session_timeout_ms !== 0 &&
    (reg.session_timeout_ms < SESSION_TIMEOUT_MIN_MS || reg.session_timeout_ms > SESSION_TIMEOUT_MAX_MS)
  ) {
    throw bad(
      `session_timeout_ms ${reg.session_timeout_ms} must be 0 (server default) or in ${SESSION_TIMEOUT_MIN_MS}..${SESSION_TIMEOUT_MAX_MS}`,
    )
  }
  if (reg.cluster_id !== '' && reg.cluster_id !== clusterId) {
    throw new SluiceError(
      'INCONSISTENT_CLUSTER_ID',
      `broker belongs to cluster ${reg.cluster_id}, this is cluster ${clusterId}`,
    )
  }
  return reg.session_timeout_ms === 0 ? defaultTimeoutMs : reg.session_timeout_ms
}
