import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { ManualClock } from '@sluice/protocol'
import {
  HighWatermarkCheckpointer,
  REPLICATION_OFFSET_CHECKPOINT_FILE,
  readHighWatermarks,
  type HighWatermarkEntry,
} from './hw-checkpoint.js'
import { partitionKey } from '../metadata-cache.js'

const logger = pino({ level: 'silent' })
const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map(async (d) => await fs.rm(d, { recursive: true, force: true })))
})

async function setup(): Promise<{
  dir: string
  hws: Map<number, bigint>
  calls: () => number
  cp: HighWatermarkCheckpointer
}> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sluice-hwcp-'))
  dirs.push(dir)
  const hws = new Map<number, bigint>([
    [1, 5n],
    [0, 3n],
  ])
  let n = 0
  const cp = new HighWatermarkCheckpointer({
    dataDir: dir,
    intervalMs: 60_000, // never fires during the test; writes are driven by hand
    logger,
    entries: (): HighWatermarkEntry[] => {
      n++
      return [...hws].map(([partition, highWatermark]) => ({ topic: 't', partition, highWatermark }))
    },
  })
  return { dir, hws, calls: () => n, cp }
}

describe('HighWatermarkCheckpointer', () => {
  it('writes on its clock every intervalMs, not 1 ms before, and a last time on stop', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sluice-hwcp-'))
    dirs.push(dir)
    const clock = new ManualClock()
    let hw = 3n
    let writes = 0
    const cp = new HighWatermarkCheckpointer({
      dataDir: dir,
      intervalMs: 5000,
      logger,
      clock,
      entries: (): HighWatermarkEntry[] => {
        writes++
        return [{ topic: 't', partition: 0, highWatermark: hw }]
      },
    })
    cp.start()
    clock.advance(4999)
    await new Promise((resolve) => setImmediate(resolve))
    expect(writes).toBe(0)
    clock.advance(1)
    await cp.write() // queued behind the write the interval started, which took the dirty mark
    expect(writes).toBe(1)
    expect((await readHighWatermarks(dir, logger)).get(partitionKey('t', 0))).toBe(3n)
    hw = 7n
    cp.markDirty()
    clock.advance(5000)
    await cp.write()
    expect(writes).toBe(2)
    expect((await readHighWatermarks(dir, logger)).get(partitionKey('t', 0))).toBe(7n)
    hw = 9n
    cp.markDirty()
    await cp.stop()
    expect(clock.pendingTimers).toBe(0)
    expect((await readHighWatermarks(dir, logger)).get(partitionKey('t', 0))).toBe(9n)
  })

  it('writes the first time, then skips building entries until marked dirty', async () => {
    const { dir, hws, calls, cp } = await setup()
    await cp.write()
    expect(calls()).toBe(1)
    expect(await readHighWatermarks(dir, logger)).toEqual(
      new Map([
        [partitionKey('t', 0), 3n],
        [partitionKey('t', 1), 5n],
      ]),
    )
    const { mtimeMs } = await fs.stat(path.join(dir, REPLICATION_OFFSET_CHECKPOINT_FILE))

    await cp.write()
    await cp.write()
    expect(calls()).toBe(1) // nothing marked dirty: no rebuild at all

    hws.set(0, 9n)
    cp.markDirty()
    await cp.write()
    expect(calls()).toBe(2)
    expect((await readHighWatermarks(dir, logger)).get(partitionKey('t', 0))).toBe(9n)
    expect((await fs.stat(path.join(dir, REPLICATION_OFFSET_CHECKPOINT_FILE))).mtimeMs).toBeGreaterThanOrEqual(mtimeMs)
  })

  it('retries at the next write when writing failed', async () => {
    const { dir, calls, cp } = await setup()
    // A directory where the file should be makes the rename fail.
    await fs.mkdir(path.join(dir, REPLICATION_OFFSET_CHECKPOINT_FILE))
    await expect(cp.write()).rejects.toThrow()
    await fs.rm(path.join(dir, REPLICATION_OFFSET_CHECKPOINT_FILE), { recursive: true })
    await cp.write()
    expect(calls()).toBe(2)
    expect((await readHighWatermarks(dir, logger)).get(partitionKey('t', 1))).toBe(5n)
  })
})
