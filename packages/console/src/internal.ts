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
export { resetPlanView, resetSpecOf, type ResetPlanRow } from './reset-plan.js'
export {
  isStreamsGroup,
  runsStreamsAssignor,
  streamsDescribeView,
  streamsSourceTopics,
  STREAMS_PROTOCOL,
  type StreamsDescribeView,
  type StreamsGroupSnapshot,
  type StreamsInstanceView,
  type StreamsPartitionView,
  type StreamsTaskView,
} from './streams/streams-view.js'
export { parsePrometheusText, sumOf, type MetricSample } from './sampling/prometheus-text.js'
export { DemandLoop, SampleRing } from './sampling/demand-loop.js'
export { parseConnectUrl } from './routes/connect-routes.js'
export { DEFAULT_WEB_ROOT } from './http/static-assets.js'
