/**
 * Committed offsets of one group member: OffsetFetch when partitions are assigned, OffsetCommit
 * of processed positions. A commit carries the member id and generation, so the coordinator
 * refuses it from a member that is no longer in the generation (a zombie): that failure is
 * returned to the caller as ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID / REBALANCE_IN_PROGRESS and
 * the member rejoins. `lastCommitted` remembers what this member committed or fetched, so
 * unchanged positions are not committed again.
 */
import { SluiceError, toBigInt, toInt64String, type wire } from '@sluice/protocol'
import type { TopicPartition } from '../consumer-types.js'
import { tpKey } from '../subscription.js'
import type { CoordinatorClient } from './coordinator-client.js'
import type { CommitOffset } from './group-types.js'

export interface CommitIdentity {
  generationId: number
  memberId: string
  groupInstanceId: string
}

export function byTopic<T extends TopicPartition>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const it of items) out.set(it.topic, [...(out.get(it.topic) ?? []), it])
  return out
}

export class OffsetCommitter {
  readonly lastCommitted = new Map<string, bigint>()

  constructor(
    private readonly coordinator: CoordinatorClient,
    private readonly groupId: string,
  ) {}

  /** Committed offsets (-1n when none) of these partitions; every partition is answered. */
  async fetch(tps: readonly TopicPartition[]): Promise<Map<string, bigint>> {
    const out = new Map<string, bigint>()
    for (const [k, c] of await this.fetchCommitted(tps)) out.set(k, c.offset)
    return out
  }

  /** As fetch(), with the metadata string each offset was committed with ('' when none). */
  async fetchCommitted(tps: readonly TopicPartition[]): Promise<Map<string, { offset: bigint; metadata: string }>> {
    const out = new Map<string, { offset: bigint; metadata: string }>()
    if (tps.length === 0) return out
    const req: wire.OffsetFetchRequest = {
      group_id: this.groupId,
      topics: [...byTopic(tps)].map(([topic, list]) => ({ topic, partitions: list.map((tp) => tp.partition) })),
    }
    const res = await this.coordinator.call<wire.OffsetFetchResponse__Output>('OffsetFetch', (c, o, cb) =>
      c.OffsetFetch(req, o, cb),
    )
    for (const t of res.topics) {
      for (const p of t.partitions) {
        if (p.error_code !== 0)
          throw SluiceError.fromId(p.error_code, p.error_message, { topic: t.topic, partition: p.partition })
        out.set(tpKey(t.topic, p.partition), { offset: toBigInt(p.committed_offset), metadata: p.metadata ?? '' })
      }
    }
    for (const tp of tps)
      if (!out.has(tpKey(tp.topic, tp.partition))) out.set(tpKey(tp.topic, tp.partition), { offset: -1n, metadata: '' })
    return out
  }

  /** Commits; resolves when every partition is stored, else rejects with the first item's code and details.errors. */
  async commit(offsets: readonly CommitOffset[], who: CommitIdentity, options: { retry: boolean }): Promise<void> {
    if (offsets.length === 0) return
    const req: wire.OffsetCommitRequest = {
      group_id: this.groupId,
      generation_id: who.generationId,
      member_id: who.memberId,
      group_instance_id: who.groupInstanceId,
      topics: [...byTopic(offsets)].map(([topic, list]) => ({
        topic,
        partitions: list.map((o) => ({
          partition: o.partition,
          committed_offset: toInt64String(o.offset),
          committed_leader_epoch: -1,
          metadata: o.metadata ?? '',
        })),
      })),
    }
    const res = await this.coordinator.call<wire.OffsetCommitResponse__Output>(
      'OffsetCommit',
      (c, o, cb) => c.OffsetCommit(req, o, cb),
      { retry: options.retry },
    )
    const wanted = new Map(offsets.map((o) => [tpKey(o.topic, o.partition), o]))
    const errors: Array<{ topic: string; partition: number; code: string; message: string }> = []
    let first: SluiceError | undefined
    for (const t of res.topics) {
      for (const p of t.partitions) {
        const k = tpKey(t.topic, p.partition)
        const o = wanted.get(k)
        if (o === undefined) continue
        if (p.error_code === 0) {
          this.lastCommitted.set(k, o.offset)
          continue
        }
        const e = SluiceError.fromId(p.error_code, p.error_message, { topic: t.topic, partition: p.partition })
        first ??= e
        errors.push({ topic: t.topic, partition: p.partition, code: e.code, message: e.message })
      }
    }
    if (first !== undefined) {
      throw new SluiceError(
        first.code,
        `commit failed for ${errors.length} of ${offsets.length} partition(s): ` +
          errors.map((e) => `${e.topic}/${e.partition}: ${e.code} (${e.message})`).join('; '),
        { errors },
        { cause: first },
      )
    }
  }
}
