/**
 * The metadata service process in one call: open the embedded store, start the controller, and
 * serve the `Metadata` gRPC service (metadata.proto). Every handler is wrapped so that a thrown
 * error becomes a typed gRPC status (toGrpcError) and never reaches the event loop; unknown
 * methods get UNIMPLEMENTED from grpc-js and undecodable messages INTERNAL, without harm.
 */
import * as grpc from '@grpc/grpc-js'
import type { Logger } from 'pino'
import { pino } from 'pino'
import { GRPC_SERVER_OPTIONS, SluiceError, loadSluiceProto, toGrpcError, type wire } from '@sluice/protocol'
import { EmbeddedStore } from '../store/embedded-store.js'
import { Controller } from '../controller/controller.js'
import { alterConfigs, describeTopics } from '../controller/config-commands.js'
import { alterPartition, describeCluster, electLeaders, initProducerId } from '../controller/partition-commands.js'
import { createPartitions, createTopics, deleteTopics } from '../controller/topic-commands.js'
import { mathRandomInt, type RandomInt } from '../controller/placement.js'
import { serveBrokerSession } from './broker-session.js'
import { GroupCoordinator } from '../group/coordinator.js'
import { controllerClusterAccess } from '../group/cluster-access.js'
import type { GroupCoordinatorOptions } from '../group/group-config.js'

export interface MetadataServerOptions {
  host: string; port: number /* 0 = ephemeral */; dataDir: string
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
  const store = await EmbeddedStore.open({
    dataDir: opts.dataDir, logger: log.child({ component: 'store' }),
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
  server.addService(loadSluiceProto().sluice.v1.Metadata.service, handlers(controller, log.child({ component: 'rpc' })))
  server.addService(loadSluiceProto().sluice.v1.GroupCoordinator.service, groups.handlers())
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
        await groups.stop()
        await controller.stop()
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

function checkOptions (o: InternalMetadataServerOptions): Required<Omit<InternalMetadataServerOptions, 'logger' | 'controllerId' | 'random' | 'snapshotEveryEntries' | 'groupCoordinator'>> {
  const problems: string[] = []
  const int = (name: string, v: number | undefined, dflt: number, min: number, max: number): number => {
    const x = v ?? dflt
    if (!Number.isInteger(x) || x < min || x > max) problems.push(`${name} ${String(v)} must be an integer in ${min}..${max}`)
    return x
  }
  if (typeof o.host !== 'string' || o.host === '') problems.push('host must be a non-empty string')
  if (typeof o.dataDir !== 'string' || o.dataDir === '') problems.push('dataDir must be a non-empty path')
  const checked = {
    host: o.host,
    dataDir: o.dataDir,
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
