/**
 * The coordinator's view of the cluster, from the controller in the same process: live
 * brokers' registered endpoints (the bootstrap of its client), partition counts, and creating
 * __consumer_offsets through the ordinary CreateTopics path (one journaled change).
 */
import { SluiceError, errorId } from '@sluice/protocol'
import type { Controller } from '../controller/controller.js'
import { createTopics } from '../controller/topic-commands.js'
import { OFFSETS_TOPIC } from './offset-records.js'
import type { ClusterAccess } from './offsets-log.js'

export function controllerClusterAccess(
  ctl: Controller,
): ClusterAccess & { partitionsOf: (topic: string) => number | undefined } {
  const partitionsOf = (topic: string): number | undefined => ctl.view.topics.get(topic)?.states.length
  return {
    partitionsOf,
    liveBrokerEndpoints: () =>
      ctl.view.liveBrokerIds().flatMap((id) => {
        const b = ctl.view.brokers.get(id)
        if (b === undefined) return []
        return [`${b.host.includes(':') && !b.host.startsWith('[') ? `[${b.host}]` : b.host}:${b.port}`]
      }),
    offsetsTopicPartitions: () => partitionsOf(OFFSETS_TOPIC),
    createOffsetsTopic: async (numPartitions, replicationFactor, configs) => {
      const res = await createTopics(ctl, {
        topics: [
          {
            name: OFFSETS_TOPIC,
            num_partitions: numPartitions,
            replication_factor: replicationFactor,
            assignments: [],
            configs,
          },
        ],
        validate_only: false,
        timeout_ms: 0,
      })
      const r = res.topics?.[0]
      if (r === undefined)
        throw new SluiceError('COORDINATOR_NOT_AVAILABLE', `creating ${OFFSETS_TOPIC} returned no result`)
      if ((r.error_code ?? 0) !== 0 && r.error_code !== errorId('TOPIC_ALREADY_EXISTS')) {
        throw new SluiceError('COORDINATOR_NOT_AVAILABLE', `creating ${OFFSETS_TOPIC} failed: ${r.error_message ?? ''}`)
      }
    },
  }
}
