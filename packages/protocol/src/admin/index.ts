// The admin endpoint and metrics helpers shared by the broker and the metadata service
// (`@sluice/protocol/admin`): kept out of the main entry so the SDK never loads prom-client.
export * from './admin-server.js'
export * from './rpc-metrics.js'
export * from './registry.js'
export * from './instrument-service.js'
