import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { encodeRecordBatch } from '@sluice/protocol'
import { LogDirs } from './log-dirs.js'
import { appendLeader, captureLogger, readAll, testConfig } from '../__fixtures__/log-test-env.js'

const roots: string[] = []
afterEach(async () => {
  for (const r of roots.splice(0)) await fs.rm(r, { recursive: true, force: true })
})

async function dirs(n: number): Promise<string[]> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'sluice-logdirs-'))
  roots.push(root)
  return Array.from({ length: n }, (_, i) => path.join(root, `d${i}`))
}

describe('LogDirs', () => {
  it('places new partitions on the dir with the fewest, keeps them there across a restart, and recovers each dir on its own', async () => {
    const [a, b] = await dirs(2)
    let logDirs = await LogDirs.open({ dataDirs: [a!, b!], logger: captureLogger().logger })
    // Concurrent creations spread out: placement is decided before any await.
    await Promise.all(Array.from({ length: 6 }, async (_, p) => await logDirs.getOrCreateLog('t', p, testConfig())))
    const on = (d: string): number =>
      logDirs.listLogs().filter((l) => logDirs.dataDirOf(l.topic, l.partition) === d).length
    expect([on(a!), on(b!)]).toEqual([3, 3])
    for (let p = 0; p < 6; p++)
      await appendLeader(logDirs.getLog('t', p)!, [encodeRecordBatch([{ value: Buffer.from(`p${p}`) }])])
    const placed = Array.from({ length: 6 }, (_, p) => logDirs.dataDirOf('t', p))
    await logDirs.close()
    expect((await fs.readdir(a!)).filter((n) => n.startsWith('t-'))).toHaveLength(3)
    // One dir crashes (its clean-shutdown marker gone): only it is recovered.
    await fs.rm(path.join(b!, '.sluice_cleanshutdown'))
    logDirs = await LogDirs.open({ dataDirs: [a!, b!], logger: captureLogger().logger })
    expect(logDirs.managers.map((m) => m.recoveryStats.cleanShutdown)).toEqual([true, false])
    expect(Array.from({ length: 6 }, (_, p) => logDirs.dataDirOf('t', p))).toEqual(placed)
    for (let p = 0; p < 6; p++)
      expect((await readAll(logDirs.getLog('t', p)!)).records.map((r) => r.value)).toEqual([`p${p}`])
    // A 7th partition goes to the first dir (a tie), then an 8th to the second.
    await logDirs.getOrCreateLog('t', 6, testConfig())
    await logDirs.getOrCreateLog('t', 7, testConfig())
    expect([logDirs.dataDirOf('t', 6), logDirs.dataDirOf('t', 7)]).toEqual([a, b])
    await logDirs.deleteLog('t', 0)
    expect(logDirs.getLog('t', 0)).toBeUndefined()
    await logDirs.close()
  })

  it('refuses to start when one partition exists in two dirs', async () => {
    const [a, b] = await dirs(2)
    await fs.mkdir(path.join(a!, 't-0'), { recursive: true })
    await fs.mkdir(path.join(b!, 't-0'), { recursive: true })
    await expect(LogDirs.open({ dataDirs: [a!, b!], logger: captureLogger().logger })).rejects.toThrow(
      /exists in two data dirs/,
    )
  })
})
