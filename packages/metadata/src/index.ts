/**
 * @sluice/metadata: the metadata service (controller, embedded store) as a library.
 * Only testkit, test-e2e and bench start it in process; everything else talks to it over gRPC.
 */
export { startMetadataServer } from './server/metadata-server.js'
export type { MetadataServerOptions, MetadataServerHandle } from './server/metadata-server.js'
export type {
  MetadataStore, CreateMode, CreateOptions, NodeData, NodeStat, SessionId, StoreOp, StoreOpResult,
  WatchCallback, WatchEvent, WatchEventType, CancelWatch,
} from './store/metadata-store.js'
