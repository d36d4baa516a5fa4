import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ConsumerMessage, SluiceClient } from '@sluice/client'
import { describe, expect, it, onTestFinished } from 'vitest'
import { streamTail } from './live-tail.js'

const message = (offset: bigint): ConsumerMessage =>
  ({
    topic: 't',
    partition: 0,
    offset,
    timestamp: 1000n,
    key: null,
    value: Buffer.from(`v${offset}`),
    headers: [],
  }) as unknown as ConsumerMessage

/** A client whose consumer yields `count` records and then fails the way a lost topic does. */
function failingClient(count: number, closed: { value: boolean }): SluiceClient {
  return {
    consumer: () => ({
      assign: async () => {},
      messages: async function* () {
        for (let i = 0; i < count; i++) yield message(BigInt(i))
        throw new TypeError('the topic went away')
      },
      close: async () => {
        closed.value = true
      },
    }),
  } as unknown as SluiceClient
}

describe('streamTail', () => {
  it('sends the records, then an error event, ends the stream and closes its consumer', async () => {
    const closed = { value: false }
    const server = createServer((_req, res) => {
      void streamTail(failingClient(2, closed), res, new AbortController().signal, {
        topic: 't',
        partitions: [0],
        from: 'beginning',
        heartbeatMs: 60_000,
        maxPerSecond: 100,
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => {
      server.close()
    })
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    // The whole body: the stream ends after the error.
    const text = await res.text()
    const events = text
      .split('\n\n')
      .filter((b) => b.includes('event: '))
      .map((b) => ({ event: /event: (\w+)/.exec(b)![1], data: JSON.parse(/data: (.*)/.exec(b)![1]!) }))
    expect(events.map((e) => e.event)).toEqual(['ready', 'record', 'record', 'error'])
    expect(events[1]!.data).toMatchObject({ partition: 0, offset: 0, value: { encoding: 'utf8', text: 'v0' } })
    expect(events[3]!.data).toEqual({
      error_code: 'BAD_REQUEST',
      message: 'the topic went away',
      error: { code: 'BAD_REQUEST', message: 'the topic went away' },
    })
    expect(closed.value).toBe(true)
  })
})
