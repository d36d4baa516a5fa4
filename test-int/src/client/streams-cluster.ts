/**
 * What the streams integration specs share: a real cluster whose group coordinator rebalances
 * in tens of milliseconds (so an instance joining or leaving settles fast), and a silent logger.
 */
import type { Logger } from '@sluice/client'
import { startRealCluster, type RealCluster } from './real-cluster.js'

export const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => quiet }

export function startStreamsCluster(prefix: string, offsetsTopicNumPartitions = 1): Promise<RealCluster> {
  return startRealCluster({
    prefix,
    metadata: {
      groupCoordinator: {
        minSessionTimeoutMs: 100,
        initialRebalanceDelayMs: 100,
        sweepIntervalMs: 20,
        offsetsTopicNumPartitions,
      },
    },
  })
}
