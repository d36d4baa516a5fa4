/**
 * The metadata service process in one call: open the store (embedded, or ZooKeeper under a
 * chroot), serve the `Metadata` and `GroupCoordinator` gRPC services (metadata.proto, group.proto),
 * and take part in the controller election (controller/controller-election.ts). Several instances
 * may share one ZooKeeper tree: one is the active controller (it runs the Controller and the
 * group coordinator), the others are standbys that answer NOT_CONTROLLER / NOT_COORDINATOR
 * (retriable; the error names the active instance's endpoint) until they win an election.
 * Every handler is wrapped so that a thrown error becomes a typed gRPC status (toGrpcError) and
 * never reaches the event loop; unknown methods get UNIMPLEMENTED from grpc-js and undecodable
 * messages INTERNAL, without harm.
 *
 * Fencing is final for an instance: if the store's own ZooKeeper session expires (its watches are
 * gone, so its view can no longer be trusted), or the election reports this instance deposed (its
 * epoch was superseded while it was paused or cut off), the service stops the controller and the
 * group coordinator, answers every RPC with METADATA_UNAVAILABLE from then on, and calls
 * `onStoreLost` / `onDeposed`. The process entry point (main.ts) exits non-zero there, so a
 * supervisor restarts it as a fresh standby that reloads the tree: never a half-rebuilt state.
 */
import * as grpc from '@grpc/grpc-js'
import type { Logger } from 'pino'
import { pino } from 'pino'
import {
  GRPC_SERVER_OPTIONS,
  SluiceError,
  errorId,
  loadSluiceProto,
  toGrpcError,
  type Clock,
  type wire,
} from '@sluice/protocol'
import { instrumentService } from '@sluice/server-kit'
import { EmbeddedStore } from '../store/embedded-store.js'
import { ZooKeeperStore } from '../store/zookeeper-store.js'
import type { MetadataStore } from '../store/metadata-store.js'
import { Controller } from '../controller/controller.js'
import { ControllerElection } from '../controller/controller-election.js'
import { alterConfigs, describeTopics } from '../controller/config-commands.js'
import { alterPartition, describeCluster, electLeaders, initProducerId } from '../controller/partition-commands.js'
import { createPartitions, createTopics, deleteTopics } from '../controller/topic-commands.js'
import { mathRandomInt, type RandomInt } from '../controller/placement.js'
import { serveBrokerSession } from './broker-session.js'
import { GroupCoordinator } from '../group/coordinator.js'
import { controllerClusterAccess } from '../group/cluster-access.js'
import type { GroupCoordinatorOptions } from '../group/group-config.js'
import { MetadataAdmin } from '../metrics/metadata-admin.js'

export type MetadataStoreOption =
  | { kind: 'embedded' }
  | { kind: 'zookeeper'; connectString: string; chroot?: string; sessionTimeoutMs?: number }

export interface MetadataServerOptions {
  /** dataDir is required for the embedded store (the default) and unused for ZooKeeper. */
  host: string
  port: number /* 0 = ephemeral */
  dataDir?: string
  /** Where the metadata tree lives; default embedded (in dataDir). */
  store?: MetadataStoreOption
  /** Called once if the ZooKeeper store's own session expires; the service then answers METADATA_UNAVAILABLE. */
  onStoreLost?: (err: Error) => void
  /** Called once if this instance was the controller (or a standby) and has been fenced; it then answers METADATA_UNAVAILABLE. */
  onDeposed?: (err: Error) => void
  /** The host brokers and clients use to reach this instance (default: host; 127.0.0.1 when host is a wildcard). */
  advertisedHost?: string
  /** This instance's id in the controller election; distinct per instance (default 3000). */
  controllerId?: number
  defaultNumPartitions?: number
  defaultReplicationFactor?: number
  brokerSessionTimeoutMs?: number
  logger?: Logger
  /** Group coordinator settings (session timeout bounds, initial delay, offsets topic, retention). */
  groupCoordinator?: GroupCoordinatorOptions
  /** Port of the admin HTTP server (/metrics, /healthz, /readyz); absent = none, 0 = ephemeral. */
  adminPort?: number
  /** Address of the admin server (default: host). */
  adminHost?: string
  /** Called once the admin server listens, before the store opens. */
  onAdminListening?: (port: number) => void
  /**
   * The clock of the time-driven parts (store session leases, the controller election's lease,
   * the group coordinator's deadlines); default systemClock. A test may run a whole service on a
   * ManualClock (also the controller's startup grace and preferred-leader timers).
   */
  clock?: Clock
}

/** What readiness checks and operators ask of an instance. */
export interface MetadataServerStatus {
  /** active = the controller; standby = waiting to become it; fenced = must be restarted. */
  readonly role: 'active' | 'standby' | 'fenced'
  readonly controllerId: number
  /** The active controller as this instance knows it (itself when active). */
  readonly activeController?: { readonly id: number; readonly endpoint: string }
  readonly controllerEpoch?: number
}

export interface MetadataServerHandle {
  readonly port: number
  readonly endpoint: string // host:port
  /** The admin server's port, when `adminPort` was given. */
  readonly adminPort?: number
  status(): MetadataServerStatus
  stop(): Promise<void>
}

/** Knobs for tests and the process entry point, beyond the public options. */
export interface InternalMetadataServerOptions extends MetadataServerOptions {
  maxPartitionsPerTopic?: number
  random?: RandomInt
  snapshotEveryEntries?: number
  /** The election session's timeout for the embedded store (ZooKeeper uses store.sessionTimeoutMs). */
  electionSessionTimeoutMs?: number
}

export const DEFAULT_CONTROLLER_ID = 3000
const DEFAULT_ZK_SESSION_TIMEOUT_MS = 6000
const EMBEDDED_ELECTION_SESSION_MS = 365 * 24 * 3600_000

/** The services of an active controller; undefined while standing by. */
interface ActiveServices {
  readonly controller: Controller
  readonly groups: GroupCoordinator
  readonly metadata: grpc.UntypedServiceImplementation
  readonly coordinator: grpc.UntypedServiceImplementation
}

export async function startMetadataServer(options: MetadataServerOptions): Promise<MetadataServerHandle> {
  return await startMetadataServerInternal(options)
}

export async function startMetadataServerInternal(
  options: InternalMetadataServerOptions,
): Promise<MetadataServerHandle> {
  const opts = checkOptions(options)
  const log = options.logger ?? pino({ level: 'silent' })
  // The admin server comes first, so /healthz answers while the store is being reached (metrics/metadata-admin.ts).
  const admin =
    options.adminPort === undefined
      ? undefined
      : await MetadataAdmin.start({
          host: options.adminHost ?? opts.host,
          port: options.adminPort,
          logger: log.child({ component: 'admin' }),
        })
  if (admin !== undefined) options.onAdminListening?.(admin.port)
  try {
    return await startMetadataServing(options, opts, log, admin)
  } catch (e) {
    await admin?.close()
    throw e
  }
}

async function startMetadataServing(
  options: InternalMetadataServerOptions,
  opts: ReturnType<typeof checkOptions>,
  log: Logger,
  admin: MetadataAdmin | undefined,
): Promise<MetadataServerHandle> {
  const controllerId = options.controllerId ?? DEFAULT_CONTROLLER_ID
  let fencedBy: SluiceError | undefined
  let onLost: () => void = () => {}
  const storeLog = log.child({ component: 'store' })
  const zk = options.store?.kind === 'zookeeper' ? options.store : undefined
  const store: MetadataStore =
    zk !== undefined
      ? await ZooKeeperStore.open({
          connectString: zk.connectString,
          chroot: zk.chroot ?? '/sluice',
          sessionTimeoutMs: zk.sessionTimeoutMs ?? DEFAULT_ZK_SESSION_TIMEOUT_MS,
          onSessionExpired: () => {
            onLost()
          },
          logger: storeLog,
          clock: options.clock,
        })
      : await EmbeddedStore.open({
          dataDir: opts.dataDir,
          logger: storeLog,
          clock: options.clock,
          ...(options.snapshotEveryEntries !== undefined ? { snapshotEveryEntries: options.snapshotEveryEntries } : {}),
        })
  let endpoint = ''
  let active: ActiveServices | undefined
  let election: ControllerElection | undefined
  let stoppedControl: Promise<void> | undefined
  const stopControl = async (): Promise<void> => {
    stoppedControl ??= (async () => {
      const a = active
      active = undefined
      if (a === undefined) return
      await a.groups.stop().catch((e: unknown) => {
        log.warn({ err: e }, 'group coordinator stop failed')
      })
      await a.controller.stop().catch((e: unknown) => {
        log.warn({ err: e }, 'controller stop failed')
      })
    })()
    await stoppedControl
  }
  /** Fenced for good: stop acting, answer METADATA_UNAVAILABLE, tell the owner once. */
  const fence = (err: SluiceError, notify: ((err: Error) => void) | undefined): void => {
    if (fencedBy !== undefined) return
    fencedBy = err
    log.error({ err }, 'metadata instance fenced: stopping the controller, answering METADATA_UNAVAILABLE')
    election?.depose(err)
    void stopControl().then(() => {
      notify?.(err)
    })
  }
  onLost = () => {
    fence(
      new SluiceError(
        'METADATA_UNAVAILABLE',
        "the metadata store's ZooKeeper session expired; this service no longer serves metadata and must be restarted",
      ),
      options.onStoreLost,
    )
  }

  const rpcLog = log.child({ component: 'rpc' })
  const gate = (service: 'metadata' | 'coordinator'): GateState => {
    if (fencedBy !== undefined)
      return {
        error: new SluiceError(
          'METADATA_UNAVAILABLE',
          `this metadata instance is fenced (${fencedBy.message}); it must be restarted`,
        ),
      }
    if (active !== undefined && election?.isActive() === true)
      return { impl: service === 'metadata' ? active.metadata : active.coordinator }
    if (active !== undefined && election?.state === 'active') {
      // Elected, but ownership of /controller could not be confirmed lately: ZooKeeper is out of
      // reach (no quorum, or cut off). Nothing can be written until it answers again.
      return {
        error: new SluiceError(
          'METADATA_UNAVAILABLE',
          `metadata instance ${controllerId} cannot reach ZooKeeper to confirm it is still the controller; metadata changes wait until it can`,
        ),
      }
    }
    const current = election?.activeController()
    const where =
      current !== undefined && current.id !== controllerId
        ? `; the active controller is ${current.id} at ${current.endpoint}`
        : '; no active controller is known yet'
    const details =
      current !== undefined && current.id !== controllerId
        ? { controllerId: current.id, controllerEndpoint: current.endpoint }
        : {}
    return service === 'metadata'
      ? {
          error: new SluiceError(
            'NOT_CONTROLLER',
            `metadata instance ${controllerId} is not the active controller${where}`,
            details,
          ),
        }
      : {
          error: new SluiceError(
            'NOT_COORDINATOR',
            `metadata instance ${controllerId} is not the active controller, so not the group coordinator${where}`,
            details,
          ),
        }
  }
  const proto = loadSluiceProto().sluice.v1
  const server = new grpc.Server(GRPC_SERVER_OPTIONS)
  const rpc = admin?.metrics.rpc
  server.addService(
    proto.Metadata.service,
    instrumentService(
      rpc,
      'sluice.v1.Metadata',
      proto.Metadata.service,
      gated(proto.Metadata.service, () => gate('metadata')),
    ),
  )
  server.addService(
    proto.GroupCoordinator.service,
    instrumentService(
      rpc,
      'sluice.v1.GroupCoordinator',
      proto.GroupCoordinator.service,
      gated(proto.GroupCoordinator.service, () => gate('coordinator')),
    ),
  )
  let port: number
  try {
    port = await new Promise<number>((resolve, reject) => {
      server.bindAsync(`${bindHost(opts.host)}:${opts.port}`, grpc.ServerCredentials.createInsecure(), (err, p) => {
        if (err !== null) reject(err)
        else resolve(p)
      })
    })
  } catch (e) {
    await store.close()
    throw new SluiceError(
      'INVALID_ARGUMENT',
      `cannot listen on ${opts.host}:${opts.port}: ${(e as Error).message}`,
      {},
      { cause: e },
    )
  }
  endpoint = `${options.advertisedHost ?? (opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host)}:${port}`

  const becomeController = async (term: { epoch: number; epochVersion: number }): Promise<void> => {
    const controller = await Controller.start({
      store,
      logger: log.child({ component: 'controller' }),
      metadataEndpoints: () => election?.endpoints() ?? [endpoint],
      defaultNumPartitions: opts.defaultNumPartitions,
      defaultReplicationFactor: opts.defaultReplicationFactor,
      maxPartitionsPerTopic: opts.maxPartitionsPerTopic,
      brokerSessionTimeoutMs: opts.brokerSessionTimeoutMs,
      controllerId,
      random: options.random ?? mathRandomInt,
      term,
      onFenced: (err) => {
        fence(err, options.onDeposed)
      },
      onLeaderChange:
        admin === undefined
          ? undefined
          : (_topic, _partition, from, to) => {
              admin.metrics.leaderChanged(from, to)
            },
      clock: options.clock,
    })
    let groups: GroupCoordinator
    try {
      const access = controllerClusterAccess(controller)
      groups = new GroupCoordinator({
        cluster: access,
        partitionsOf: access.partitionsOf,
        logger: log.child({ component: 'group-coordinator' }),
        clock: options.clock,
        ...(options.groupCoordinator !== undefined ? { options: options.groupCoordinator } : {}),
      })
    } catch (e) {
      await controller.stop()
      throw e
    }
    active = { controller, groups, metadata: handlers(controller, rpcLog), coordinator: groups.handlers() }
    admin?.watchGroups(groups)
    if (fencedBy !== undefined) await stopControl()
  }
  election = new ControllerElection({
    store,
    controllerId,
    endpoint,
    // The embedded store has one instance by construction: nobody can take over, so its election
    // session must not lapse when the process is paused (a laptop asleep) and come back fenced.
    sessionTimeoutMs:
      zk !== undefined
        ? (zk.sessionTimeoutMs ?? DEFAULT_ZK_SESSION_TIMEOUT_MS)
        : (options.electionSessionTimeoutMs ?? EMBEDDED_ELECTION_SESSION_MS),
    logger: log.child({ component: 'election' }),
    onElected: becomeController,
    onDeposed: (err) => {
      fence(err, options.onDeposed)
    },
    clock: options.clock,
  })
  admin?.bind({
    store,
    controller: () => active?.controller,
    election: () => election,
    groups: () => active?.groups,
    isLost: () => fencedBy !== undefined,
    liveBrokerEndpoints: () =>
      active === undefined ? [] : controllerClusterAccess(active.controller).liveBrokerEndpoints(),
  })
  try {
    await election.start()
  } catch (e) {
    await election.stop().catch(() => {})
    await stopControl()
    await shutdown(server)
    await store.close()
    throw e
  }
  log.info({ endpoint, controllerId, role: election.state }, 'metadata service listening')
  let stopped: Promise<void> | undefined
  return {
    port,
    endpoint,
    ...(admin !== undefined ? { adminPort: admin.port } : {}),
    status: () => {
      const e = election!
      const role =
        fencedBy !== undefined ? 'fenced' : active !== undefined && e.state === 'active' ? 'active' : 'standby'
      const current = e.activeController()
      return {
        role,
        controllerId,
        ...(current !== undefined ? { activeController: current } : {}),
        ...(active !== undefined ? { controllerEpoch: active.controller.controllerEpoch } : {}),
      }
    },
    stop: async () => {
      stopped ??= (async () => {
        admin?.markStopping()
        await stopControl()
        await election!.stop()
        await shutdown(server)
        await store.close()
        await admin?.close()
        log.info({ endpoint }, 'metadata service stopped')
      })()
      await stopped
    },
  }
}

type GateState =
  | { impl: grpc.UntypedServiceImplementation; error?: undefined }
  | { impl?: undefined; error: SluiceError }

function bindHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

async function shutdown(server: grpc.Server): Promise<void> {
  await new Promise<void>((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown()
      resolve()
    }, 1000)
    server.tryShutdown(() => {
      clearTimeout(force)
      resolve()
    })
  })
}

/**
 * Dispatches each method to the active controller's implementation, or answers with the gate's
 * error: unary calls get it as their status; a BrokerSession stream gets one SessionError message
 * (so the broker moves on to the next metadata endpoint at once) and ends.
 */
function gated(service: grpc.ServiceDefinition, gate: () => GateState): grpc.UntypedServiceImplementation {
  const out: grpc.UntypedServiceImplementation = {}
  for (const name of Object.keys(service)) {
    out[name] = ((
      call: grpc.ServerUnaryCall<unknown, unknown> & grpc.ServerDuplexStream<unknown, unknown>,
      callback?: grpc.sendUnaryData<unknown>,
    ) => {
      const g = gate()
      const fn = g.impl?.[name]
      if (fn !== undefined) {
        ;(fn as (...a: unknown[]) => void)(call, callback)
        return
      }
      const err = g.error ?? new SluiceError('NOT_CONTROLLER', `method ${name} is not served here`)
      if (callback !== undefined) {
        callback(toGrpcError(err) as grpc.ServiceError)
        return
      }
      try {
        call.write({ error: { error_code: errorId(err.code), error_message: err.message } })
        call.end()
      } catch {
        call.destroy(new Error(err.message))
      }
    }) as grpc.UntypedHandleCall
  }
  return out
}

function checkOptions(
  o: InternalMetadataServerOptions,
): Required<
  Omit<
    InternalMetadataServerOptions,
    | 'logger'
    | 'controllerId'
    | 'random'
    | 'snapshotEveryEntries'
    | 'groupCoordinator'
    | 'store'
    | 'onStoreLost'
    | 'onDeposed'
    | 'dataDir'
    | 'electionSessionTimeoutMs'
    | 'advertisedHost'
    | 'adminPort'
    | 'adminHost'
    | 'onAdminListening'
    | 'clock'
  >
> & { dataDir: string } {
  const problems: string[] = []
  const int = (name: string, v: number | undefined, dflt: number, min: number, max: number): number => {
    const x = v ?? dflt
    if (!Number.isInteger(x) || x < min || x > max)
      problems.push(`${name} ${String(v)} must be an integer in ${min}..${max}`)
    return x
  }
  if (typeof o.host !== 'string' || o.host === '') problems.push('host must be a non-empty string')
  const embedded = o.store === undefined || o.store.kind === 'embedded'
  if (embedded && (typeof o.dataDir !== 'string' || o.dataDir === '')) problems.push('dataDir must be a non-empty path')
  if (o.store?.kind === 'zookeeper') {
    if (typeof o.store.connectString !== 'string' || o.store.connectString === '')
      problems.push('store.connectString must be host:port[,host:port...]')
    if (o.store.sessionTimeoutMs !== undefined)
      int('store.sessionTimeoutMs', o.store.sessionTimeoutMs, 30_000, 4000, 600_000)
  } else if (o.store !== undefined && o.store.kind !== 'embedded')
    problems.push(`store.kind ${String((o.store as { kind: unknown }).kind)} must be embedded or zookeeper`)
  if (o.controllerId !== undefined) int('controllerId', o.controllerId, DEFAULT_CONTROLLER_ID, 0, 2_147_483_647)
  const checked = {
    host: o.host,
    dataDir: o.dataDir ?? '',
    port: int('port', o.port, 0, 0, 65535),
    maxPartitionsPerTopic: int('maxPartitionsPerTopic', o.maxPartitionsPerTopic, 10_000, 1, 1_000_000),
    defaultNumPartitions: int('defaultNumPartitions', o.defaultNumPartitions, 1, 1, 1_000_000),
    defaultReplicationFactor: int('defaultReplicationFactor', o.defaultReplicationFactor, 1, 1, 32767),
    brokerSessionTimeoutMs: int('brokerSessionTimeoutMs', o.brokerSessionTimeoutMs, 9000, 50, 600_000),
  }
  if (problems.length > 0)
    throw new SluiceError('INVALID_ARGUMENT', `invalid metadata server options: ${problems.join('; ')}`, { problems })
  return checked
}

type Unary<Req, Res> = grpc.handleUnaryCall<Req, Res>

function unary<Req, Res>(log: Logger, method: string, fn: (req: Req) => Promise<Res> | Res): Unary<Req, Res> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => fn(call.request))
      .then(
        (res) => {
          callback(null, res)
        },
        (e: unknown) => {
          if (e instanceof SluiceError) log.debug({ method, err: e }, 'request failed')
          else log.error({ method, err: e }, 'request handler threw an unexpected error')
          callback(toGrpcError(e) as grpc.ServiceError)
        },
      )
  }
}

function handlers(ctl: Controller, log: Logger): grpc.UntypedServiceImplementation {
  return {
    BrokerSession: (call: grpc.ServerDuplexStream<wire.BrokerSessionRequest__Output, wire.BrokerSessionResponse>) => {
      try {
        serveBrokerSession(ctl, call, log.child({ rpc: 'BrokerSession' }))
      } catch (e) {
        log.error({ err: e }, 'broker session setup failed')
        call.destroy(new Error('broker session setup failed'))
      }
    },
    CreateTopics: unary(log, 'CreateTopics', (r: wire.CreateTopicsRequest__Output) => createTopics(ctl, r)),
    DeleteTopics: unary(log, 'DeleteTopics', (r: wire.DeleteTopicsRequest__Output) => deleteTopics(ctl, r)),
    CreatePartitions: unary(log, 'CreatePartitions', (r: wire.CreatePartitionsRequest__Output) =>
      createPartitions(ctl, r),
    ),
    DescribeTopics: unary(log, 'DescribeTopics', (r: wire.DescribeTopicsRequest__Output) => describeTopics(ctl, r)),
    DescribeCluster: unary(log, 'DescribeCluster', (_r: wire.DescribeClusterRequest__Output) => describeCluster(ctl)),
    AlterConfigs: unary(log, 'AlterConfigs', (r: wire.AlterConfigsRequest__Output) => alterConfigs(ctl, r)),
    AlterPartition: unary(log, 'AlterPartition', (r: wire.AlterPartitionRequest__Output) => alterPartition(ctl, r)),
    ElectLeaders: unary(log, 'ElectLeaders', (r: wire.ElectLeadersRequest__Output) => electLeaders(ctl, r)),
    InitProducerId: unary(log, 'InitProducerId', (r: wire.InitProducerIdRequest__Output) => initProducerId(ctl, r)),
  }
}
