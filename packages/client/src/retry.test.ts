import { ManualClock, SluiceError } from '@sluice/protocol'
import { describe, expect, it } from 'vitest'
import { backoffMs, withRetry } from './retry.js'

const fast = { retries: 4, initialBackoffMs: 1, maxBackoffMs: 4, factor: 2 }

/** Lets pending promise callbacks run (one macrotask turn), so a retry loop reaches its next wait. */
const settle = async (): Promise<void> => {
  await new Promise<void>((resolve) => setImmediate(resolve))
}

describe('withRetry', () => {
  it('retries retriable errors until success', async () => {
    let calls = 0
    const result = await withRetry(
      async (attempt) => {
        calls++
        if (attempt < 3) throw new SluiceError('NOT_LEADER_OR_FOLLOWER')
        return 'ok'
      },
      { retry: fast },
    )
    expect(result).toBe('ok')
    expect(calls).toBe(3)
  })

  it('does not retry a non-retriable SluiceError', async () => {
    let calls = 0
    const err = await withRetry(
      async () => {
        calls++
        throw new SluiceError('INVALID_TOPIC_EXCEPTION', 'bad name')
      },
      { retry: fast },
    ).catch((e: unknown) => e)
    expect(calls).toBe(1)
    expect(err).toBeInstanceOf(SluiceError)
    expect((err as SluiceError).code).toBe('INVALID_TOPIC_EXCEPTION')
    expect((err as SluiceError).message).toBe('bad name')
  })

  it.each([new TypeError('wrong type'), new RangeError('out of range'), new Error('plain')])(
    'never retries programmer errors (%s)',
    async (thrown) => {
      let calls = 0
      const err = await withRetry(
        async () => {
          calls++
          throw thrown
        },
        { retry: fast },
      ).catch((e: unknown) => e)
      expect(calls).toBe(1)
      expect(err).toBe(thrown)
    },
  )

  it('stops after retries + 1 attempts and lists every attempt', async () => {
    let calls = 0
    const err = (await withRetry(
      async () => {
        calls++
        throw new SluiceError('LEADER_NOT_AVAILABLE', `attempt ${calls}`)
      },
      { retry: fast, operation: 'probe' },
    ).catch((e: unknown) => e)) as SluiceError
    expect(calls).toBe(5)
    expect(err.code).toBe('LEADER_NOT_AVAILABLE')
    expect(err.message).toContain('probe failed after 5 attempt(s)')
    const attempts = err.details.attempts as SluiceError[]
    expect(attempts.map((a) => a.message)).toEqual(['attempt 1', 'attempt 2', 'attempt 3', 'attempt 4', 'attempt 5'])
    expect(err.cause).toBe(attempts[4])
  })

  it('keeps the attempts when a non-retriable error follows retriable ones', async () => {
    const err = (await withRetry(
      async (attempt) => {
        throw attempt === 1 ? new SluiceError('NETWORK_EXCEPTION') : new SluiceError('TOPIC_ALREADY_EXISTS')
      },
      { retry: fast },
    ).catch((e: unknown) => e)) as SluiceError
    expect(err.code).toBe('TOPIC_ALREADY_EXISTS')
    expect((err.details.attempts as SluiceError[]).map((a) => a.code)).toEqual([
      'NETWORK_EXCEPTION',
      'TOPIC_ALREADY_EXISTS',
    ])
  })

  it('gives up when the next backoff would pass the deadline', async () => {
    const clock = new ManualClock()
    let calls = 0
    const p = withRetry(
      async () => {
        calls++
        clock.advance(40) // each attempt "takes" 40 ms of the clock
        throw new SluiceError('REQUEST_TIMED_OUT')
      },
      {
        retry: { retries: 100, initialBackoffMs: 1, maxBackoffMs: 1, factor: 1 },
        deadlineMs: 100,
        clock,
      },
    ).catch((e: unknown) => e)
    while (calls < 3) {
      await settle()
      clock.advance(1)
    } // each 1 ms backoff
    const err = (await p) as SluiceError
    expect(calls).toBe(3)
    expect(err.code).toBe('REQUEST_TIMED_OUT')
    expect(err.message).toContain('deadline of 100 ms reached')
    expect(err.details.attempts).toHaveLength(3)
  })

  it('waits each backoff on its clock: the next attempt starts when the backoff has passed, not one ms before', async () => {
    const clock = new ManualClock()
    const startedAt: number[] = []
    const p = withRetry(
      async (attempt) => {
        startedAt.push(clock.nowMs())
        if (attempt < 3) throw new SluiceError('NETWORK_EXCEPTION')
        return 'ok'
      },
      { retry: { retries: 5, initialBackoffMs: 100, maxBackoffMs: 1000, factor: 2 }, random: () => 1, clock },
    )
    await settle()
    clock.advance(99)
    await settle()
    expect(startedAt).toEqual([0])
    clock.advance(1)
    await settle()
    expect(startedAt).toEqual([0, 100])
    clock.advance(199)
    await settle()
    expect(startedAt).toEqual([0, 100])
    clock.advance(1)
    expect(await p).toBe('ok')
    expect(startedAt).toEqual([0, 100, 300])
  })

  it('is aborted during a backoff with the signal reason', async () => {
    const ac = new AbortController()
    const reason = new Error('stop now')
    let calls = 0
    const p = withRetry(
      async () => {
        calls++
        queueMicrotask(() => {
          ac.abort(reason)
        })
        throw new SluiceError('NETWORK_EXCEPTION')
      },
      { retry: { retries: 5, initialBackoffMs: 60_000, maxBackoffMs: 60_000, factor: 1 }, signal: ac.signal },
    )
    await expect(p).rejects.toBe(reason)
    expect(calls).toBe(1)
  })

  it('does not start when already aborted', async () => {
    const ac = new AbortController()
    ac.abort(new Error('early'))
    let calls = 0
    await expect(
      withRetry(
        async () => {
          calls++
        },
        { retry: fast, signal: ac.signal },
      ),
    ).rejects.toThrow('early')
    expect(calls).toBe(0)
  })

  it('calls onRetry with the error before each backoff', async () => {
    const seen: string[] = []
    await withRetry(
      async (attempt) => {
        if (attempt < 3) throw new SluiceError(attempt === 1 ? 'NOT_LEADER_OR_FOLLOWER' : 'REQUEST_TIMED_OUT')
      },
      {
        retry: fast,
        onRetry: (err, attempt) => {
          seen.push(`${attempt}:${err.code}:${String(err.staleMetadata)}`)
        },
      },
    )
    expect(seen).toEqual(['1:NOT_LEADER_OR_FOLLOWER:true', '2:REQUEST_TIMED_OUT:false'])
  })
})

describe('backoffMs', () => {
  const opts = { retries: 10, initialBackoffMs: 100, maxBackoffMs: 1000, factor: 2 }
  it('grows exponentially, is jittered into [50%, 100%], and is capped', () => {
    expect(backoffMs(opts, 1, () => 0)).toBe(50)
    expect(backoffMs(opts, 1, () => 1)).toBe(100)
    expect(backoffMs(opts, 3, () => 1)).toBe(400)
    expect(backoffMs(opts, 3, () => 0)).toBe(200)
    expect(backoffMs(opts, 10, () => 1)).toBe(1000)
  })
})
