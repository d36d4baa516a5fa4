// Siblings and tests only; not a stable API. Everything of this package is already public.
export * from './index.js'
