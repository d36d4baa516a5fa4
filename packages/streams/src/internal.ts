/** For sibling packages and tests only; not a stable API. */
export * from './index.js'
export type * from './runtime/task-contract.js'
export type { ChangelogRecord, ChangelogWriter, StateStoreContext } from './state/store-types.js'
