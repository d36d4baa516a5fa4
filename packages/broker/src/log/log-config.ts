/**
 * Per-partition storage settings (docs/internal-apis.md `LogConfig`), Kafka's topic configs under
 * storage names. Logs found on disk at startup load with DEFAULT_LOG_CONFIG until the broker hands
 * the topic's effective config to getOrCreateLog, which replaces it.
 */
import type { CleanupPolicy, TopicConfig } from '@sluice/protocol'

export interface LogConfig {
  /** Roll the active segment before an append that would take it past this size. */
  segmentBytes: number
  /** Roll a non-empty segment once record time spans more than this (checked on append only). */
  segmentMs: number
  /** Bytes of batches between two sparse index entries. */
  indexIntervalBytes: number
  /** Roll once the offset or time index would hold more than this many bytes. */
  segmentIndexBytes: number
  /** Largest single batch accepted (whole batch, header included). */
  maxMessageBytes: number
  /** 'fsync': appends resolve only after fdatasync (group commit); 'replication': page cache. */
  flush: 'replication' | 'fsync'
  /** Delete closed segments whose newest record is older than this; -1 = no time limit. */
  retentionMs: number
  /** Delete the oldest closed segments while the partition is larger than this; -1 = no limit. */
  retentionBytes: number
  /** 'delete' (retention), 'compact' (keep the latest record per key), or both. */
  cleanupPolicy: CleanupPolicy
  /** How long a tombstone survives after the cleaning that first saw it (the delete horizon). */
  deleteRetentionMs: number
  /** Compact once dirty bytes / (clean + dirty bytes) reach this (Kafka's min.cleanable.dirty.ratio). */
  minCleanableDirtyRatio: number
  /** A segment holding a record newer than this (by its largest timestamp) is not compacted yet. */
  minCompactionLagMs: number
}

export const DEFAULT_LOG_CONFIG: Readonly<LogConfig> = Object.freeze({
  segmentBytes: 1024 * 1024 * 1024,
  segmentMs: 7 * 24 * 60 * 60 * 1000,
  indexIntervalBytes: 4096,
  segmentIndexBytes: 10 * 1024 * 1024,
  maxMessageBytes: 1024 * 1024 + 12,
  flush: 'replication',
  retentionMs: 7 * 24 * 60 * 60 * 1000,
  retentionBytes: -1,
  cleanupPolicy: 'delete',
  deleteRetentionMs: 24 * 60 * 60 * 1000,
  minCleanableDirtyRatio: 0.5,
  minCompactionLagMs: 0,
})

/** The storage view of a topic's effective config. */
export function retentionEnabled(config: LogConfig): boolean {
  return config.cleanupPolicy !== 'compact'
}

export function compactionEnabled(config: LogConfig): boolean {
  return config.cleanupPolicy !== 'delete'
}

export function logConfigFromTopicConfig(tc: TopicConfig): LogConfig {
  return {
    segmentBytes: tc['segment.bytes'],
    segmentMs: tc['segment.ms'],
    indexIntervalBytes: tc['index.interval.bytes'],
    segmentIndexBytes: tc['segment.index.bytes'],
    maxMessageBytes: tc['max.message.bytes'],
    flush: tc.flush,
    retentionMs: tc['retention.ms'],
    retentionBytes: tc['retention.bytes'],
    cleanupPolicy: tc['cleanup.policy'],
    deleteRetentionMs: tc['delete.retention.ms'],
    minCleanableDirtyRatio: tc['min.cleanable.dirty.ratio'],
    minCompactionLagMs: tc['min.compaction.lag.ms'],
  }
}
