/** For sibling packages and tests only; not a stable API. */
export * from './index.js'
export { ConsoleError, errorAnswer } from './errors.js'
export {
  parseJsonPath,
  parseRecordFilter,
  lookup,
  matchesJsonPath,
  recordMatches,
  type RecordFilter,
  type JsonPathFilter,
  type PathStep,
} from './messages/record-filter.js'
export { bytesView, parseJsonText, MAX_SHOWN_BYTES, type BytesView, type MessageView } from './messages/record-view.js'
export { partitionLags, totalLag, type PartitionLag } from './group-lag.js'
export { Router } from './http/router.js'
