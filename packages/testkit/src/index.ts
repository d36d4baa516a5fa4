export { startCluster, type Cluster, type StartClusterOptions } from './cluster.js'
export {
  spawnProcess,
  type SpawnProcessOptions,
  type SpawnedProcess,
  type ExitInfo,
} from './spawn-process.js'
export {
  spawnMetadata,
  spawnBroker,
  spawnCluster,
  type SpawnMetadataOptions,
  type SpawnBrokerOptions,
  type SpawnClusterOptions,
  type SpawnedCluster,
  type CommonSpawnOptions,
} from './spawn-servers.js'
export { SERVER_NODE_FLAGS, serverMainPath, type ServerPackage } from './paths.js'
export { stopAll, liveResources } from './tracker.js'
export { useCluster, useSpawnedCluster, type CleanupHook } from './use-cluster.js'
export { waitFor, withTimeout, type WaitOptions } from './wait.js'
export { waitForBrokers } from './wait-for-brokers.js'
export { freePorts, isPortFree } from './ports.js'
export { defaultTestLogger } from './logger.js'
export * from './zookeeper.js'
export { readZooKeeperTree } from './zookeeper-tree.js'
export * from './postgres.js'
export { connectRest, type RestAnswer, type RestJson } from './connect-rest.js'
export { postgresSourceConfig } from './postgres-connector.js'
