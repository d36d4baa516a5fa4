export { startBroker } from './broker.js'
export type { BrokerOptions, BrokerHandle } from './broker.js'
export * from './log/index.js'
