import { describe, expect, it } from 'vitest'
import { waitFor, withTimeout } from './wait.js'

describe('waitFor', () => {
  it('returns the first truthy result', async () => {
    let n = 0
    expect(await waitFor(() => (++n >= 3 ? n : undefined), { intervalMs: 1 })).toBe(3)
  })

  it('treats throwing checks as not yet, and reports the last error at the deadline', async () => {
    await expect(
      waitFor(
        () => {
          throw new Error('still down')
        },
        { timeoutMs: 50, intervalMs: 5, description: 'the broker' },
      ),
    ).rejects.toThrow('timed out after 50 ms waiting for the broker; last error: still down')
  })
})

describe('withTimeout', () => {
  it('passes values through and rejects when too slow', async () => {
    expect(await withTimeout(Promise.resolve(1), 100, 'x')).toBe(1)
    await expect(withTimeout(new Promise(() => {}), 20, 'nothing')).rejects.toThrow('waiting for nothing')
  })
})
