import { describe, expect, it } from 'vitest'
import { runPaced, saturated } from './paced-loop.js'

describe('runPaced', () => {
  it('sends every message once, in order, the warm-up unmeasured, at no more than the rate', async () => {
    const sent: Array<[number, boolean]> = []
    const t0 = performance.now()
    await runPaced({ ratePerSec: 1000, warmup: 3, count: 20 }, (seq, measured) => {
      sent.push([seq, measured])
      return undefined
    })
    const elapsed = performance.now() - t0
    expect(sent.map(([s]) => s)).toEqual(Array.from({ length: 23 }, (_, i) => i))
    expect(sent.filter(([, m]) => m).length).toBe(20)
    expect(sent[2]![1]).toBe(false)
    expect(sent[3]![1]).toBe(true)
    // Message 22 is due 22 ms after the start.
    expect(elapsed).toBeGreaterThanOrEqual(21)
  })

  it('waits for an operation before starting the next', async () => {
    let running = 0
    let overlapped = false
    await runPaced({ ratePerSec: 10_000, warmup: 0, count: 30 }, async () => {
      if (running++ > 0) overlapped = true
      await new Promise((resolve) => setImmediate(resolve))
      running--
    })
    expect(overlapped).toBe(false)
  })
})

describe('saturated', () => {
  it('tells a queue from a hop by how long the last messages took to arrive', () => {
    const pace = { ratePerSec: 1000, warmup: 0, count: 1000 } // a 1 s series
    expect(saturated(pace, 5)).toBe(false)
    expect(saturated(pace, 45)).toBe(false)
    expect(saturated(pace, 150)).toBe(true)
    // Long series: 5 % of it.
    expect(saturated({ ratePerSec: 200, warmup: 0, count: 4000 }, 900)).toBe(false)
    expect(saturated({ ratePerSec: 200, warmup: 0, count: 4000 }, 1100)).toBe(true)
    // Short series: at least 50 ms of drain before it counts.
    expect(saturated({ ratePerSec: 1000, warmup: 0, count: 10 }, 40)).toBe(false)
    expect(saturated({ ratePerSec: 1000, warmup: 0, count: 10 }, 60)).toBe(true)
  })
})
