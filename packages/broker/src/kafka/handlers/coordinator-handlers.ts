/**
 * The Kafka APIs this broker answers through the metadata service (group membership and offsets,
 * topic and config administration, producer ids), plus FindCoordinator and DescribeCluster,
 * which point Kafka clients at this broker for them. The listener registers these beside its
 * own handlers.
 */
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { alterConfigsHandler } from './alter-configs-handler.js'
import { createPartitionsHandler } from './create-partitions-handler.js'
import { createTopicsHandler } from './create-topics-handler.js'
import { deleteGroupsHandler } from './delete-groups-handler.js'
import { deleteTopicsHandler } from './delete-topics-handler.js'
import { describeClusterHandler } from './describe-cluster-handler.js'
import { describeConfigsHandler } from './describe-configs-handler.js'
import { describeGroupsHandler } from './describe-groups-handler.js'
import { findCoordinatorHandler } from './find-coordinator-handler.js'
import { heartbeatHandler } from './heartbeat-handler.js'
import { incrementalAlterConfigsHandler } from './incremental-alter-configs-handler.js'
import { initProducerIdHandler } from './init-producer-id-handler.js'
import { joinGroupHandler } from './join-group-handler.js'
import { leaveGroupHandler } from './leave-group-handler.js'
import { listGroupsHandler } from './list-groups-handler.js'
import { offsetCommitHandler } from './offset-commit-handler.js'
import { offsetFetchHandler } from './offset-fetch-handler.js'
import { syncGroupHandler } from './sync-group-handler.js'

export {
  alterConfigsHandler,
  createPartitionsHandler,
  createTopicsHandler,
  deleteGroupsHandler,
  deleteTopicsHandler,
  describeClusterHandler,
  describeConfigsHandler,
  describeGroupsHandler,
  findCoordinatorHandler,
  heartbeatHandler,
  incrementalAlterConfigsHandler,
  initProducerIdHandler,
  joinGroupHandler,
  leaveGroupHandler,
  listGroupsHandler,
  offsetCommitHandler,
  offsetFetchHandler,
  syncGroupHandler,
}

// biome-ignore lint/suspicious/noExplicitAny: a list of handlers of different request types
export const coordinatorHandlers: ReadonlyArray<KafkaApiHandler<any, any>> = [
  offsetCommitHandler,
  offsetFetchHandler,
  findCoordinatorHandler,
  joinGroupHandler,
  heartbeatHandler,
  leaveGroupHandler,
  syncGroupHandler,
  describeGroupsHandler,
  listGroupsHandler,
  createTopicsHandler,
  deleteTopicsHandler,
  initProducerIdHandler,
  describeConfigsHandler,
  alterConfigsHandler,
  createPartitionsHandler,
  deleteGroupsHandler,
  incrementalAlterConfigsHandler,
  describeClusterHandler,
]
