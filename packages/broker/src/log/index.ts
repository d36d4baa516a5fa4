// Partition log storage (docs/design.md §4). The broker's public index re-exports this barrel.
// Folders: partition/ (one partition's log: append and read, segment-set lifecycle, storage with
// the single write queue, flush and fsync), segment/ (one segment and its indexes, scans,
// recovery, file naming), manager/ (the logs of a data dir or of several: loading, recovery,
// checkpoints), cleaner/ (compaction and the retention plan), io/ (file handles, positional I/O,
// checkpoint files, group commit, delayed deletion), __fixtures__/ (test helpers, not built).
export {
  PartitionLog,
  type AppendedRange,
  type LeaderAppendPlan,
  type RetentionResult,
} from './partition/partition-log.js'
export {
  LogCleaner,
  cleanableRange,
  type CleanableRange,
  type CleanResult,
  type LogCleanerOptions,
} from './cleaner/log-cleaner.js'
export { LogManager, type LogManagerOptions } from './manager/log-manager.js'
export {
  DEFAULT_LOG_CONFIG,
  compactionEnabled,
  logConfigFromTopicConfig,
  retentionEnabled,
  type LogConfig,
} from './log-config.js'
export { FileHandleCache, DEFAULT_MAX_OPEN_FILES } from './io/file-handle-cache.js'
export { defaultMaxOpenFiles } from './io/open-file-limit.js'
export { boundedEach } from './io/bounded-each.js'
export { UnexpectedAppendOffsetError } from './partition/append-plan.js'
export { UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET, type EpochEntry } from './partition/leader-epoch-cache.js'
export type { ReadOptions, ReadResult } from './partition/log-reader.js'
export type { RecoveryStats } from './segment/segment-recovery.js'
export { LogDirs, type LogDirsOptions, type LogStore } from './manager/log-dirs.js'
