import { defineConfig } from 'vitest/config'

// Workspace packages resolve to their TypeScript sources through the "sluice-source" export
// condition, so unit and in-process tests need no build. e2e tests spawn the built dist/ output.
const conditions = ['sluice-source', 'node', 'import', 'default']
// Vitest also hands the SSR conditions to the test processes as `node --conditions`, where
// `import` would make a CommonJS package's require() pick an ES module (pg's require of
// pg-pool then fails); Vite adds import/require by the kind of import anyway.
const ssrConditions = conditions.filter((c) => c !== 'import')

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions: ssrConditions, externalConditions: ['sluice-source'] } },
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // bench/src holds pure helpers with unit tests too (the anatomy's join); never a benchmark.
          // packages/console/web/src: the console page's pure helpers (formatting, chart scale, SSE parsing).
          include: ['packages/*/src/**/*.test.ts', 'packages/console/web/src/**/*.test.ts', 'bench/src/**/*.test.ts'],
        },
      },
      {
        // In-process tests that start servers of several packages (test-int/README.md).
        extends: true,
        test: {
          name: 'int',
          include: ['test-int/specs/**/*.int.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test-e2e/specs/**/*.e2e.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
})
