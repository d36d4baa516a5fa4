/**
 * Test-framework glue without a test-framework dependency: the caller passes its cleanup hook
 * (vitest's `onTestFinished` or `afterAll`, node:test's `t.after`), and the cluster is stopped
 * through it, registered the moment the cluster exists.
 *
 *   const cluster = await useCluster(onTestFinished, { brokers: 3 })
 */
import { startCluster, type Cluster, type StartClusterOptions } from './cluster.js'
import { spawnCluster, type SpawnClusterOptions, type SpawnedCluster } from './spawn-servers.js'

export type CleanupHook = (cleanup: () => Promise<void>) => unknown

export async function useCluster(hook: CleanupHook, options?: StartClusterOptions): Promise<Cluster> {
  const cluster = await startCluster(options)
  hook(async () => await cluster.stop())
  return cluster
}

export async function useSpawnedCluster(hook: CleanupHook, options?: SpawnClusterOptions): Promise<SpawnedCluster> {
  const cluster = await spawnCluster(options)
  hook(async () => await cluster.stop())
  return cluster
}
