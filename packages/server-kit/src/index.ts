// What every Sluice server process (broker, metadata service) shares and the SDK never needs:
// the admin HTTP endpoint and its metrics helpers (prom-client), process config loading, and the
// serial queue. Kept out of @sluice/protocol so that package holds codecs and contracts only.
export * from './admin/admin-server.js'
export * from './admin/process-admin.js'
export * from './admin/cell-metrics.js'
export * from './admin/rpc-metrics.js'
export * from './admin/registry.js'
export * from './admin/instrument-service.js'
export * from './config-layers.js'
export * from './serial-queue.js'
export * from './v8-tuning.js'
