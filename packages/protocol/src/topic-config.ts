/**
 * Every topic-level config: Kafka's name, default, bounds and parser. The metadata service
 * validates overrides against this table and stores only overrides under /config/topics/<topic>;
 * brokers compute the effective config (default or override) from it. docs/topic-configs.md is
 * the user-facing copy of this table.
 */
import { SluiceError } from './errors.js'

export type CleanupPolicy = 'delete' | 'compact' | 'compact,delete'
export type FlushMode = 'replication' | 'fsync'
export type TimestampType = 'CreateTime' | 'LogAppendTime'

export interface TopicConfig {
  'segment.bytes': number
  'segment.ms': number
  'segment.index.bytes': number
  'index.interval.bytes': number
  'retention.ms': number
  'retention.bytes': number
  'max.message.bytes': number
  'cleanup.policy': CleanupPolicy
  'delete.retention.ms': number
  'min.cleanable.dirty.ratio': number
  'min.compaction.lag.ms': number
  'min.insync.replicas': number
  'unclean.leader.election.enable': boolean
  'message.timestamp.type': TimestampType
  flush: FlushMode
}

export type TopicConfigName = keyof TopicConfig

interface ConfigSpec<T> {
  readonly default: T
  readonly doc: string
  parse(text: string): Parsed<T>
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string }
const ok = <T>(value: T): Parsed<T> => ({ ok: true, value })
const bad = <T>(error: string): Parsed<T> => ({ ok: false, error })

function int(min: number, max: number, dflt: number, doc: string): ConfigSpec<number> {
  return {
    default: dflt,
    doc,
    parse(text) {
      if (!/^-?\d+$/.test(text.trim())) return bad(`"${text}" is not an integer`)
      const n = Number(text)
      if (!Number.isSafeInteger(n) || n < min || n > max) return bad(`${n} is outside [${min}, ${max}]`)
      return ok(n)
    },
  }
}

/** A decimal in [min, max] (Kafka's DOUBLE configs, e.g. "0.5"). */
function ratio(min: number, max: number, dflt: number, doc: string): ConfigSpec<number> {
  return {
    default: dflt,
    doc,
    parse(text) {
      if (!/^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(text)) return bad(`"${text}" is not a decimal number`)
      const n = Number(text)
      if (n < min || n > max) return bad(`${n} is outside [${min}, ${max}]`)
      return ok(n)
    },
  }
}

function oneOf<T extends string>(values: readonly T[], dflt: T, doc: string): ConfigSpec<T> {
  return {
    default: dflt,
    doc,
    parse(text) {
      const v = text
        .trim()
        .split(',')
        .map((s) => s.trim())
        .sort()
        .join(',') as T
      return values.includes(v) ? ok(v) : bad(`"${text}" is not one of ${values.join(' | ')}`)
    },
  }
}

function bool(dflt: boolean, doc: string): ConfigSpec<boolean> {
  return {
    default: dflt,
    doc,
    parse(text) {
      const t = text.trim().toLowerCase()
      return t === 'true' ? ok(true) : t === 'false' ? ok(false) : bad(`"${text}" is not true or false`)
    },
  }
}

const DAY_MS = 24 * 60 * 60 * 1000
const MAX_LONG = Number.MAX_SAFE_INTEGER

export const TOPIC_CONFIG_SPECS: { readonly [K in TopicConfigName]: ConfigSpec<TopicConfig[K]> } = {
  'segment.bytes': int(14, 2 ** 31 - 1, 1024 * 1024 * 1024, 'Roll the active segment once it would exceed this size.'),
  'segment.ms': int(1, MAX_LONG, 7 * DAY_MS, 'Roll a non-empty active segment once its records span this long.'),
  'segment.index.bytes': int(
    8,
    2 ** 31 - 1,
    10 * 1024 * 1024,
    'Roll the segment once its offset index would exceed this size.',
  ),
  'index.interval.bytes': int(0, 2 ** 31 - 1, 4096, 'Bytes of batches between two sparse index entries.'),
  'retention.ms': int(
    -1,
    MAX_LONG,
    7 * DAY_MS,
    'Delete closed segments whose newest record is older than this; -1 = keep forever.',
  ),
  'retention.bytes': int(
    -1,
    MAX_LONG,
    -1,
    'Delete the oldest closed segments while the partition is larger than this; -1 = no limit.',
  ),
  'max.message.bytes': int(0, 2 ** 31 - 1, 1024 * 1024 + 12, 'Largest record batch the broker accepts for this topic.'),
  'cleanup.policy': oneOf(['delete', 'compact', 'compact,delete'] as const, 'delete', 'delete, compact, or both.'),
  'delete.retention.ms': int(0, MAX_LONG, DAY_MS, 'How long tombstones survive compaction.'),
  'min.cleanable.dirty.ratio': ratio(
    0,
    1,
    0.5,
    'Compact once dirty bytes are at least this share of the cleanable log.',
  ),
  'min.compaction.lag.ms': int(
    0,
    MAX_LONG,
    0,
    'Records stay uncompacted at least this long (segments holding newer records are not cleaned).',
  ),
  'min.insync.replicas': int(1, 2 ** 31 - 1, 1, 'With acks=all, fewer in-sync replicas than this rejects the produce.'),
  'unclean.leader.election.enable': bool(false, 'Allow an out-of-sync replica to become leader (may lose data).'),
  'message.timestamp.type': oneOf(
    ['CreateTime', 'LogAppendTime'] as const,
    'CreateTime',
    "Record timestamps from the producer, or the broker's append time.",
  ),
  flush: oneOf(
    ['replication', 'fsync'] as const,
    'replication',
    'replication: page cache, safety from replicas; fsync: acknowledge only after fdatasync.',
  ),
}

export const TOPIC_CONFIG_NAMES = Object.keys(TOPIC_CONFIG_SPECS) as TopicConfigName[]

export function defaultTopicConfig(): TopicConfig {
  const out: Record<string, unknown> = {}
  for (const name of TOPIC_CONFIG_NAMES) out[name] = TOPIC_CONFIG_SPECS[name].default
  return out as unknown as TopicConfig
}

/**
 * Validates overrides (string values, as stored and sent on the wire). Throws INVALID_CONFIG
 * listing every bad entry; returns the normalised string map.
 */
export function validateTopicConfigOverrides(overrides: Readonly<Record<string, string>>): Record<string, string> {
  const problems: string[] = []
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(overrides)) {
    if (!(name in TOPIC_CONFIG_SPECS)) {
      problems.push(`unknown config "${name}"`)
      continue
    }
    const parsed = TOPIC_CONFIG_SPECS[name as TopicConfigName].parse(String(value))
    if (!parsed.ok) {
      problems.push(`${name}: ${parsed.error}`)
      continue
    }
    out[name] = String(parsed.value)
  }
  if (problems.length > 0) throw new SluiceError('INVALID_CONFIG', problems.join('; '), { problems })
  return out
}

/** The effective config: defaults with validated overrides applied. */
export function effectiveTopicConfig(overrides: Readonly<Record<string, string>>): TopicConfig {
  const cfg = defaultTopicConfig() as unknown as Record<string, unknown>
  for (const [name, value] of Object.entries(validateTopicConfigOverrides(overrides))) {
    const parsed = TOPIC_CONFIG_SPECS[name as TopicConfigName].parse(value)
    if (parsed.ok) cfg[name] = parsed.value
  }
  return cfg as unknown as TopicConfig
}
