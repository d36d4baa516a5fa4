import { describe, expect, it } from 'vitest'
import { existsSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { DEFAULT_MAX_OPEN_FILES } from './file-handle-cache.js'
import { MAX_DEFAULT_OPEN_FILES, maxOpenFilesFor, parseOpenFileLimit } from './open-file-limit.js'

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            20000                1048576              files
Max locked memory         8388608              8388608              bytes
`

describe('open-file limit', () => {
  it('reads the soft limit, not the hard one', () => {
    expect(parseOpenFileLimit(LIMITS)).toBe(20000)
    expect(parseOpenFileLimit(LIMITS.replace('20000 ', 'unlimited'))).toBe(Infinity)
    expect(parseOpenFileLimit('Max cpu time unlimited unlimited seconds\n')).toBeUndefined()
    expect(parseOpenFileLimit('Max open files            lots       lots      files\n')).toBeUndefined()
  })

  it('defaults to half the limit within bounds, and to 512 when it is unknown', () => {
    expect(maxOpenFilesFor(1024)).toBe(512)
    expect(maxOpenFilesFor(20000)).toBe(10000)
    expect(maxOpenFilesFor(Infinity)).toBe(MAX_DEFAULT_OPEN_FILES)
    expect(maxOpenFilesFor(10)).toBe(16)
    expect(maxOpenFilesFor(undefined)).toBe(DEFAULT_MAX_OPEN_FILES)
  })

  it.runIf(existsSync('/proc/self/limits'))('follows the limit a process is started with', () => {
    // The real /proc format of a process started under `ulimit -n 300`.
    const out = execFileSync('bash', ['-c', 'ulimit -n 300 && cat /proc/self/limits'], { encoding: 'utf8' })
    expect(maxOpenFilesFor(parseOpenFileLimit(out))).toBe(150)
  })
})
