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

/** Absolute path of `packages/<pkg>/dist/main.js` (which may not be built yet). */
export function serverMainPath(pkg: ServerPackage): string {
  return path.join(serverPackageDir(pkg), 'dist', 'main.js')
}
