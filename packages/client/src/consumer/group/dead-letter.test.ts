import { describe, expect, it } from 'vitest'
import { DLQ_HEADERS, deadLetterHeaders, errorText, withAttempts } from './dead-letter.js'

describe('retry and dead-letter helpers', () => {
  it('calls up to `attempts` times and reports the last error', async () => {
    let calls = 0
    const failing = await withAttempts(
      () => {
        calls++
        throw new Error(`try ${calls}`)
      },
      { attempts: 3, backoffMs: 1 },
      new AbortController().signal,
    )
    expect(calls).toBe(3)
    expect(failing).toMatchObject({ ok: false, attempts: 3 })
    expect((failing as { error: Error }).error.message).toBe('try 3')
    calls = 0
    const second = await withAttempts(
      () => {
        if (++calls < 2) throw new Error('once')
      },
      { attempts: 5, backoffMs: 1 },
      new AbortController().signal,
    )
    expect(second).toEqual({ ok: true })
    expect(calls).toBe(2)
    expect(
      await withAttempts(
        () => {
          throw new Error('x')
        },
        undefined,
        new AbortController().signal,
      ),
    ).toMatchObject({ ok: false, attempts: 1 })
  })

  it('stops during a backoff when aborted', async () => {
    const abort = new AbortController()
    const result = withAttempts(
      () => {
        abort.abort()
        throw new Error('x')
      },
      { attempts: 3, backoffMs: 60_000 },
      abort.signal,
    )
    expect(await result).toEqual({ ok: 'stopped' })
  })

  it("keeps the record's headers and adds where it came from", () => {
    const headers = deadLetterHeaders(
      {
        topic: 'orders',
        partition: 3,
        offset: 42n,
        timestamp: 1n,
        key: null,
        value: null,
        headers: [{ key: 'trace', value: Buffer.from('t1') }],
      },
      new TypeError('bad'),
      4,
    )
    expect(headers.map((h) => [h.key, h.value?.toString()])).toEqual([
      ['trace', 't1'],
      [DLQ_HEADERS.topic, 'orders'],
      [DLQ_HEADERS.partition, '3'],
      [DLQ_HEADERS.offset, '42'],
      [DLQ_HEADERS.error, 'TypeError: bad'],
      [DLQ_HEADERS.attempts, '4'],
    ])
    expect(errorText('x'.repeat(5000))).toHaveLength(2048)
  })
})
