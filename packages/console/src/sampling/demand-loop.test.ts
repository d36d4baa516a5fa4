import { describe, expect, it } from 'vitest'
import { DemandLoop, SampleRing } from './demand-loop.js'

async function until(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe('DemandLoop', () => {
  it('has no timer until asked, ticks while asked, and stops by itself when nobody asks', async () => {
    let ticks = 0
    const loop = new DemandLoop({
      intervalMs: 10,
      idleAfterMs: 60,
      tick: async () => {
        ticks++
      },
    })
    expect(loop.active).toBe(false)
    loop.demand()
    expect(loop.active).toBe(true)
    await until('three ticks', () => ticks >= 3)
    await until('idle again', () => !loop.active)
    const stoppedAt = ticks
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(ticks).toBe(stoppedAt)
    loop.demand()
    await until('ticking again', () => ticks > stoppedAt)
    loop.close()
    expect(loop.active).toBe(false)
  })

  it('never overlaps ticks, and a failing tick only misses a sample', async () => {
    let running = 0
    let most = 0
    let calls = 0
    const loop = new DemandLoop({
      intervalMs: 1,
      tick: async () => {
        calls++
        running++
        most = Math.max(most, running)
        await new Promise((resolve) => setTimeout(resolve, 10))
        running--
        if (calls % 2 === 0) throw new Error('scrape failed')
      },
    })
    loop.demand()
    for (let i = 0; i < 5; i++) loop.demand()
    await until('six ticks', () => calls >= 6)
    loop.close()
    expect(most).toBe(1)
  })
})

describe('SampleRing', () => {
  it('keeps the newest `capacity` items, oldest first', () => {
    const r = new SampleRing<number>(3)
    expect(r.last()).toBeUndefined()
    for (let i = 1; i <= 5; i++) r.push(i)
    expect(r.toArray()).toEqual([3, 4, 5])
    expect(r.last()).toBe(5)
  })
})
