/**
 * The metadata service process in one call: open the store (embedded, or ZooKeeper under a
 * chroot), start the controller, and
 * serve the `Metadata` gRPC service (metadata.proto). Every handler is wrapped so that a thrown
 * error becomes a typed gRPC status (toGrpcError) and never reaches the event loop; unknown
 * methods get UNIMPLEMENTED from grpc-js and undecodable messages INTERNAL, without harm.
 *
 * ZooKeeper session expiry of the store's own session: the store's watches and the controller's
 * ephemeral /controller node are gone, so the controller's view can no longer be trusted. We do
 * not rebuild in place (a half-rebuilt controller is worse than none): the service logs an error,
 * stops the controller and group coordinator, answers every RPC (and new broker sessions) with
 * METADATA_UNAVAILABLE from then on, and calls `onStoreLost`. The process entry point (main.ts)
 * exits non-zero there, so a supervisor restarts it on a fresh session that reloads the tree.
 */
import * as grpc from '@grpc/grpc-js'
import type { Logger } from 'pino'
import { pino } from 'pino'
import { GRPC_SERVER_OPTIONS, SluiceError, loadSluiceProto, toGrpcError, type wire } from '@sluice/protocol'
import { EmbeddedStore } from '../store/embedded-store.js'
import { ZooKeeperStore } from '../store/zookeeper-store.js'
import type { MetadataStore } from '../store/metadata-store.js'
import { Controller } from '../controller/controller.js'
import { alterConfigs, describeTopics } from '../controller/config-commands.js'
import { alterPartition, describeCluster, electLeaders, initProducerId } from '../controller/partition-commands.js'
import { createPartitions, createTopics, deleteTopics } from '../controller/topic-commands.js'
import { mathRandomInt, type RandomInt } from '../controller/placement.js'
import { serveBrokerSession } from './broker-session.js'
import { GroupCoordinator } from '../group/coordinator.js'
import { controllerClusterAccess } from '../group/cluster-access.js'
import type { GroupCoordinatorOptions } from '../group/group-config.js'

export type MetadataStoreOption =
  | { kind: 'embedded' }
  | { kind: 'zookeeper', connectString: string, chroot?: string, sessionTimeoutMs?: number }

export interface MetadataServerOptions {
  /** dataDir is required for the embedded store (the default) and unused for ZooKeeper. */
  host: string; port: number /* 0 = ephemeral */; dataDir?: string
  /** Where the metadata tree lives; default embedded (in dataDir). */
  store?: MetadataStoreOption
  /** Called once if the ZooKeeper store's own session expires; the service then answers METADATA_UNAVAILABLE. */
  onStoreLost?: (err: Error) => void
  defaultNumPartitions?: number; defaultReplicationFactor?: number
  brokerSessionTimeoutMs?: number; logger?: Logger
  /** Group coordinator settings (session timeout bounds, initial delay, offsets topic, retention). */
  groupCoordinator?: GroupCoordinatorOptions
}

export interface MetadataServerHandle {
  readonly port: number; readonly endpoint: string   // host:port
  stop (): Promise<void>
}

/** Knobs for tests and the process entry point, beyond the public options. */
export interface InternalMetadataServerOptions extends MetadataServerOptions {
  maxPartitionsPerTopic?: number
  controllerId?: number
  random?: RandomInt
  snapshotEveryEntries?: number
}

export const DEFAULT_CONTROLLER_ID = 3000

export async function startMetadataServer (options: MetadataServerOptions): Promise<MetadataServerHandle> {
  return await startMetadataServerInternal(options)
}

export async function startMetadataServerInternal (options: InternalMetadataServerOptions): Promise<MetadataServerHandle> {
  const opts = checkOptions(options)
  const log = options.logger ?? pino({ level: 'silent' })
  let lost = false
  let onLost: () => void = () => {}
  const storeLog = log.child({ component: 'store' })
  const store: MetadataStore = options.store?.kind === 'zookeeper'
    ? await ZooKeeperStore.open({
      connectString: options.store.connectString,
      chroot: options.store.chroot ?? '/sluice',
      sessionTimeoutMs: options.store.sessionTimeoutMs ?? 30_000,
      onSessionExpired: () => { onLost() },
      logger: storeLog,
    })
    : await EmbeddedStore.open({
      dataDir: opts.dataDir, logger: storeLog,
      ...(options.snapshotEveryEntries !== undefined ? { snapshotEveryEntries: options.snapshotEveryEntries } : {}),
    })
  let endpoint = ''
  let controller: Controller
  try {
    controller = await Controller.start({
      store,
      logger: log.child({ component: 'controller' }),
      metadataEndpoints: () => [endpoint],
      defaultNumPartitions: opts.defaultNumPartitions,
      defaultReplicationFactor: opts.defaultReplicationFactor,
      maxPartitionsPerTopic: opts.maxPartitionsPerTopic,
      brokerSessionTimeoutMs: opts.brokerSessionTimeoutMs,
      controllerId: options.controllerId ?? DEFAULT_CONTROLLER_ID,
      random: options.random ?? mathRandomInt,
    })
  } catch (e) {
    await store.close()
    throw e
  }
  let groups: GroupCoordinator
  try {
    const access = controllerClusterAccess(controller)
    groups = new GroupCoordinator({
      cluster: access, partitionsOf: access.partitionsOf, logger: log.child({ component: 'group-coordinator' }),
      ...(options.groupCoordinator !== undefined ? { options: options.groupCoordinator } : {}),
    })
  } catch (e) {
    await controller.stop()
    await store.close()
    throw e
  }
  const server = new grpc.Server(GRPC_SERVER_OPTIONS)
  const isLost = (): boolean => lost
  server.addService(loadSluiceProto().sluice.v1.Metadata.service, unlessLost(isLost, handlers(controller, log.child({ component: 'rpc' }))))
  server.addService(loadSluiceProto().sluice.v1.GroupCoordinator.service, unlessLost(isLost, groups.handlers()))
  let stoppedControl: Promise<void> | undefined
  const stopControl = async (): Promise<void> => {
    stoppedControl ??= (async () => {
      await groups.stop().catch((e: unknown) => { log.warn({ err: e }, 'group coordinator stop failed') })
      await controller.stop().catch((e: unknown) => { log.warn({ err: e }, 'controller stop failed') })
    })()
    await stoppedControl
  }
  onLost = () => {
    if (lost) return
    lost = true
    const err = new SluiceError('METADATA_UNAVAILABLE', 'the metadata store\'s ZooKeeper session expired; this service no longer serves metadata and must be restarted')
    log.error({ err }, 'ZooKeeper session of the metadata store expired: stopping the controller, answering METADATA_UNAVAILABLE')
    void stopControl().then(() => { options.onStoreLost?.(err) })
  }
  let port: number
  try {
    port = await new Promise<number>((resolve, reject) => {
      server.bindAsync(`${bindHost(opts.host)}:${opts.port}`, grpc.ServerCredentials.createInsecure(), (err, p) => { if (err !== null) reject(err); else resolve(p) })
    })
  } catch (e) {
    await groups.stop()
    await controller.stop()
    await store.close()
    throw new SluiceError('INVALID_ARGUMENT', `cannot listen on ${opts.host}:${opts.port}: ${(e as Error).message}`, {}, { cause: e })
  }
  endpoint = `${opts.host}:${port}`
  log.info({ endpoint }, 'metadata service listening')
  let stopped: Promise<void> | undefined
  return {
    port,
    endpoint,
    stop: async () => {
      stopped ??= (async () => {
        await stopControl()
        await shutdown(server)
        await store.close()
        log.info({ endpoint }, 'metadata service stopped')
      })()
      await stopped
    },
  }
}

function bindHost (host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

async function shutdown (server: grpc.Server): Promise<void> {
  await new Promise<void>((resolve) => {
    const force = setTimeout(() => { server.forceShutdown(); resolve() }, 1000)
    server.tryShutdown(() => { clearTimeout(force); resolve() })
  })
}

/** Once the store is lost, every RPC gets METADATA_UNAVAILABLE instead of reaching a stopped controller. */
function unlessLost (isLost: () => boolean, impl: grpc.UntypedServiceImplementation): grpc.UntypedServiceImplementation {
  const gated: grpc.UntypedServiceImplementation = {}
  for (const [name, fn] of Object.entries(impl)) {
    gated[name] = ((call: grpc.ServerUnaryCall<unknown, unknown> & grpc.ServerDuplexStream<unknown, unknown>, callback?: grpc.sendUnaryData<unknown>) => {
      if (!isLost()) { (fn as (...a: unknown[]) => void)(call, callback); return }
      const err = toGrpcError(new SluiceError('METADATA_UNAVAILABLE', 'the metadata store is unavailable (ZooKeeper session expired); the service must be restarted')) as grpc.ServiceError
      if (callback !== undefined) callback(err)
      else call.destroy(err)
    }) as grpc.UntypedHandleCall
  }
  return gated
}

function checkOptions (o: InternalMetadataServerOptions): Required<Omit<InternalMetadataServerOptions, 'logger' | 'controllerId' | 'random' | 'snapshotEveryEntries' | 'groupCoordinator' | 'store' | 'onStoreLost' | 'dataDir'>> & { dataDir: string } {
  const problems: string[] = []
  const int = (name: string, v: number | undefined, dflt: number, min: number, max: number): number => {
    const x = v ?? dflt
    if (!Number.isInteger(x) || x < min || x > max) problems.push(`${name} ${String(v)} must be an integer in ${min}..${max}`)
    return x
  }
  if (typeof o.host !== 'string' || o.host === '') problems.push('host must be a non-empty string')
  const embedded = o.store === undefined || o.store.kind === 'embedded'
  if (embedded && (typeof o.dataDir !== 'string' || o.dataDir === '')) problems.push('dataDir must be a non-empty path')
  if (o.store?.kind === 'zookeeper') {
    if (typeof o.store.connectString !== 'string' || o.store.connectString === '') problems.push('store.connectString must be host:port[,host:port...]')
    if (o.store.sessionTimeoutMs !== undefined) int('store.sessionTimeoutMs', o.store.sessionTimeoutMs, 30_000, 4000, 600_000)
  } else if (o.store !== undefined && o.store.kind !== 'embedded') problems.push(`store.kind ${String((o.store as { kind: unknown }).kind)} must be embedded or zookeeper`)
  const checked = {
    host: o.host,
    dataDir: o.dataDir ?? '',
    port: int('port', o.port, 0, 0, 65535),
    maxPartitionsPerTopic: int('maxPartitionsPerTopic', o.maxPartitionsPerTopic, 10_000, 1, 1_000_000),
    defaultNumPartitions: int('defaultNumPartitions', o.defaultNumPartitions, 1, 1, 1_000_000),
    defaultReplicationFactor: int('defaultReplicationFactor', o.defaultReplicationFactor, 1, 1, 32767),
    brokerSessionTimeoutMs: int('brokerSessionTimeoutMs', o.brokerSessionTimeoutMs, 9000, 50, 600_000),
  }
  if (problems.length > 0) throw new SluiceError('INVALID_ARGUMENT', `invalid metadata server options: ${problems.join('; ')}`, { problems })
  return checked
}

type Unary<Req, Res> = grpc.handleUnaryCall<Req, Res>

function unary<Req, Res> (log: Logger, method: string, fn: (req: Req) => Promise<Res> | Res): Unary<Req, Res> {
  return (call, callback) => {
    Promise.resolve().then(() => fn(call.request)).then((res) => { callback(null, res) }, (e: unknown) => {
      if (e instanceof SluiceError) log.debug({ method, err: e }, 'request failed')
      else log.error({ method, err: e }, 'request handler threw an unexpected error')
      callback(toGrpcError(e) as grpc.ServiceError)
    })
  }
}

function handlers (ctl: Controller, log: Logger): grpc.UntypedServiceImplementation {
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
    CreatePartitions: unary(log, 'CreatePartitions', (r: wire.CreatePartitionsRequest__Output) => createPartitions(ctl, r)),
    DescribeTopics: unary(log, 'DescribeTopics', (r: wire.DescribeTopicsRequest__Output) => describeTopics(ctl, r)),
    DescribeCluster: unary(log, 'DescribeCluster', (_r: wire.DescribeClusterRequest__Output) => describeCluster(ctl)),
    AlterConfigs: unary(log, 'AlterConfigs', (r: wire.AlterConfigsRequest__Output) => alterConfigs(ctl, r)),
    AlterPartition: unary(log, 'AlterPartition', (r: wire.AlterPartitionRequest__Output) => alterPartition(ctl, r)),
    ElectLeaders: unary(log, 'ElectLeaders', (r: wire.ElectLeadersRequest__Output) => electLeaders(ctl, r)),
    InitProducerId: unary(log, 'InitProducerId', (r: wire.InitProducerIdRequest__Output) => initProducerId(ctl, r)),
  }
}
