/**
 * No file in the repo keeps a merge-conflict marker: a conflicted doc once landed with both sides
 * and the markers in it, and nothing else would have noticed.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { readRepoFiles } from '../../src/doc-citations.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
// Built from parts so this file does not contain the markers it looks for.
const MARKER = new RegExp(`^(${'<'.repeat(7)} |${'>'.repeat(7)} |${'='.repeat(7)}$)`, 'm')

function markedFiles(files: ReadonlyArray<{ file: string; source: string }>): string[] {
  return files.filter((f) => MARKER.test(f.source)).map((f) => f.file)
}

describe('merge markers', () => {
  it('finds a marker at the start of a line and nowhere else', () => {
    expect(
      markedFiles([
        { file: 'a.md', source: `x\n${'<'.repeat(7)} HEAD\ny\n` },
        { file: 'b.md', source: `x\n${'='.repeat(7)}\n` },
        { file: 'c.md', source: `a ${'>'.repeat(7)} b\n${'='.repeat(8)}\n` },
      ]),
    ).toEqual(['a.md', 'b.md'])
  })

  it('no source or doc file in the repo has one', () => {
    const files = readRepoFiles(ROOT, [
      'packages',
      'test-int',
      'test-e2e',
      'bench',
      'docs',
      'deploy',
      'scripts',
      'examples',
    ])
    for (const f of ['README.md', 'BENCHMARKS.md'])
      files.push({ file: f, source: readFileSync(path.join(ROOT, f), 'utf8') })
    expect(files.length).toBeGreaterThan(100)
    expect(markedFiles(files)).toEqual([])
  })
})
