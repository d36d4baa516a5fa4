import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Logger } from '@sluice/client'
import { afterEach, describe, expect, it } from 'vitest'
import { checkpointPath, readCheckpoint, removeCheckpoint, writeCheckpoint } from './checkpoint.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function taskDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-checkpoint-'))
  dirs.push(dir)
  return dir
}

function recordingLogger(): Logger & { warnings: unknown[] } {
  const warnings: unknown[] = []
  const noop = () => {}
  const logger = {
    warnings,
    debug: noop,
    info: noop,
    error: noop,
    warn: (obj: Record<string, unknown>, msg?: string) => warnings.push({ ...obj, msg }),
    child: () => logger,
  }
  return logger
}

describe('checkpoint file', () => {
  it('writes the offsets and reads them back (64-bit offsets kept exactly)', () => {
    const dir = taskDir()
    const offsets = new Map([
      ['counts', 1234n],
      ['windows', 2n ** 62n + 1n],
      ['empty', 0n],
    ])
    writeCheckpoint(dir, offsets)
    expect(readCheckpoint(dir)).toEqual({ offsets, status: 'ok' })
    writeCheckpoint(dir, new Map([['counts', 1300n]]))
    expect(readCheckpoint(dir).offsets).toEqual(new Map([['counts', 1300n]]))
    expect(readdirSync(dir)).toEqual(['.checkpoint']) // the temp file was renamed, none left behind
  })

  it('a missing file means restore from the beginning, without a warning', () => {
    const logger = recordingLogger()
    expect(readCheckpoint(taskDir(), logger)).toEqual({ offsets: new Map(), status: 'missing' })
    expect(logger.warnings).toEqual([])
  })

  it('a corrupt file is reported and logged, never thrown', () => {
    const dir = taskDir()
    writeCheckpoint(dir, new Map([['counts', 10n]]))
    const good = readFileSync(checkpointPath(dir), 'utf8')
    const variants = {
      'checksum mismatch': good.replace('"10"', '"11"'),
      'not two lines': 'garbage',
      'torn write': good.slice(0, 10),
      empty: '',
    }
    for (const [name, text] of Object.entries(variants)) {
      writeFileSync(checkpointPath(dir), text)
      const logger = recordingLogger()
      const read = readCheckpoint(dir, logger)
      expect(read.status, name).toBe('corrupt')
      expect(read.offsets.size, name).toBe(0)
      expect(logger.warnings, name).toHaveLength(1)
    }
  })

  it('rejects bad offsets with a typed error and leaves the old file as it was', () => {
    const dir = taskDir()
    writeCheckpoint(dir, new Map([['counts', 5n]]))
    expect(() => writeCheckpoint(dir, new Map([['counts', -1n]]))).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    )
    expect(() => writeCheckpoint(dir, new Map([['', 1n]]))).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    )
    expect(readCheckpoint(dir).offsets).toEqual(new Map([['counts', 5n]]))
    expect(() => writeCheckpoint(join(dir, 'missing'), new Map())).toThrow(
      expect.objectContaining({ code: 'STORE_IO' }),
    )
  })

  it('removeCheckpoint deletes it (and is quiet when there is none)', () => {
    const dir = taskDir()
    writeCheckpoint(dir, new Map([['counts', 5n]]))
    removeCheckpoint(dir)
    expect(existsSync(checkpointPath(dir))).toBe(false)
    removeCheckpoint(dir)
  })
})
