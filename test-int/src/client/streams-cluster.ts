/**
 * What the streams integration specs share: a real cluster whose group coordinator rebalances
 * in tens of milliseconds (so an instance joining or leaving settles fast), and a silent logger.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Logger, SluiceClient } from '@sluice/client'
import { StreamsApp } from '@sluice/streams'
import { onTestFinished } from 'vitest'
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

/**
 * A started StreamsApp instance with the settings the specs use (fast commits and rebalances),
 * its state in a temp dir; closed and the dir removed when the test finishes.
 */
export async function startTestStreamsApp(
  client: SluiceClient,
  plan: ConstructorParameters<typeof StreamsApp>[0],
  applicationId: string,
  extra: { applicationServer?: string } = {},
): Promise<StreamsApp> {
  const stateDir = await mkdtemp(join(tmpdir(), 'sluice-streams-state-'))
  const instance = new StreamsApp(plan, {
    applicationId,
    client,
    stateDir,
    commitIntervalMs: 100,
    sessionTimeoutMs: 3000,
    heartbeatIntervalMs: 100,
    logger: quiet,
    ...extra,
  })
  onTestFinished(async () => {
    await instance.close().catch(() => {})
    await rm(stateDir, { recursive: true, force: true })
  })
  await instance.start()
  return instance
}
