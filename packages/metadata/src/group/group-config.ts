/**
 * The group coordinator's settings: Kafka's group.* and offsets.* broker configs under camelCase
 * names, with Kafka's defaults except the offsets topic's partition count (10 instead of 50: a dev
 * cluster should not start with 50 partitions it never needs). All checked at once; every
 * violation is listed.
 */
import { SluiceError } from '@sluice/protocol'

export interface GroupCoordinatorOptions {
  /** group.min.session.timeout.ms: JoinGroup with a smaller session timeout gets INVALID_SESSION_TIMEOUT. Default 6000. */
  minSessionTimeoutMs?: number
  /** group.max.session.timeout.ms. Default 1800000. */
  maxSessionTimeoutMs?: number
  /** group.initial.rebalance.delay.ms: the first rebalance of an empty group waits this long for more joiners. Default 3000. */
  initialRebalanceDelayMs?: number
  /** offsets.topic.num.partitions, used when __consumer_offsets is created. Default 10. */
  offsetsTopicNumPartitions?: number
  /** offsets.topic.replication.factor; the topic gets min(this, live brokers). Default 3. */
  offsetsTopicReplicationFactor?: number
  /** offsets.retention.minutes in ms: offsets of an empty group expire this long after it became empty (or after the commit). Default 7 days. */
  offsetsRetentionMs?: number
  /** offsets.retention.check.interval.ms. Default 600000. */
  offsetsRetentionCheckIntervalMs?: number
  /** offsets.commit.timeout.ms: how long a commit may wait for the offsets topic to acknowledge it. Default 5000. */
  offsetsCommitTimeoutMs?: number
  /** offset.metadata.max.bytes. Default 4096. */
  offsetMetadataMaxBytes?: number
  /** Period of the one timer that checks session, rebalance, sync and join-delay deadlines of every group. Default 100. */
  sweepIntervalMs?: number
}

export type ResolvedGroupConfig = Required<GroupCoordinatorOptions>

export const GROUP_CONFIG_DEFAULTS: Readonly<ResolvedGroupConfig> = {
  minSessionTimeoutMs: 6000,
  maxSessionTimeoutMs: 1_800_000,
  initialRebalanceDelayMs: 3000,
  offsetsTopicNumPartitions: 10,
  offsetsTopicReplicationFactor: 3,
  offsetsRetentionMs: 7 * 24 * 60 * 60 * 1000,
  offsetsRetentionCheckIntervalMs: 600_000,
  offsetsCommitTimeoutMs: 5000,
  offsetMetadataMaxBytes: 4096,
  sweepIntervalMs: 100,
}

const INT32_MAX = 2 ** 31 - 1

const BOUNDS: Record<keyof ResolvedGroupConfig, readonly [number, number]> = {
  minSessionTimeoutMs: [1, INT32_MAX],
  maxSessionTimeoutMs: [1, INT32_MAX],
  initialRebalanceDelayMs: [0, INT32_MAX],
  offsetsTopicNumPartitions: [1, 10_000],
  offsetsTopicReplicationFactor: [1, 32767],
  offsetsRetentionMs: [1, Number.MAX_SAFE_INTEGER],
  offsetsRetentionCheckIntervalMs: [1, INT32_MAX],
  offsetsCommitTimeoutMs: [1, INT32_MAX],
  offsetMetadataMaxBytes: [0, 1024 * 1024],
  sweepIntervalMs: [1, 60_000],
}

export function resolveGroupConfig(o: GroupCoordinatorOptions = {}): ResolvedGroupConfig {
  const problems: string[] = []
  const out = { ...GROUP_CONFIG_DEFAULTS }
  for (const [name, [min, max]] of Object.entries(BOUNDS) as Array<
    [keyof ResolvedGroupConfig, readonly [number, number]]
  >) {
    const v = o[name]
    if (v === undefined) continue
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      problems.push(`${name} ${String(v)} must be an integer in ${min}..${max}`)
    else out[name] = v
  }
  for (const name of Object.keys(o)) if (!(name in BOUNDS)) problems.push(`unknown group coordinator option ${name}`)
  if (out.minSessionTimeoutMs > out.maxSessionTimeoutMs)
    problems.push(
      `minSessionTimeoutMs ${out.minSessionTimeoutMs} exceeds maxSessionTimeoutMs ${out.maxSessionTimeoutMs}`,
    )
  if (problems.length > 0)
    throw new SluiceError('INVALID_ARGUMENT', `invalid group coordinator options: ${problems.join('; ')}`, { problems })
  return out
}
