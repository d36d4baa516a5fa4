/**
 * The group coordinator of the metadata service: membership (GroupManager, in memory) plus
 * committed offsets (OffsetManager over __consumer_offsets), and the GroupCoordinator gRPC
 * service (group.proto) on top. It owns two timers: the group sweep (all liveness deadlines of
 * all groups) and the offset-retention sweep.
 *
 * Group listing/describing/deleting: a group exists while it has membership state here or
 * committed offsets; one with offsets only (e.g. after a restart, before members rejoin) is
 * reported as Empty with protocol type "". DeleteGroups takes only Empty groups, removes the
 * membership state at once and then writes a tombstone for every committed offset.
 */
import type * as grpc from '@grpc/grpc-js'
import {
  SluiceError,
  errorId,
  systemClock,
  toGrpcError,
  type Clock,
  type ErrorCodeName,
  type Timer,
  type wire,
} from '@sluice/protocol'
import type { Logger } from 'pino'
import { resolveGroupConfig, type GroupCoordinatorOptions, type ResolvedGroupConfig } from './group-config.js'
import { GroupManager, groupIdProblem } from './group-manager.js'
import type { GroupState } from './group-member.js'
import { OffsetManager } from './offset-manager.js'
import { offsetCommit, offsetFetch, type OffsetRequestContext } from './offset-requests.js'
import { ClientOffsetsLog, type ClusterAccess, type OffsetsLog } from './offsets-log.js'

export interface GroupCoordinatorDeps {
  readonly cluster: ClusterAccess
  /** Partition count of an existing topic (to reject commits for partitions that do not exist). */
  readonly partitionsOf: (topic: string) => number | undefined
  readonly logger: Logger
  readonly options?: GroupCoordinatorOptions
  /** Tests: a ManualClock (default: systemClock), a fixed id generator, an in-memory log. */
  readonly clock?: Clock
  readonly newMemberId?: (prefix: string) => string
  readonly offsetsLog?: OffsetsLog
}

const LOAD_TIMEOUT_MS = 60_000
const LOAD_RETRY_MS = 500

export class GroupCoordinator {
  readonly config: ResolvedGroupConfig
  readonly groups: GroupManager
  readonly offsets: OffsetManager
  readonly loading: Promise<void>
  private readonly offsetsLog: OffsetsLog
  private readonly log: Logger
  private readonly now: () => number
  private retentionTimer: Timer | undefined
  private sweepingOffsets = false

  constructor(private readonly deps: GroupCoordinatorDeps) {
    this.config = resolveGroupConfig(deps.options)
    this.log = deps.logger
    const clock = deps.clock ?? systemClock
    this.now = () => clock.nowMs()
    this.groups = new GroupManager({
      config: this.config,
      logger: this.log,
      clock,
      ...(deps.newMemberId !== undefined ? { newMemberId: deps.newMemberId } : {}),
    })
    this.offsetsLog =
      deps.offsetsLog ??
      new ClientOffsetsLog({
        cluster: deps.cluster,
        numPartitions: this.config.offsetsTopicNumPartitions,
        replicationFactor: this.config.offsetsTopicReplicationFactor,
        commitTimeoutMs: this.config.offsetsCommitTimeoutMs,
        logger: this.log.child({ component: 'offsets-log' }),
      })
    this.offsets = new OffsetManager(this.offsetsLog, this.log)
    this.groups.start()
    this.loading = this.offsets.startLoading({ timeoutMs: LOAD_TIMEOUT_MS, retryMs: LOAD_RETRY_MS })
    this.retentionTimer = clock
      .setInterval(() => {
        void this.expireOffsets()
      }, this.config.offsetsRetentionCheckIntervalMs)
      .unref()
  }

  async stop(): Promise<void> {
    this.retentionTimer?.cancel()
    this.retentionTimer = undefined
    this.offsets.stop()
    this.groups.stop()
    await this.offsetsLog.close().catch((e: unknown) => {
      this.log.warn({ err: e }, 'closing the offsets client failed')
    })
  }

  private get offsetContext(): OffsetRequestContext {
    return {
      groups: this.groups,
      offsets: this.offsets,
      offsetMetadataMaxBytes: this.config.offsetMetadataMaxBytes,
      partitionsOf: this.deps.partitionsOf,
      now: this.now,
    }
  }

  async offsetCommit(req: wire.OffsetCommitRequest__Output): Promise<wire.OffsetCommitResponse__Output> {
    return await offsetCommit(this.offsetContext, req)
  }

  offsetFetch(req: wire.OffsetFetchRequest__Output): wire.OffsetFetchResponse__Output {
    return offsetFetch(this.offsetContext, req)
  }

  /** Offset retention: expired offsets of empty groups get tombstones; unused empty groups go. */
  async expireOffsets(): Promise<void> {
    if (this.sweepingOffsets || !this.offsets.loaded) return
    this.sweepingOffsets = true
    try {
      await this.offsets.expire(this.now(), this.config.offsetsRetentionMs, (id) => {
        const g = this.groups.get(id)
        if (g === undefined) return 0
        return g.state === 'Empty' ? g.emptySince : undefined
      })
      for (const { groupId, state } of this.groups.states()) {
        const g = this.groups.get(groupId)!
        if (state === 'Empty' && g.members.size === 0 && !g.hasPendingMembers() && !this.offsets.hasGroup(groupId))
          this.groups.remove(groupId)
      }
    } finally {
      this.sweepingOffsets = false
    }
  }

  private stateOf(groupId: string): { state: GroupState; protocolType: string } | undefined {
    const g = this.groups.get(groupId)
    if (g !== undefined) return { state: g.state, protocolType: g.protocolType }
    return this.offsets.hasGroup(groupId) ? { state: 'Empty', protocolType: '' } : undefined
  }

  describeGroups(req: wire.DescribeGroupsRequest__Output): wire.DescribeGroupsResponse__Output {
    return {
      groups: req.group_ids.map((id): wire.DescribedGroup__Output => {
        const empty = (code: ErrorCodeName, message: string, state: string): wire.DescribedGroup__Output => ({
          error_code: errorId(code),
          error_message: message,
          group_id: id,
          state,
          protocol_type: '',
          protocol_name: '',
          generation_id: -1,
          leader: '',
          members: [],
        })
        const problem = groupIdProblem(id)
        if (problem !== undefined) return empty('INVALID_GROUP_ID', problem, 'Dead')
        const g = this.groups.get(id)
        if (g !== undefined) return g.describe()
        if (this.offsets.hasGroup(id)) return { ...empty('NONE', '', 'Empty'), generation_id: 0 }
        if (!this.offsets.loaded)
          return empty('COORDINATOR_LOAD_IN_PROGRESS', 'the coordinator is still loading committed offsets', 'Dead')
        return empty('GROUP_ID_NOT_FOUND', `group ${id} does not exist`, 'Dead')
      }),
    }
  }

  listGroups(req: wire.ListGroupsRequest__Output): wire.ListGroupsResponse__Output {
    const wanted = new Set(req.states.map((s) => s.toLowerCase()))
    const ids = new Set([...this.groups.groups.keys(), ...this.offsets.groupIds()])
    const groups: wire.ListedGroup__Output[] = []
    for (const id of [...ids].sort()) {
      const s = this.stateOf(id)
      if (s === undefined || (wanted.size > 0 && !wanted.has(s.state.toLowerCase()))) continue
      groups.push({ group_id: id, protocol_type: s.protocolType, state: s.state })
    }
    const loading = !this.offsets.loaded
    return {
      error_code: loading ? errorId('COORDINATOR_LOAD_IN_PROGRESS') : 0,
      error_message: loading
        ? 'the coordinator is still loading committed offsets; groups with only offsets are missing'
        : '',
      groups,
    }
  }

  async deleteGroups(req: wire.DeleteGroupsRequest__Output): Promise<wire.DeleteGroupsResponse__Output> {
    const results = await Promise.all(
      req.group_ids.map(async (id): Promise<wire.GroupResult__Output> => {
        const fail = (code: ErrorCodeName, message: string): wire.GroupResult__Output => ({
          group_id: id,
          error_code: errorId(code),
          error_message: message,
        })
        const problem = groupIdProblem(id)
        if (problem !== undefined) return fail('INVALID_GROUP_ID', problem)
        if (req.group_ids.filter((x) => x === id).length > 1)
          return fail('INVALID_REQUEST', `group ${id} appears more than once in the request`)
        if (!this.offsets.loaded)
          return fail('COORDINATOR_LOAD_IN_PROGRESS', 'the coordinator is still loading committed offsets')
        const s = this.stateOf(id)
        if (s === undefined) return fail('GROUP_ID_NOT_FOUND', `group ${id} does not exist`)
        if (s.state !== 'Empty') return fail('NON_EMPTY_GROUP', `group ${id} is ${s.state} with active members`)
        this.groups.remove(id)
        try {
          await this.offsets.delete(id, this.offsets.list(id))
        } catch (e) {
          const err = e instanceof SluiceError ? e : new SluiceError('COORDINATOR_NOT_AVAILABLE', (e as Error).message)
          return fail(
            err.retriable ? err.code : 'COORDINATOR_NOT_AVAILABLE',
            `deleting the offsets of group ${id} failed: ${err.message}`,
          )
        }
        this.log.info({ groupId: id }, 'group deleted')
        return { group_id: id, error_code: 0, error_message: '' }
      }),
    )
    return { results }
  }

  /** The GroupCoordinator gRPC service's handlers. */
  handlers(): grpc.UntypedServiceImplementation {
    const log = this.log.child({ component: 'group-rpc' })
    return {
      JoinGroup: unary(
        log,
        'JoinGroup',
        async (r: wire.JoinGroupRequest__Output, call) => await this.groups.join(r, peerHost(call.getPeer())),
      ),
      SyncGroup: unary(log, 'SyncGroup', async (r: wire.SyncGroupRequest__Output) => await this.groups.sync(r)),
      Heartbeat: unary(log, 'Heartbeat', (r: wire.HeartbeatRequest__Output) => this.groups.heartbeat(r)),
      LeaveGroup: unary(log, 'LeaveGroup', (r: wire.LeaveGroupRequest__Output) => this.groups.leave(r)),
      OffsetCommit: unary(
        log,
        'OffsetCommit',
        async (r: wire.OffsetCommitRequest__Output) => await this.offsetCommit(r),
      ),
      OffsetFetch: unary(log, 'OffsetFetch', (r: wire.OffsetFetchRequest__Output) => this.offsetFetch(r)),
      DescribeGroups: unary(log, 'DescribeGroups', (r: wire.DescribeGroupsRequest__Output) => this.describeGroups(r)),
      ListGroups: unary(log, 'ListGroups', (r: wire.ListGroupsRequest__Output) => this.listGroups(r)),
      DeleteGroups: unary(
        log,
        'DeleteGroups',
        async (r: wire.DeleteGroupsRequest__Output) => await this.deleteGroups(r),
      ),
    }
  }
}

type Call<Req, Res> = grpc.ServerUnaryCall<Req, Res>

function unary<Req, Res>(
  log: Logger,
  method: string,
  fn: (req: Req, call: Call<Req, Res>) => Promise<Res> | Res,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => fn(call.request, call))
      .then(
        (res) => {
          callback(null, res)
        },
        (e: unknown) => {
          if (e instanceof SluiceError) log.debug({ method, err: e }, 'request failed')
          else log.error({ method, err: e }, 'group request handler threw an unexpected error')
          callback(toGrpcError(e) as grpc.ServiceError)
        },
      )
  }
}

/** "ipv4:127.0.0.1:5000" / "ipv6:[::1]:5000" -> the host part, for DescribeGroups' client_host. */
export function peerHost(peer: string): string {
  const bare = peer.replace(/^(ipv4|ipv6|unix):/, '')
  const m = /^\[(.*)\]:\d+$/.exec(bare) ?? /^(.*):\d+$/.exec(bare)
  return m?.[1] ?? bare
}
