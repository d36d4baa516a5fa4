/** TEST FIXTURES of the streams runtime (exported as @sluice/streams/runtime-fixtures, sources only). */
export { MapCountStore } from './map-store.js'
export {
  wordCountPlan,
  newProbe,
  repartitionTopicOf,
  type WordCountFixtureOptions,
  type WordCountProbe,
} from './word-count-plan.js'
