/**
 * Which metadata-service instance is the active controller (ZooKeeper-era Kafka's election):
 * every instance campaigns by creating the ephemeral /controller node and, in the same store
 * transaction, raising /controller_epoch by one. Exactly one transaction can win; the others are
 * standbys that watch /controller and campaign again when it goes. The epoch only grows, and
 * every controller write carries a version check of /controller_epoch (Controller.fenceOp), so
 * a deposed controller that wakes up (SIGSTOP, long GC, lost network) cannot change anything.
 *
 * The ephemeral nodes belong to one store session of this instance. On ZooKeeper that is a
 * ZooKeeper session with `sessionTimeoutMs`: if this process stops talking to ZooKeeper for
 * that long, /controller vanishes and a standby takes over.
 *
 * The controller lease: fencing stops a deposed controller's *metadata* writes, but a group
 * coordinator also writes offsets through brokers, and a request handled just after a resume
 * must not act on stale authority. So `isActive()` also requires that ownership of /controller
 * was confirmed (a read showing our session as its owner) within LEASE_FRACTION of the session
 * timeout, measured from when that read was sent. ZooKeeper cannot have expired the session
 * before the server received the read, which is after it was sent, so the lease ends first.
 * A confirmation runs every quarter of the timeout (at most every 5 s).
 *
 * Each instance also registers itself under /metadata_instances/<controllerId> (ephemeral, on the
 * same session) with its endpoint, so that the active controller can tell brokers and clients
 * every metadata endpoint they may fail over to.
 *
 * Deposition is final for this instance (`onDeposed`): the process stops serving and exits so a
 * supervisor restarts it as a fresh standby, rather than reusing in-memory state of a term that
 * has ended.
 */
import type { Logger } from 'pino'
import { SluiceError, systemClock, type Clock, type Timer } from '@sluice/protocol'
import { mkdirp, type MetadataStore, type SessionId, type StoreOp } from '../store/metadata-store.js'
import {
  PATHS,
  decodeControllerNode,
  decodeInstance,
  decodeInt,
  encodeController,
  encodeInstance,
  encodeInt,
  instancePath,
} from './layout.js'

/** What the winner of an election needs to act as controller. */
export interface ControllerTerm {
  readonly epoch: number
  /** The version of /controller_epoch after the win: every write checks it. */
  readonly epochVersion: number
}

export interface ControllerElectionOptions {
  readonly store: MetadataStore
  readonly controllerId: number
  /** host:port clients and brokers use to reach this instance. */
  readonly endpoint: string
  /** The store session owning /controller (on ZooKeeper: the ZooKeeper session timeout). */
  readonly sessionTimeoutMs: number
  readonly logger: Logger
  /** Runs once, when this instance wins; a rejection deposes it. */
  readonly onElected: (term: ControllerTerm) => Promise<void>
  /** Runs once, when this instance stops being (or being able to become) the controller. */
  readonly onDeposed: (reason: SluiceError) => void
  /** The lease reads `monotonicMs()`; the keep-alive and re-registration waits are its timers (default systemClock). */
  readonly clock?: Clock
}

export type ElectionState = 'standby' | 'active' | 'deposed' | 'stopped'

const LEASE_FRACTION = 0.75
/** ZooKeeper clamps session timeouts to at most 20 x tickTime (40 s with the default tick). */
const ZOOKEEPER_MAX_SESSION_MS = 40_000

export class ControllerElection {
  private stateValue: ElectionState = 'standby'
  private session: SessionId | undefined
  private confirmedAtMs = -Infinity
  private active: { id: number; endpoint: string; epoch?: number } | undefined
  private instanceEndpoints = new Map<number, string>()
  private readonly timers: Timer[] = []
  private readonly cancels: Array<() => void> = []
  private readonly clock: Clock
  private readonly leaseMs: number
  private campaigning: Promise<void> | undefined

  constructor(private readonly options: ControllerElectionOptions) {
    this.clock = options.clock ?? systemClock
    this.leaseMs = Math.min(options.sessionTimeoutMs, ZOOKEEPER_MAX_SESSION_MS) * LEASE_FRACTION
  }

  get state(): ElectionState {
    return this.stateValue
  }

  /** True while this instance is the controller and its ownership of /controller is recent. */
  isActive(): boolean {
    return this.stateValue === 'active' && this.clock.monotonicMs() - this.confirmedAtMs < this.leaseMs
  }

  /** The active controller as last seen in /controller (this instance when active). */
  activeController(): { id: number; endpoint: string; epoch?: number } | undefined {
    return this.active
  }

  /** Every registered instance's endpoint, the active controller's first. */
  endpoints(): string[] {
    const all = [...this.instanceEndpoints].sort(([a], [b]) => a - b).map(([, e]) => e)
    if (!all.includes(this.options.endpoint)) all.push(this.options.endpoint)
    const first = this.active?.endpoint
    return first === undefined ? all : [first, ...all.filter((e) => e !== first)]
  }

  /**
   * Opens the session, registers this instance and campaigns once; resolves when this instance
   * is either the active controller (onElected has run) or a standby watching /controller.
   */
  async start(): Promise<void> {
    const { store, sessionTimeoutMs, logger: log } = this.options
    for (const p of [PATHS.metadataInstances, '/cluster']) await mkdirp(store, p)
    this.session = await store.createSession(sessionTimeoutMs, () => {
      this.depose(new SluiceError('NOT_CONTROLLER', "the metadata instance's store session expired"))
    })
    this.timers.push(
      this.clock
        .setInterval(
          () => {
            this.keepAlive()
          },
          Math.max(50, Math.min(5000, Math.floor(sessionTimeoutMs / 4))),
        )
        .unref(),
    )
    await this.register()
    await this.watchInstances()
    await this.campaign()
    log.info(
      { controllerId: this.options.controllerId, state: this.stateValue, active: this.active },
      'controller election settled',
    )
  }

  async stop(): Promise<void> {
    if (this.stateValue === 'stopped') return
    this.stateValue = 'stopped'
    for (const t of this.timers) t.cancel()
    for (const c of this.cancels.splice(0)) c()
    // Closing the session deletes /controller (when held) and our instance node at once, so a
    // standby takes over without waiting for a timeout.
    if (this.session !== undefined) await this.options.store.closeSession(this.session).catch(() => {})
  }

  private async register(): Promise<void> {
    const { store, controllerId, endpoint, sessionTimeoutMs, logger: log } = this.options
    const path = instancePath(controllerId)
    // A previous process with this id may have died without closing its session: its node lives
    // until ZooKeeper expires that session. Two live instances with one id would be a config error.
    const deadline = this.clock.monotonicMs() + 2 * sessionTimeoutMs
    for (;;) {
      try {
        await store.create(path, encodeInstance(controllerId, endpoint), {
          mode: 'ephemeral',
          sessionId: this.session!,
        })
        return
      } catch (e) {
        if (!(e instanceof SluiceError && e.code === 'META_NODE_EXISTS')) throw e
        if (this.clock.monotonicMs() > deadline) {
          throw new SluiceError(
            'INVALID_ARGUMENT',
            `another metadata-service instance is registered with controller id ${controllerId} (${path}); give each instance its own --controller-id`,
          )
        }
        log.warn(
          { controllerId },
          'an instance with this controller id is still registered (a previous process?); waiting for it to go',
        )
        await new Promise<void>((resolve) => {
          store
            .watchData(path, () => resolve())
            .then(
              (cancel) => {
                this.clock
                  .setTimeout(() => {
                    cancel()
                    resolve()
                  }, 1000)
                  .unref()
              },
              () => resolve(),
            )
        })
      }
    }
  }

  private async watchInstances(): Promise<void> {
    if (this.stateValue === 'stopped' || this.stateValue === 'deposed') return
    const store = this.options.store
    const cancel = await store.watchChildren(PATHS.metadataInstances, () => {
      this.watchInstances().catch((e: unknown) => {
        this.options.logger.warn({ err: e }, 'reading metadata instances failed')
      })
    })
    this.cancels.push(cancel)
    const next = new Map<number, string>()
    for (const name of await store.children(PATHS.metadataInstances)) {
      try {
        const inst = decodeInstance(
          instancePath(Number(name)),
          (await store.get(`${PATHS.metadataInstances}/${name}`)).data,
        )
        next.set(inst.id, inst.endpoint)
      } catch (e) {
        if (!(e instanceof SluiceError && e.code === 'META_NO_NODE')) throw e
      }
    }
    this.instanceEndpoints = next
  }

  /** One campaign: win, or learn the current controller and watch it; retries lost races. */
  private campaign(): Promise<void> {
    this.campaigning ??= this.campaignOnce().finally(() => {
      this.campaigning = undefined
    })
    return this.campaigning
  }

  private async campaignOnce(): Promise<void> {
    const { store, controllerId, endpoint, logger: log } = this.options
    while (this.stateValue === 'standby') {
      const epochNode = await store.exists(PATHS.controllerEpoch)
      const epoch =
        epochNode === undefined
          ? 1
          : decodeInt(PATHS.controllerEpoch, (await store.get(PATHS.controllerEpoch)).data) + 1
      const epochOp: StoreOp =
        epochNode === undefined
          ? { type: 'create', path: PATHS.controllerEpoch, data: encodeInt(epoch) }
          : { type: 'set', path: PATHS.controllerEpoch, data: encodeInt(epoch), version: epochNode.version }
      try {
        const results = await store.multi([
          {
            type: 'create',
            path: PATHS.controller,
            data: encodeController(controllerId, epoch, endpoint),
            mode: 'ephemeral',
            sessionId: this.session!,
          },
          epochOp,
        ])
        const r = results[1]!
        const term: ControllerTerm = { epoch, epochVersion: r.type === 'set' ? r.version : 0 }
        this.stateValue = 'active'
        this.confirmedAtMs = this.clock.monotonicMs()
        this.active = { id: controllerId, endpoint, epoch }
        log.info({ controllerId, controllerEpoch: epoch }, 'won the controller election')
        try {
          await this.options.onElected(term)
        } catch (e) {
          this.depose(
            e instanceof SluiceError
              ? e
              : new SluiceError(
                  'NOT_CONTROLLER',
                  `starting the controller failed: ${(e as Error).message}`,
                  {},
                  { cause: e },
                ),
          )
          throw e
        }
        return
      } catch (e) {
        if (!(e instanceof SluiceError)) throw e
        const opIndex = (e.details as { opIndex?: number } | undefined)?.opIndex
        if (e.code === 'META_NODE_EXISTS' && opIndex === 0) {
          if (await this.followCurrent()) return
          continue // it went away between the multi and the watch: campaign again
        }
        if ((e.code === 'META_BAD_VERSION' || e.code === 'META_NODE_EXISTS') && opIndex === 1) continue // lost a race on the epoch
        throw e
      }
    }
  }

  /** Standby: remembers who controls and watches /controller; false if it is gone already. */
  private async followCurrent(): Promise<boolean> {
    const { store, logger: log } = this.options
    const cancel = await store.watchData(PATHS.controller, () => {
      if (this.stateValue !== 'standby') return
      this.campaign().catch((e: unknown) => {
        log.error({ err: e }, 'controller campaign failed')
        this.depose(
          new SluiceError(
            'METADATA_UNAVAILABLE',
            `controller campaign failed: ${(e as Error).message}`,
            {},
            { cause: e },
          ),
        )
      })
    })
    this.cancels.push(cancel)
    try {
      const node = await store.get(PATHS.controller)
      const c = decodeControllerNode(PATHS.controller, node.data)
      if (this.active?.id !== c.id)
        log.info(
          { activeController: c.id, endpoint: c.endpoint, controllerEpoch: c.epoch },
          'standing by; another instance is the controller',
        )
      this.active = {
        id: c.id,
        endpoint: c.endpoint ?? this.instanceEndpoints.get(c.id) ?? '',
        ...(c.epoch !== undefined ? { epoch: c.epoch } : {}),
      }
      return true
    } catch (e) {
      if (e instanceof SluiceError && e.code === 'META_NO_NODE') {
        cancel()
        this.active = undefined
        return false
      }
      throw e
    }
  }

  /** Renews the session and, when active, confirms that /controller is still ours. */
  private keepAlive(): void {
    const { store, logger: log } = this.options
    if (this.session === undefined || this.stateValue === 'stopped' || this.stateValue === 'deposed') return
    store.touchSession(this.session).catch((e: unknown) => {
      log.warn({ err: e }, 'renewing the metadata instance session failed')
    })
    if (this.stateValue !== 'active') return
    const sentAt = this.clock.monotonicMs()
    store.exists(PATHS.controller).then(
      (stat) => {
        if (this.stateValue !== 'active') return
        if (stat?.ephemeralOwner === this.session) {
          this.confirmedAtMs = Math.max(this.confirmedAtMs, sentAt)
          return
        }
        this.depose(
          new SluiceError(
            'NOT_CONTROLLER',
            stat === undefined ? '/controller is gone' : '/controller now belongs to another instance',
          ),
        )
      },
      (e: unknown) => {
        // ZooKeeper unreachable: nothing is known; the lease runs out on its own if this lasts.
        log.warn({ err: e }, 'confirming controllership failed')
      },
    )
  }

  /** This instance no longer is, and must not act as, the controller. Idempotent. */
  depose(reason: SluiceError): void {
    if (this.stateValue === 'stopped' || this.stateValue === 'deposed') return
    const was = this.stateValue
    this.stateValue = 'deposed'
    for (const t of this.timers) t.cancel()
    for (const c of this.cancels.splice(0)) c()
    this.options.logger.error(
      { err: reason, was },
      'this metadata instance is fenced: it no longer acts as (or campaigns for) controller',
    )
    this.options.onDeposed(reason)
  }
}
