/**
 * Citations of the repo's own docs in code and docs (`docs/design.md §4`, `docs/kafka-facts.md
 * §3.2-3.3`) must resolve inside the repo: the page exists under docs/ and has a heading with the
 * cited section number. References to pages outside the repo (the design notes the project began
 * from) are refused, because a newcomer with only the clone cannot follow them.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'

export interface Citation {
  file: string
  line: number
  page: string
  section: string | undefined
}

/** Where a citation does not resolve, and why. */
export interface BrokenCitation {
  file: string
  line: number
  text: string
  reason: string
}

const CITATION = /docs\/([\w-]+\.md)(?:\s*§\s*([\d]+(?:\.[\d]+)?))?/g
// Pages that live outside the repo; a citation of them cannot be followed from a clone.
const OUTSIDE = /\bDESIGN(?:\.md)? *§|\bDESIGN\.md\b|shared\/reference\/|\bSTYLE\.md\b|environment-recipes\.md/

export function citationsIn(source: string, file: string): Citation[] {
  const out: Citation[] = []
  const lines = source.split('\n')
  for (let i = 0; i < lines.length; i++) {
    for (const m of lines[i]!.matchAll(CITATION)) out.push({ file, line: i + 1, page: m[1]!, section: m[2] })
  }
  return out
}

/** Section numbers a Markdown page defines in its headings: `## 4. Storage`, `### 3.2 How ...`. */
export function sectionsOf(markdown: string): Set<string> {
  const out = new Set<string>()
  for (const m of markdown.matchAll(/^#{1,6}\s+(\d+(?:\.\d+)?)[.\s]/gm)) out.add(m[1]!)
  return out
}

export function brokenCitations(
  files: ReadonlyArray<{ file: string; source: string }>,
  pages: ReadonlyMap<string, string>,
): BrokenCitation[] {
  const broken: BrokenCitation[] = []
  for (const { file, source } of files) {
    const lines = source.split('\n')
    for (let i = 0; i < lines.length; i++) {
      if (OUTSIDE.test(lines[i]!))
        broken.push({ file, line: i + 1, text: lines[i]!.trim(), reason: 'cites a page outside the repo' })
    }
    for (const c of citationsIn(source, file)) {
      const page = pages.get(c.page)
      const text = lines[c.line - 1]!.trim()
      if (page === undefined) broken.push({ file, line: c.line, text, reason: `docs/${c.page} does not exist` })
      else if (c.section !== undefined && !sectionsOf(page).has(c.section)) {
        broken.push({ file, line: c.line, text, reason: `docs/${c.page} has no section ${c.section}` })
      }
    }
  }
  return broken
}

const SOURCE_FILE = /\.(ts|mjs|js|md|sh|yml|yaml)$/
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', '.sluice', 'results', 'generated'])

/** Every source and doc file of the repo, with its text, by repo-relative path. */
export function readRepoFiles(root: string, dirs: readonly string[]): Array<{ file: string; source: string }> {
  const out: Array<{ file: string; source: string }> = []
  const walk = (dir: string): void => {
    for (const name of readdirSync(path.join(root, dir))) {
      if (SKIP_DIRS.has(name)) continue
      const rel = path.join(dir, name)
      if (statSync(path.join(root, rel)).isDirectory()) walk(rel)
      else if (SOURCE_FILE.test(name)) out.push({ file: rel, source: readFileSync(path.join(root, rel), 'utf8') })
    }
  }
  for (const d of dirs) walk(d)
  return out
}
