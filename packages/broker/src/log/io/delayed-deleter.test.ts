import fs from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { ManualClock } from '@sluice/protocol'
import { captureLogger } from '../__fixtures__/log-test-env.js'
import { makeTempDir } from '../__fixtures__/test-batches.js'
import { DelayedDeleter } from './delayed-deleter.js'

async function exists(file: string): Promise<boolean> {
  return await fs.access(file).then(
    () => true,
    () => false,
  )
}

/** Waits until `file` is gone; the removal runs on the fs thread pool, after the timer fired. */
async function waitGone(file: string): Promise<void> {
  for (const deadline = Date.now() + 5000; await exists(file); ) {
    if (Date.now() > deadline) throw new Error(`${file} was not removed`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe('DelayedDeleter', () => {
  it('removes a file exactly when file.delete.delay.ms has passed, not 1 ms before', async () => {
    const dir = await makeTempDir('sluice-deleter-')
    onTestFinished(async () => {
      await fs.rm(dir, { recursive: true, force: true })
    })
    const file = path.join(dir, 'a.log.deleted')
    await fs.writeFile(file, 'a')
    const clock = new ManualClock(1_000_000)
    const deleter = new DelayedDeleter(60_000, captureLogger().logger, clock)
    await deleter.schedule([file])
    clock.advance(59_999)
    expect(deleter.pendingFiles).toBe(1)
    await deleter.abandon() // waits for any removal already started; none may have been
    expect(await exists(file)).toBe(true)
    await deleter.schedule([file])
    clock.advance(59_999)
    expect(deleter.pendingFiles).toBe(1)
    clock.advance(1)
    expect(deleter.pendingFiles).toBe(0)
    await waitGone(file)
  })

  it('arms the next batch after the first fires: the second file stays until its own delay passed', async () => {
    const dir = await makeTempDir('sluice-deleter-')
    onTestFinished(async () => {
      await fs.rm(dir, { recursive: true, force: true })
    })
    const [a, b] = [path.join(dir, 'a.log.deleted'), path.join(dir, 'b.log.deleted')]
    await fs.writeFile(a, 'a')
    await fs.writeFile(b, 'b')
    const clock = new ManualClock()
    const deleter = new DelayedDeleter(1000, captureLogger().logger, clock)
    await deleter.schedule([a])
    clock.advance(400)
    await deleter.schedule([b])
    clock.advance(600)
    await waitGone(a)
    expect(deleter.pendingFiles).toBe(1)
    clock.advance(399)
    expect(deleter.pendingFiles).toBe(1)
    expect(await exists(b)).toBe(true)
    clock.advance(1)
    await waitGone(b)
    expect(deleter.pendingFiles).toBe(0)
    expect(clock.pendingTimers).toBe(0)
  })
})
