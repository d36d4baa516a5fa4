/**
 * The workspace's dependency rules (docs/decisions.md, "Test layers"), checked on the real tree:
 * every import is declared by the project that makes it, no relative import crosses a project,
 * the workspace graph has no cycle, and only the layers above the servers depend on them. The
 * first tests pin the checker itself on small inputs, so a checker that finds nothing cannot
 * pass unnoticed.
 */
import { describe, expect, it } from 'vitest'
import {
  directionViolations,
  importSpecifiers,
  importViolations,
  isBundledSource,
  isTestFile,
  packageOf,
  readWorkspace,
  referenceMismatches,
  workspaceCycles,
  type Workspace,
  type WorkspaceProject,
} from '../../src/workspace-graph.js'

function project(
  name: string,
  dir: string,
  dependencies: string[] = [],
  devDependencies: string[] = [],
): WorkspaceProject {
  return { name, dir, dependencies: new Set(dependencies), devDependencies: new Set(devDependencies) }
}

function workspace(projects: WorkspaceProject[]): Workspace {
  return { root: '/nowhere', rootDevDependencies: new Set(['vitest']), projects }
}

describe('workspace graph checker', () => {
  it('reads static, re-exported, dynamic, type-position and require() specifiers, and not those in comments or strings', () => {
    const source = [
      "// import { a } from 'commented-out'",
      "import { b } from 'b'",
      "import type { C } from '@scope/c/internal'",
      "export * from './d.js'",
      'const s = "import { z } from \'in-a-string\'"',
      "let t: import('typed').T",
      "const m = await import('dynamic')",
      "const r = require('required')",
    ].join('\n')
    expect(importSpecifiers(source)).toEqual(['b', '@scope/c/internal', './d.js', 'typed', 'dynamic', 'required'])
    expect(packageOf('@scope/c/internal')).toBe('@scope/c')
    expect(packageOf('vitest/config')).toBe('vitest')
  })

  it("tells a package's test code from its shipped code", () => {
    const client = project('@x/client', 'packages/client')
    expect(isTestFile(client, 'packages/client/src/producer/sender.ts')).toBe(false)
    expect(isTestFile(client, 'packages/client/src/producer/sender.test.ts')).toBe(true)
    expect(isTestFile(client, 'packages/client/src/__fixtures__/fake-cluster.ts')).toBe(true)
    expect(isTestFile(client, 'packages/client/bench/client-paths.bench.ts')).toBe(true)
    expect(isTestFile(project('@x/test-int', 'test-int'), 'test-int/src/client/real-cluster.ts')).toBe(true)
  })

  it("tells a package's bundled web sources (build inputs) from what Node loads", () => {
    const consolePkg = project('@x/console', 'packages/console')
    expect(isBundledSource(consolePkg, 'packages/console/web/src/app.tsx')).toBe(true)
    expect(isBundledSource(consolePkg, 'packages/console/src/console-server.ts')).toBe(false)
    expect(isBundledSource(consolePkg, 'packages/console/src/web-assets.ts')).toBe(false)
  })

  it('finds cycles, including those closed by a devDependency, and server dependencies below the servers', () => {
    const cyclic = workspace([
      project('@sluice/broker', 'packages/broker', ['@sluice/protocol'], ['@sluice/metadata']),
      project('@sluice/client', 'packages/client', ['@sluice/protocol'], ['@sluice/broker']),
      project('@sluice/metadata', 'packages/metadata', ['@sluice/protocol', '@sluice/client']),
      project('@sluice/protocol', 'packages/protocol'),
      project('@sluice/testkit', 'packages/testkit', ['@sluice/broker', '@sluice/metadata']),
    ])
    expect(workspaceCycles(cyclic)).toEqual(['@sluice/broker -> @sluice/metadata -> @sluice/client -> @sluice/broker'])
    expect(directionViolations(cyclic)).toEqual([
      '@sluice/broker (packages/broker) depends on the server package @sluice/metadata; only @sluice/testkit, @sluice/test-int, @sluice/test-e2e, @sluice/bench may',
      '@sluice/client (packages/client) depends on the server package @sluice/broker; only @sluice/testkit, @sluice/test-int, @sluice/test-e2e, @sluice/bench may',
    ])
  })
})

describe('the workspace', () => {
  const ws = readWorkspace()

  it('has the projects pnpm-workspace.yaml names, test-int among them', () => {
    expect(ws.projects.map((p) => p.dir)).toEqual(
      expect.arrayContaining(['packages/protocol', 'packages/client', 'test-int', 'test-e2e', 'bench']),
    )
  })

  it('imports only declared packages (test code may also use devDependencies), and never across projects by relative path', () => {
    const found = importViolations(ws).map((v) => `${v.file}: '${v.specifier}': ${v.reason}`)
    expect(found, `imports that break the rules:\n${found.join('\n')}`).toEqual([])
  })

  it('has no cycle in the workspace graph (dependencies and devDependencies)', () => {
    expect(workspaceCycles(ws)).toEqual([])
  })

  it('lets only testkit, test-int, test-e2e and bench depend on the broker or the metadata service', () => {
    expect(directionViolations(ws)).toEqual([])
  })

  it("has tsconfig references that mirror each package's workspace dependencies", () => {
    expect(referenceMismatches(ws)).toEqual([])
  })
})
