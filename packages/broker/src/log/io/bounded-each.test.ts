import { describe, expect, it } from 'vitest'
import { boundedEach } from './bounded-each.js'

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

describe('boundedEach', () => {
  it('visits every item once with at most `concurrency` running', async () => {
    let running = 0
    let peak = 0
    const seen: number[] = []
    await boundedEach(
      Array.from({ length: 50 }, (_, i) => i),
      4,
      async (i) => {
        running++
        peak = Math.max(peak, running)
        await tick()
        seen.push(i)
        running--
      },
    )
    expect(peak).toBe(4)
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i))
  })

  it('starts no new item after a failure and rethrows it once the running ones settle', async () => {
    const started: number[] = []
    let settled = 0
    await expect(
      boundedEach([0, 1, 2, 3, 4, 5, 6, 7], 2, async (i) => {
        started.push(i)
        await tick()
        settled++
        if (i === 1) throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    expect(started.length).toBeLessThan(8)
    expect(settled).toBe(started.length)
  })

  it('handles an empty list', async () => {
    await boundedEach([], 8, async () => {
      throw new Error('never called')
    })
  })
})
