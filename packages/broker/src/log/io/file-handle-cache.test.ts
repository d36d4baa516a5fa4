import fs from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { FileHandleCache } from './file-handle-cache.js'
import { GroupCommit } from './group-commit.js'
import { LogManager } from '../manager/log-manager.js'
import { appendLeader, captureLogger, testConfig } from '../__fixtures__/log-test-env.js'
import { makeBatch, makeTempDir } from '../__fixtures__/test-batches.js'

async function useDataDir(): Promise<string> {
  const dir = await makeTempDir()
  onTestFinished(() => fs.rm(dir, { recursive: true, force: true }))
  return dir
}

async function processFdCount(): Promise<number> {
  return (await fs.readdir('/proc/self/fd')).length
}

describe('FileHandleCache', () => {
  it('keeps at most maxOpenFiles handles, evicting the least recently used', async () => {
    const dir = await useDataDir()
    const cache = new FileHandleCache({ maxOpenFiles: 2 })
    onTestFinished(() => cache.close())
    const file = (n: number): string => path.join(dir, `f${n}`)
    for (let n = 0; n < 5; n++) await cache.use(file(n), (fh) => fh.writeFile(`file ${n}`), { create: true })
    expect(cache.openCount).toBe(2)
    expect(cache.openCountMax).toBe(2)
    // Many concurrent users of more files than slots: all complete, the bound holds.
    const texts = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        cache.use(file(i % 5), async (fh) => {
          const { bytesRead, buffer } = await fh.read(Buffer.alloc(16), 0, 16, 0)
          return buffer.subarray(0, bytesRead).toString()
        }),
      ),
    )
    expect(texts).toEqual(Array.from({ length: 40 }, (_, i) => `file ${i % 5}`))
    expect(cache.openCountMax).toBe(2)
  })

  it('evict makes the next use open the file afresh (e.g. after it was re-created)', async () => {
    const dir = await useDataDir()
    const cache = new FileHandleCache({ maxOpenFiles: 4 })
    onTestFinished(() => cache.close())
    const f = path.join(dir, 'x')
    await cache.use(f, (fh) => fh.writeFile('old'), { create: true })
    await fs.rm(f)
    await fs.writeFile(f, 'new')
    await cache.evict(f)
    const text = await cache.use(f, async (fh) => (await fh.readFile()).toString())
    expect(text).toBe('new')
    await expect(cache.use(path.join(dir, 'missing'), async () => 1)).rejects.toThrow(/ENOENT/)
    expect(cache.openCount).toBe(1)
  })
})

describe('GroupCommit', () => {
  it('lets requests made while a sync runs share the single next sync', async () => {
    const releases: Array<() => void> = []
    const gc = new GroupCommit(() => new Promise<void>((resolve) => releases.push(resolve)))
    const first = gc.request()
    const joined = [gc.request(), gc.request(), gc.request()]
    expect(gc.syncCount).toBe(1)
    releases.shift()!()
    await first
    // The first sync finished: exactly one more starts for the three waiting requests.
    await new Promise<void>((resolve) => setImmediate(resolve))
    expect(gc.syncCount).toBe(2)
    releases.shift()!()
    await Promise.all(joined)
    expect(gc.syncCount).toBe(2)
    const later = gc.request()
    expect(gc.syncCount).toBe(3)
    releases.shift()!()
    await later
  })
})

describe('LogManager file-handle bound', () => {
  it('serves 2,000 partitions with at most 64 open files', async () => {
    const dataDir = await useDataDir()
    const baseline = await processFdCount()
    const manager = await LogManager.open({ dataDir, logger: captureLogger().logger, maxOpenFiles: 64 })
    onTestFinished(() => manager.close())
    const config = testConfig()
    const partitions = 2000
    let fdPeak = 0
    const sample = async (): Promise<void> => {
      fdPeak = Math.max(fdPeak, await processFdCount())
    }
    const batchFor = (p: number, i: number): Buffer =>
      makeBatch({ records: 2, valueBytes: 40 + (p % 50), timestamp: BigInt(i), fill: p & 0xff })
    const ids = Array.from({ length: partitions }, (_, p) => p)
    for (let round = 0; round < 2; round++) {
      for (let from = 0; from < partitions; from += 250) {
        await Promise.all(
          ids.slice(from, from + 250).map(async (p) => {
            const log = await manager.getOrCreateLog('wide', p, config)
            // Every tenth partition gets a leader epoch, so epoch-checkpoint writes (which take a
            // slot of the same budget) run too; 2,000 of them with fsync would only slow the test.
            await appendLeader(log, [batchFor(p, round)], p % 10 === 0 ? 0 : -1)
          }),
        )
        await sample()
      }
    }
    expect(manager.listLogs()).toHaveLength(partitions)
    await Promise.all(
      ids.map(async (p) => {
        const log = manager.getLog('wide', p)!
        expect(log.logEndOffset).toBe(4n)
        const { records } = await log.read(2n, 1 << 20)
        expect(records.length).toBe(batchFor(p, 1).length)
      }),
    )
    await sample()
    expect(manager.openFileCountMax).toBeLessThanOrEqual(64)
    expect(manager.openFileCount).toBeLessThanOrEqual(64)
    // The real process agrees (slack for the test runner's own descriptors).
    expect(fdPeak - baseline).toBeLessThanOrEqual(64 + 16)
    await manager.close()
    expect(manager.openFileCount).toBe(0)
  }, 120_000) // close fdatasyncs 2,000 logs; generous for a loaded shared machine
})
