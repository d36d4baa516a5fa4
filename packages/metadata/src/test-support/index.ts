/**
 * Test support of the metadata service, for this package's tests and the layers above it
 * (test-int): a real metadata server with fake brokers, raw gRPC clients for the Metadata and
 * GroupCoordinator services. Exported as `@sluice/metadata/test-support` under the
 * "sluice-source" condition only, so it resolves in vitest and never ships in dist/.
 */
export * from './harness.js'
export * from './group-client.js'
