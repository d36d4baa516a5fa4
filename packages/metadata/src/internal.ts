// Siblings and tests only: the building blocks of the metadata service.
export * from './index.js'
export {
  startMetadataServerInternal,
  DEFAULT_CONTROLLER_ID,
  type InternalMetadataServerOptions,
} from './server/metadata-server.js'
export { EmbeddedStore, JOURNAL_FILE, type EmbeddedStoreOptions } from './store/embedded-store.js'
export { mkdirp, assertValidPath, parentOf, baseName, joinPath } from './store/metadata-store.js'
export { Controller, type ControllerOptions, type BrokerSink } from './controller/controller.js'
export {
  assignReplicas,
  seededRandomInt,
  mathRandomInt,
  type RandomInt,
  type PlacementRequest,
} from './controller/placement.js'
export * from './controller/partition-election.js'
export * from './controller/layout.js'
export type { GroupCoordinatorOptions } from './group/group-config.js'
export { OFFSETS_TOPIC, decodeOffsetKey, decodeOffsetValue, partitionForGroup } from './group/offset-records.js'
export { metadataConfigSchema, parseMetadataConfig, type MetadataConfig } from './config.js'
