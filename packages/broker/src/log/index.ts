// Partition log storage (DESIGN.md §4). The broker's public index re-exports this barrel.
export { PartitionLog } from './partition-log.js'
export { LogManager, type LogManagerOptions } from './log-manager.js'
export { DEFAULT_LOG_CONFIG, logConfigFromTopicConfig, type LogConfig } from './log-config.js'
export { FileHandleCache, DEFAULT_MAX_OPEN_FILES } from './file-handle-cache.js'
export { UnexpectedAppendOffsetError } from './append-plan.js'
export { UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET, type EpochEntry } from './leader-epoch-cache.js'
export type { ReadOptions, ReadResult } from './log-reader.js'
export type { RecoveryStats } from './segment-recovery.js'
