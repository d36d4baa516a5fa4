/**
 * The admin client's consumer-group calls: ListGroups / DescribeGroups / DeleteGroups /
 * OffsetFetch / OffsetCommit on the GroupCoordinator (metadata service), ListOffsets on the
 * partition leaders, and resetOffsets built from them.
 *
 * resetOffsets follows kafka-consumer-groups --reset-offsets: only for a group without members
 * (Empty, or unknown: then the offsets create it), else NON_EMPTY_GROUP and nothing changes;
 * targets are clamped into [log start, log end]; --shift-by starts from the committed offset, or
 * from the log end for a partition without one (the default autoOffsetReset, 'latest'); the
 * commit uses generation -1 and no member id, which the coordinator accepts only for an empty
 * group, so a member joining in between makes it fail rather than race.
 */
import { SluiceError, decodeAssignment, decodeSubscription, type wire } from '@sluice/protocol'
import type { TopicPartition } from '../consumer/consumer-types.js'
import { CoordinatorClient } from '../consumer/group/coordinator-client.js'
import { OffsetCommitter } from '../consumer/group/offset-committer.js'
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, listOffsetsWithRetry } from '../consumer/list-offsets.js'
import { tpKey } from '../consumer/subscription.js'
import type { ConnectionPool } from '../network/connection-pool.js'
import type { MetadataCache } from '../network/metadata-cache.js'
import type { ResolvedConnectOptions } from '../options.js'
import type {
  GroupDescription,
  GroupListing,
  GroupOffset,
  ListedOffset,
  OffsetResetPlanItem,
  OffsetSpec,
  ResetSpec,
} from './group-admin-types.js'

function groupErrors(
  operation: string,
  results: Array<{ group_id: string; error_code: number; error_message: string }>,
): void {
  const failed = results.filter((r) => r.error_code !== 0)
  if (failed.length === 0) return
  const errors = failed.map((r) => {
    const e = SluiceError.fromId(r.error_code, r.error_message, { groupId: r.group_id })
    return { groupId: r.group_id, code: e.code, message: e.message }
  })
  throw new SluiceError(
    errors[0]!.code,
    `${operation} failed for ${errors.length} of ${results.length} group(s): ` +
      errors.map((e) => `${e.groupId}: ${e.code} (${e.message})`).join('; '),
    { errors, succeeded: results.filter((r) => r.error_code === 0).map((r) => r.group_id) },
  )
}

function assertGroupIds(ids: unknown): asserts ids is string[] {
  if (!Array.isArray(ids) || !ids.every((g) => typeof g === 'string' && g !== ''))
    throw new TypeError('group ids must be an array of non-empty strings')
}

export class GroupAdmin {
  private readonly coordinator: CoordinatorClient

  constructor(
    private readonly cache: MetadataCache,
    private readonly pool: ConnectionPool,
    private readonly options: ResolvedConnectOptions,
  ) {
    this.coordinator = new CoordinatorClient(cache, pool, options)
  }

  async listGroups(options: { states?: string[] } = {}): Promise<GroupListing[]> {
    const res = await this.coordinator.call<wire.ListGroupsResponse__Output>('listGroups', (c, o, cb) =>
      c.ListGroups({ states: options.states ?? [] }, o, cb),
    )
    return res.groups
      .map((g) => ({ groupId: g.group_id, protocolType: g.protocol_type, state: g.state }))
      .sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0))
  }

  async describeGroups(groupIds: string[]): Promise<GroupDescription[]> {
    assertGroupIds(groupIds)
    const res = await this.coordinator.call<wire.DescribeGroupsResponse__Output>('describeGroups', (c, o, cb) =>
      c.DescribeGroups({ group_ids: groupIds }, o, cb),
    )
    groupErrors('describeGroups', res.groups)
    return res.groups.map((g) => ({
      groupId: g.group_id,
      state: g.state,
      protocolType: g.protocol_type,
      protocol: g.protocol_name,
      generationId: g.generation_id,
      leader: g.leader,
      members: g.members.map((m) => {
        const consumer = g.protocol_type === 'consumer'
        const assignment = consumer ? safe(() => decodeAssignment(m.assignment), undefined) : undefined
        const subscription =
          consumer && m.metadata.length > 0 ? safe(() => decodeSubscription(m.metadata), undefined) : undefined
        return {
          memberId: m.member_id,
          ...(m.group_instance_id !== '' ? { groupInstanceId: m.group_instance_id } : {}),
          clientId: m.client_id,
          clientHost: m.client_host,
          assignment: assignment?.partitions ?? [],
          subscription: subscription?.topics ?? [],
          ...userData('assignmentUserData', assignment?.userData),
          ...userData('subscriptionUserData', subscription?.userData),
        }
      }),
    }))
  }

  async deleteGroups(groupIds: string[]): Promise<void> {
    assertGroupIds(groupIds)
    const res = await this.coordinator.call<wire.DeleteGroupsResponse__Output>('deleteGroups', (c, o, cb) =>
      c.DeleteGroups({ group_ids: groupIds }, o, cb),
    )
    groupErrors('deleteGroups', res.results)
  }

  /** Every committed offset of the group (of `topics` when given), sorted. */
  async fetchOffsets(groupId: string, topics?: string[]): Promise<GroupOffset[]> {
    assertGroupIds([groupId])
    const req: wire.OffsetFetchRequest = {
      group_id: groupId,
      topics: (topics ?? []).map((topic) => ({ topic, partitions: [] })),
    }
    const res = await this.coordinator.call<wire.OffsetFetchResponse__Output>('fetchOffsets', (c, o, cb) =>
      c.OffsetFetch(req, o, cb),
    )
    const out: GroupOffset[] = []
    for (const t of res.topics) {
      for (const p of t.partitions) {
        if (p.error_code !== 0)
          throw SluiceError.fromId(p.error_code, p.error_message, { groupId, topic: t.topic, partition: p.partition })
        const offset = BigInt(p.committed_offset)
        if (offset >= 0n) out.push({ topic: t.topic, partition: p.partition, offset, metadata: p.metadata })
      }
    }
    return out.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
  }

  /** Offsets per partition from the leaders; an item without partition means every partition. */
  async listOffsets(items: Array<{ topic: string; partition?: number }>, spec: OffsetSpec): Promise<ListedOffset[]> {
    if (!Array.isArray(items)) throw new TypeError('listOffsets() needs an array of { topic, partition? }')
    const timestamp =
      spec === 'earliest' ? EARLIEST_TIMESTAMP : spec === 'latest' ? LATEST_TIMESTAMP : BigInt(spec.timestamp)
    const tps: TopicPartition[] = []
    // One metadata refresh for all the topics, not one (rate limited) per topic.
    const infos = new Map(
      (await this.cache.topicsOf([...new Set(items.map((it) => it.topic))])).map((t) => [t.name, t]),
    )
    for (const it of items) {
      const info = infos.get(it.topic)!
      if (it.partition === undefined)
        for (const p of info.partitions) tps.push({ topic: it.topic, partition: p.partition })
      else if (it.partition >= 0 && it.partition < info.partitions.length)
        tps.push({ topic: it.topic, partition: it.partition })
      else
        throw new SluiceError('UNKNOWN_TOPIC_OR_PARTITION', `${it.topic} has no partition ${it.partition}`, {
          topic: it.topic,
          partition: it.partition,
        })
    }
    const answers = await listOffsetsWithRetry(
      this.cache,
      this.pool,
      tps.map((tp) => ({ ...tp, timestamp })),
      {
        isolationLevel: 0,
        timeoutMs: this.options.requestTimeoutMs,
        retry: this.options.retry,
        operation: 'listOffsets',
      },
    )
    return tps.map((tp) => {
      const a = answers.get(tpKey(tp.topic, tp.partition))!
      return { ...tp, offset: a.offset, timestamp: a.timestamp }
    })
  }

  /** Plans (and unless dryRun, commits) new offsets for an empty group. */
  async resetOffsets(
    groupId: string,
    request: { topic: string; partitions?: number[]; to: ResetSpec; dryRun?: boolean },
  ): Promise<OffsetResetPlanItem[]> {
    assertGroupIds([groupId])
    await this.assertEmpty(groupId)
    const items =
      request.partitions === undefined
        ? [{ topic: request.topic }]
        : request.partitions.map((partition) => ({ topic: request.topic, partition }))
    const [starts, ends] = await Promise.all([this.listOffsets(items, 'earliest'), this.listOffsets(items, 'latest')])
    const tps = starts.map((s) => ({ topic: s.topic, partition: s.partition }))
    const committed = await new OffsetCommitter(this.coordinator, groupId).fetch(tps)
    const to = request.to
    const byTs =
      typeof to === 'object' && 'timestamp' in to
        ? await this.listOffsets(items, { timestamp: to.timestamp })
        : undefined
    const plan = tps.map((tp, i) => {
      const start = starts[i]!.offset
      const end = ends[i]!.offset
      const current = committed.get(tpKey(tp.topic, tp.partition)) ?? -1n
      let target: bigint
      if (to === 'earliest') target = start
      else if (to === 'latest') target = end
      else if ('offset' in to) target = to.offset
      else if ('shiftBy' in to) target = (current >= 0n ? current : end) + to.shiftBy
      else target = byTs![i]!.offset < 0n ? end : byTs![i]!.offset
      if (target < start) target = start
      if (target > end) target = end
      return { ...tp, current, target }
    })
    if (request.dryRun !== true) {
      await new OffsetCommitter(this.coordinator, groupId).commit(
        plan.map((p) => ({ topic: p.topic, partition: p.partition, offset: p.target })),
        { generationId: -1, memberId: '', groupInstanceId: '' },
        { retry: true },
      )
    }
    return plan
  }

  private async assertEmpty(groupId: string): Promise<void> {
    let state: string
    try {
      const [g] = await this.describeGroups([groupId])
      state = g?.state ?? 'Dead'
    } catch (err) {
      if (err instanceof SluiceError && err.code === 'GROUP_ID_NOT_FOUND') return
      throw err
    }
    if (state !== 'Empty' && state !== 'Dead') {
      throw new SluiceError(
        'NON_EMPTY_GROUP',
        `group ${groupId} is ${state}: offsets can only be reset while it has no members (stop its consumers first)`,
        { groupId, state },
      )
    }
  }
}

/** The field only when the assignor sent bytes (an empty userData is none). */
function userData<F extends string>(field: F, bytes: Buffer | null | undefined): { [K in F]?: Buffer } {
  return bytes === null || bytes === undefined || bytes.length === 0
    ? {}
    : ({ [field]: Buffer.from(bytes) } as { [K in F]?: Buffer })
}

function safe<T>(fn: () => T, fallback: T): T {
  try {
    return fn()
  } catch {
    return fallback
  }
}
