/**
 * Where the built server entry points are. Resolved from this module's own location (src/ and
 * dist/ are both one level below the package root), never from the cwd, so tests, the CLI and
 * benchmarks find them from any directory. The servers are reached through testkit's own
 * node_modules links (its declared dependencies), falling back to the sibling package folders.
 */
import { existsSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export type ServerPackage = 'metadata' | 'broker'

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

function serverPackageDir(pkg: ServerPackage): string {
  const linked = path.join(packageRoot, 'node_modules', '@sluice', pkg)
  if (existsSync(linked)) return realpathSync(linked)
  return path.resolve(packageRoot, '..', pkg)
}

/**
 * The `node` flags a server process starts with, before its main module. V8 reads them only at
 * start, so they cannot be set from inside (server-kit/src/v8-tuning.ts sets the ones that can).
 * `--no-memory-reducer`: V8's memory reducer runs full collections when the allocation rate drops
 * (about 8 s after a load falls, and every 100 s of light load) to give memory back, which suits a
 * browser tab, not a server holding its working set. At 200 records/s each one cost a broker about
 * 2 % of a core for 20 s (BENCHMARKS.md, issue 16). Every launcher passes the same flags: spawned
 * servers here, and the `sluice`, `sluice-broker` and `sluice-metadata` commands and the container
 * image's launcher, whose copies a test compares with this list (server-node-flags.test.ts).
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--no-memory-reducer']

/** Absolute path of `packages/<pkg>/dist/main.js` (which may not be built yet). */
export function serverMainPath(pkg: ServerPackage): string {
  return path.join(serverPackageDir(pkg), 'dist', 'main.js')
}
