/** For sibling packages and tests only; not a stable API. */
export * from './index.js'
