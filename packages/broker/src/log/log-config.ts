/**
 * Per-partition storage settings (docs/internal-apis.md `LogConfig`), Kafka's topic configs under
 * storage names. Logs found on disk at startup load with DEFAULT_LOG_CONFIG until the broker hands
 * the topic's effective config to getOrCreateLog, which replaces it.
 */
import type { TopicConfig } from '@sluice/protocol'

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
}

export const DEFAULT_LOG_CONFIG: Readonly<LogConfig> = Object.freeze({
  segmentBytes: 1024 * 1024 * 1024,
  segmentMs: 7 * 24 * 60 * 60 * 1000,
  indexIntervalBytes: 4096,
  segmentIndexBytes: 10 * 1024 * 1024,
  maxMessageBytes: 1024 * 1024 + 12,
  flush: 'replication',
})

/** The storage view of a topic's effective config. */
export function logConfigFromTopicConfig (tc: TopicConfig): LogConfig {
  return {
    segmentBytes: tc['segment.bytes'],
    segmentMs: tc['segment.ms'],
    indexIntervalBytes: tc['index.interval.bytes'],
    segmentIndexBytes: tc['segment.index.bytes'],
    maxMessageBytes: tc['max.message.bytes'],
    flush: tc.flush,
  }
}
