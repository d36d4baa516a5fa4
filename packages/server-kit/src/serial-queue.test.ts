import { describe, expect, it } from 'vitest'
import { SerialQueue } from './serial-queue.js'

/** A promise with its resolve function outside, so a test decides when a task finishes. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void
  const promise = new Promise<void>((resolve) => {
    open = resolve
  })
  return { promise, open }
}

describe('SerialQueue', () => {
  it('runs tasks one at a time in submission order', async () => {
    const q = new SerialQueue()
    const events: string[] = []
    const first = gate()
    const a = q.run(async () => {
      events.push('a start')
      await first.promise
      events.push('a end')
      return 'a'
    })
    const b = q.run(async () => {
      events.push('b start')
      return 'b'
    })
    const c = q.run(() => {
      events.push('c sync')
      return 'c'
    })
    expect(q.size).toBe(3)
    // Let every pending microtask run: b must still wait for a.
    await new Promise<void>((resolve) => setImmediate(resolve))
    expect(events).toEqual(['a start'])
    first.open()
    expect(await Promise.all([a, b, c])).toEqual(['a', 'b', 'c'])
    expect(events).toEqual(['a start', 'a end', 'b start', 'c sync'])
    await q.drain()
    expect(q.size).toBe(0)
  })

  it('rejects only the failed task and runs the ones queued after it', async () => {
    const q = new SerialQueue()
    const failed = q.run(async () => {
      throw new Error('boom')
    })
    const thrownSync = q.run(() => {
      throw new Error('sync boom')
    })
    const next = q.run(async () => 42)
    await expect(failed).rejects.toThrow('boom')
    await expect(thrownSync).rejects.toThrow('sync boom')
    expect(await next).toBe(42)
    await q.drain()
    expect(q.size).toBe(0)
  })

  it('drains only after every task submitted so far has finished', async () => {
    const q = new SerialQueue()
    const slow = gate()
    let finished = false
    void q.run(async () => {
      await slow.promise
      finished = true
    })
    let drained = false
    const drain = q.drain().then(() => {
      drained = true
    })
    await new Promise<void>((resolve) => setImmediate(resolve))
    expect(drained).toBe(false)
    slow.open()
    await drain
    expect(finished).toBe(true)
    expect(await q.drain()).toBeUndefined()
  })
})
