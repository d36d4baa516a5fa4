/** For sibling packages and tests only; not a stable API. */
export * from './index.js'
export type * from './runtime/task-contract.js'
export type { ChangelogRecord, ChangelogWriter, StateStoreContext } from './state/store-types.js'
// The group assignor the runtime plugs into its consumer, and its pure parts (docs/streams.md, "Task assignment").
export {
  StreamsPartitionAssignor,
  STREAMS_ASSIGNOR_NAME,
  withholdClaimed,
  type StreamsPartitionAssignorOptions,
  type StreamsTaskAssignment,
} from './runtime/assignment/streams-partition-assignor.js'
export {
  assignTasks,
  tasksOf,
  type TaskAssignmentInput,
  type TaskAssignment,
  type TaskAssignorMember,
  type MemberTasks,
  type SubtopologySources,
  type TaskSources,
} from './runtime/assignment/task-assignor.js'
export {
  encodeSubscriptionInfo,
  decodeSubscriptionInfo,
  encodeAssignmentInfo,
  decodeAssignmentInfo,
  STREAMS_USER_DATA_VERSION,
  type StreamsSubscriptionInfo,
  type StreamsAssignmentInfo,
  type TaskLag,
} from './runtime/assignment/streams-user-data.js'
