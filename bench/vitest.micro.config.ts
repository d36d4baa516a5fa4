/**
 * Micro-benchmarks (`pnpm bench:micro`): packages/<p>/bench/*.bench.ts under `vitest bench`,
 * against the TypeScript sources (the "sluice-source" condition, as the tests use). Kept apart
 * from the root vitest.config.ts so `pnpm test` never runs a benchmark, and so benchmarks never
 * run a test (no test include here).
 */
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const conditions = ['sluice-source', 'node', 'import', 'default']

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['sluice-source'] } },
  test: {
    pool: 'forks',
    include: [],
    benchmark: {
      include: ['packages/*/bench/**/*.bench.ts'],
    },
  },
})
