/**
 * Reads the workspace's package.json files and the import specifiers of every source file, and
 * lists what breaks the dependency rules of docs/decisions.md ("Test layers"):
 *
 * - a file imports a package its own project does not declare (node builtins are always fine; a
 *   package's test files, fixtures and micro-benchmarks may also import its devDependencies and
 *   the root's, which is where vitest and fast-check come from);
 * - a relative import leaves the project the file belongs to (packages meet through their
 *   `@sluice/x` or `@sluice/x/internal` entry points only);
 * - the workspace graph (dependencies and devDependencies between workspace projects, the edges
 *   pnpm orders installs and builds by) has a cycle;
 * - a project declares a server package (broker, metadata) without being one of the layers above
 *   the servers (testkit, test-int, test-e2e, bench). So broker and metadata never depend on
 *   each other, and the SDK never depends on a server, not even for its tests;
 * - a package's tsconfig.json `references` differ from its workspace dependencies.
 *
 * Import specifiers come from TypeScript's own pre-processor (`ts.preProcessFile`), which finds
 * static imports, `export ... from`, `import('...')` (also in type positions) and `require('...')`,
 * and skips comments and string contents.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

/** The repository root (this file is test-int/src/workspace-graph.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Server packages: only the layers in SERVER_IMPORTERS may depend on them. */
export const SERVER_PACKAGES: readonly string[] = ['@sluice/broker', '@sluice/metadata']
export const SERVER_IMPORTERS: readonly string[] = [
  '@sluice/testkit',
  '@sluice/test-int',
  '@sluice/test-e2e',
  '@sluice/bench',
]

/**
 * Projects that are test code as a whole (every file may import devDependencies). In the
 * packages under packages/, only test files, fixtures and micro-benchmarks may.
 */
const TEST_PROJECTS: readonly string[] = ['test-int', 'test-e2e', 'bench']

const SOURCE_EXTENSIONS = ['.ts', '.mts', '.cts', '.mjs', '.js']
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'results', 'coverage'])

export interface WorkspaceProject {
  readonly name: string
  /** Directory relative to the root, with forward slashes (`packages/client`). */
  readonly dir: string
  readonly dependencies: ReadonlySet<string>
  readonly devDependencies: ReadonlySet<string>
}

export interface Workspace {
  readonly root: string
  readonly rootDevDependencies: ReadonlySet<string>
  readonly projects: readonly WorkspaceProject[]
}

interface PackageJson {
  name?: string
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
}

function readPackageJson(dir: string): PackageJson {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson
}

/** The `packages:` globs of pnpm-workspace.yaml (only `dir` and `dir/*` forms are used here). */
function workspaceGlobs(root: string): string[] {
  const globs: string[] = []
  let inPackages = false
  for (const line of readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8').split('\n')) {
    if (/^\S/.test(line)) inPackages = line.startsWith('packages:')
    else if (inPackages) {
      const m = /^\s+-\s+['"]?([^'"#\s]+)['"]?/.exec(line)
      if (m !== null) globs.push(m[1]!)
    }
  }
  return globs
}

export function readWorkspace(root: string = REPO_ROOT): Workspace {
  const dirs: string[] = []
  for (const glob of workspaceGlobs(root)) {
    if (glob.endsWith('/*')) {
      const parent = glob.slice(0, -2)
      for (const entry of readdirSync(join(root, parent), { withFileTypes: true })) {
        if (entry.isDirectory() && existsSync(join(root, parent, entry.name, 'package.json')))
          dirs.push(`${parent}/${entry.name}`)
      }
    } else if (existsSync(join(root, glob, 'package.json'))) {
      dirs.push(glob)
    } else {
      throw new Error(
        `pnpm-workspace.yaml names ${glob}, which has no package.json (or is a glob this reader does not expand)`,
      )
    }
  }
  const projects = dirs.sort().map((dir): WorkspaceProject => {
    const pkg = readPackageJson(join(root, dir))
    if (pkg.name === undefined) throw new Error(`${dir}/package.json has no name`)
    return {
      name: pkg.name,
      dir,
      dependencies: new Set([
        ...Object.keys(pkg.dependencies ?? {}),
        ...Object.keys(pkg.peerDependencies ?? {}),
        ...Object.keys(pkg.optionalDependencies ?? {}),
      ]),
      devDependencies: new Set(Object.keys(pkg.devDependencies ?? {})),
    }
  })
  return { root, rootDevDependencies: new Set(Object.keys(readPackageJson(root).devDependencies ?? {})), projects }
}

/** Every source file of a project, relative to the root, with forward slashes. */
export function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = []
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith('.')) walk(child)
      } else if (SOURCE_EXTENSIONS.some((ext) => entry.name.endsWith(ext)) && !entry.name.endsWith('.d.ts')) {
        out.push(child)
      }
    }
  }
  walk(dir)
  return out.sort()
}

/** The module specifiers a source text imports, re-exports, loads with import() or require(). */
export function importSpecifiers(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName)
}

/** Whether a file is test code of its package: tests, fixtures, test support, micro-benchmarks. */
export function isTestFile(project: WorkspaceProject, file: string): boolean {
  if (TEST_PROJECTS.includes(project.dir)) return true
  const inner = file.slice(project.dir.length + 1)
  return (
    /\.(test|bench)\.[cm]?[jt]s$/.test(inner) ||
    inner.startsWith('bench/') ||
    inner.split('/').some((segment) => segment === '__fixtures__' || segment === 'test-support')
  )
}

/**
 * Whether a file is a front-end source that a bundler compiles at build time (a package's `web/`
 * folder, e.g. the console's page, built by vite into its dist/web): what it imports is a build
 * input, never loaded by Node at run time, so devDependencies serve it as they serve tests.
 */
export function isBundledSource(project: WorkspaceProject, file: string): boolean {
  return file.slice(project.dir.length + 1).startsWith('web/')
}

/** `@scope/name/sub/path` -> `@scope/name`; `name/sub` -> `name`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!
}

const BUILTINS = new Set(builtinModules)

function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || BUILTINS.has(specifier) || BUILTINS.has(specifier.split('/')[0]!)
}

export interface ImportViolation {
  readonly file: string
  readonly specifier: string
  readonly reason: string
}

/** Imports of undeclared packages and relative imports that leave their project. */
export function importViolations(workspace: Workspace): ImportViolation[] {
  const violations: ImportViolation[] = []
  for (const project of workspace.projects) {
    const projectRoot = join(workspace.root, project.dir)
    for (const file of sourceFiles(workspace.root, project.dir)) {
      const buildInputOrTest = isTestFile(project, file) || isBundledSource(project, file)
      for (const specifier of importSpecifiers(readFileSync(join(workspace.root, file), 'utf8'))) {
        if (specifier.startsWith('.') || specifier.startsWith('/')) {
          const target = resolve(dirname(join(workspace.root, file)), specifier)
          const inside = relative(projectRoot, target)
          if (inside.startsWith('..') || inside.startsWith(sep)) {
            const into = packageOfPath(workspace, target)
            violations.push({
              file,
              specifier,
              reason: `relative import leaves ${project.dir}${into === undefined ? '' : ` into ${into} (import its entry point instead)`}`,
            })
          }
          continue
        }
        if (isBuiltin(specifier)) continue
        const pkg = packageOf(specifier)
        if (pkg === project.name || project.dependencies.has(pkg)) continue
        if (buildInputOrTest && (project.devDependencies.has(pkg) || workspace.rootDevDependencies.has(pkg))) continue
        const where = project.devDependencies.has(pkg)
          ? ' (only a devDependency, and this is neither a test file nor a bundled web source)'
          : ''
        violations.push({ file, specifier, reason: `${project.dir}/package.json does not declare ${pkg}${where}` })
      }
    }
  }
  return violations
}

function packageOfPath(workspace: Workspace, absolute: string): string | undefined {
  const rel = relative(workspace.root, absolute).split(sep).join('/')
  return workspace.projects.find((p) => rel === p.dir || rel.startsWith(`${p.dir}/`))?.name
}

/** Workspace projects a project depends on (dependencies and devDependencies). */
function workspaceEdges(workspace: Workspace, project: WorkspaceProject): string[] {
  const names = new Set(workspace.projects.map((p) => p.name))
  return [...project.dependencies, ...project.devDependencies].filter((d) => names.has(d) && d !== project.name).sort()
}

/** Every elementary cycle found by a depth-first walk, each as `a -> b -> a`. */
export function workspaceCycles(workspace: Workspace): string[] {
  const byName = new Map(workspace.projects.map((p) => [p.name, p]))
  const cycles = new Set<string>()
  const visit = (name: string, path: string[]): void => {
    const at = path.indexOf(name)
    if (at >= 0) {
      const cycle = path.slice(at)
      // Rotate so the same cycle found from another start is reported once.
      const first = cycle.indexOf([...cycle].sort()[0]!)
      const rotated = [...cycle.slice(first), ...cycle.slice(0, first)]
      cycles.add([...rotated, rotated[0]].join(' -> '))
      return
    }
    for (const next of workspaceEdges(workspace, byName.get(name)!)) visit(next, [...path, name])
  }
  for (const project of workspace.projects) visit(project.name, [])
  return [...cycles].sort()
}

/** Projects that depend on a server package without being a layer above the servers. */
export function directionViolations(workspace: Workspace): string[] {
  const out: string[] = []
  for (const project of workspace.projects) {
    if (SERVER_IMPORTERS.includes(project.name)) continue
    for (const dep of workspaceEdges(workspace, project)) {
      if (SERVER_PACKAGES.includes(dep))
        out.push(
          `${project.name} (${project.dir}) depends on the server package ${dep}; only ${SERVER_IMPORTERS.join(', ')} may`,
        )
    }
  }
  return out
}

/**
 * Projects whose tsconfig.json `references` differ from the workspace packages in their
 * `dependencies` (docs/design.md §1: references mirror the `workspace:*` deps, so `tsc -b` builds every
 * package after what it imports). Projects without a tsconfig.json, or without references and
 * composite output (test-int, test-e2e), are not checked.
 */
export function referenceMismatches(workspace: Workspace): string[] {
  const byDir = new Map(workspace.projects.map((p) => [p.dir, p.name]))
  const names = new Set(workspace.projects.map((p) => p.name))
  const out: string[] = []
  for (const project of workspace.projects) {
    const file = join(workspace.root, project.dir, 'tsconfig.json')
    if (!existsSync(file)) continue
    const config = JSON.parse(readFileSync(file, 'utf8')) as { references?: Array<{ path: string }> }
    if (config.references === undefined) continue
    const referenced = config.references
      .map(
        (r) =>
          byDir.get(
            relative(workspace.root, resolve(workspace.root, project.dir, r.path))
              .split(sep)
              .join('/'),
          ) ?? r.path,
      )
      .sort()
    const declared = [...project.dependencies].filter((d) => names.has(d) && d !== project.name).sort()
    if (referenced.join() !== declared.join()) {
      out.push(
        `${project.dir}/tsconfig.json references [${referenced.join(', ')}] but package.json depends on [${declared.join(', ')}]`,
      )
    }
  }
  return out
}
