/**
 * Every citation of the repo's docs (`docs/design.md §4`) resolves inside the repo, and nothing
 * cites a page that only exists outside it (docs/decisions.md, "Docs the code cites"). The first
 * test pins the checker on small inputs, so a checker that finds nothing cannot pass unnoticed.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { brokenCitations, readRepoFiles, sectionsOf } from '../../src/doc-citations.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
const CHECKER = new Set(['test-int/src/doc-citations.ts', 'test-int/specs/workspace/doc-citations.int.test.ts'])

describe('doc citations', () => {
  it('finds missing pages, missing sections and pages outside the repo', () => {
    const pages = new Map([
      ['design.md', '# Title\n## 1. Shape\n## 4. Storage\n'],
      ['facts.md', '### 3.2 Followers\n'],
    ])
    expect([...sectionsOf(pages.get('design.md')!)]).toEqual(['1', '4'])
    const broken = brokenCitations(
      [
        { file: 'a.ts', source: '// docs/design.md §4 and docs/facts.md §3.2\n// docs/design.md §5\n' },
        { file: 'b.ts', source: '// docs/nowhere.md\n// (DESIGN.md §2)\n// shared/reference/x.md\n' },
      ],
      pages,
    )
    expect(broken.map((b) => `${b.file}:${b.line} ${b.reason}`)).toEqual([
      'a.ts:2 docs/design.md has no section 5',
      'b.ts:2 cites a page outside the repo',
      'b.ts:3 cites a page outside the repo',
      'b.ts:1 docs/nowhere.md does not exist',
    ])
  })

  it('every citation in the repo resolves to a page and section under docs/', () => {
    const docs = new Map(
      readdirSync(path.join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => [f, readFileSync(path.join(ROOT, 'docs', f), 'utf8')] as const),
    )
    const files = readRepoFiles(ROOT, [
      'packages',
      'test-int',
      'test-e2e',
      'bench',
      'docs',
      'deploy',
      'scripts',
      'proto',
    ]).filter((f) => !CHECKER.has(f.file))
    files.push({ file: 'README.md', source: readFileSync(path.join(ROOT, 'README.md'), 'utf8') })
    files.push({ file: 'BENCHMARKS.md', source: readFileSync(path.join(ROOT, 'BENCHMARKS.md'), 'utf8') })
    expect(files.length).toBeGreaterThan(100)
    const broken = brokenCitations(files, docs)
    expect(broken.map((b) => `${b.file}:${b.line}: ${b.reason}: ${b.text}`)).toEqual([])
  })
})
