/**
 * @sluice/metadata: the metadata service (controller, embedded store) as a library.
 * Only testkit, test-int, test-e2e and bench start it in process; everything else talks to it
 * over gRPC.
 */
export { startMetadataServer } from './server/metadata-server.js'
export type { MetadataServerOptions, MetadataServerHandle, MetadataServerStatus } from './server/metadata-server.js'
/** Opens the ZooKeeper-backed store directly: for tools and tests that inspect the tree. */
export { ZooKeeperStore } from './store/zookeeper-store.js'
export type { ZooKeeperStoreOptions } from './store/zookeeper-store.js'
export type {
  MetadataStore,
  CreateMode,
  CreateOptions,
  NodeData,
  NodeStat,
  SessionId,
  StoreOp,
  StoreOpResult,
  WatchCallback,
  WatchEvent,
  WatchEventType,
  CancelWatch,
} from './store/metadata-store.js'
