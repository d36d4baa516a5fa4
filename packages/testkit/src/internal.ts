export * from './index.js'
export { track, trackChild } from './tracker.js'
