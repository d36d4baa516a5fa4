/**
 * Staleness guard for the committed wire types: regenerates them from proto/ into a temp dir
 * with the same script `pnpm gen` runs and requires the committed tree to match file for file.
 * If this fails, someone edited a .proto (or the generator) without running `pnpm gen`.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const committed = join(root, 'packages/protocol/src/generated')

/** Every file under `dir`, as sorted '/'-separated relative paths. */
async function listFiles(dir: string, base = dir): Promise<string[]> {
  const files: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) files.push(...(await listFiles(path, base)))
    else files.push(relative(base, path).split('\\').join('/'))
  }
  return files.sort()
}

describe('generated wire types', () => {
  let tmp: string | undefined
  afterEach(async () => {
    if (tmp !== undefined) await rm(tmp, { recursive: true, force: true })
    tmp = undefined
  })

  it('packages/protocol/src/generated is up to date with proto/ (run `pnpm gen` if not)', async () => {
    tmp = await mkdtemp(join(tmpdir(), 'sluice-gen-'))
    const out = join(tmp, 'generated')
    execFileSync(process.execPath, [join(root, 'scripts/gen-proto-types.mjs'), '--out', out], {
      cwd: root,
      stdio: 'pipe',
    })
    const fresh = await listFiles(out)
    const current = await listFiles(committed)
    expect(fresh.length).toBeGreaterThan(1)
    expect(current).toEqual(fresh)
    const stale: string[] = []
    for (const file of fresh) {
      const [a, b] = await Promise.all([readFile(join(out, file), 'utf8'), readFile(join(committed, file), 'utf8')])
      if (a !== b) stale.push(file)
    }
    expect(stale, 'generated files differ from proto/; run `pnpm gen`').toEqual([])
  })
})
