import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from './client.js'
import { type SseEvent, streamEvents } from './sse.js'

/** A fetch answering the given chunks as a text/event-stream body, split where the test says. */
function fakeFetch(status: number, chunks: string[]): typeof fetch {
  return (async () => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch))
        c.close()
      },
    })
    return new Response(body, { status, headers: { 'content-type': 'text/event-stream' } })
  }) as typeof fetch
}

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('streamEvents', () => {
  it('parses events split anywhere, with CRLF lines, comments and multi-line data', async () => {
    vi.stubGlobal('sessionStorage', { getItem: () => 'tok' })
    vi.stubGlobal(
      'fetch',
      fakeFetch(200, [
        'retry: 3000\nevent: re',
        'ady\ndata: {"topic":"t"}\n\n: heartbeat\n\n',
        'event: record\r\ndata: {"offset":1}\r\n\r\nevent: skipped\ndata: {"count":',
        '4}\n\ndata: line 1\ndata: line 2\n\n',
      ]),
    )
    const seen: SseEvent[] = []
    await streamEvents('/api/topics/t/tail', (e) => seen.push(e), new AbortController().signal)
    expect(seen).toEqual([
      { event: 'ready', data: '{"topic":"t"}' },
      { event: 'record', data: '{"offset":1}' },
      { event: 'skipped', data: '{"count":4}' },
      { event: 'message', data: 'line 1\nline 2' },
    ])
  })

  it("turns an error answer into the API's error, and a missing route into 'not available'", async () => {
    vi.stubGlobal('sessionStorage', { getItem: () => null })
    vi.stubGlobal('fetch', fakeFetch(404, ['{"error_code":"NOT_FOUND","message":"topic t does not exist"}']))
    const missing = await streamEvents('/x', () => {}, new AbortController().signal).catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(ApiError)
    expect((missing as ApiError).code).toBe('NOT_FOUND')
    expect((missing as ApiError).unavailable).toBe(false)
    vi.stubGlobal('fetch', fakeFetch(404, ['{"error_code":"NOT_FOUND","message":"no API route GET /api/x"}']))
    const route = await streamEvents('/x', () => {}, new AbortController().signal).catch((e: unknown) => e)
    expect((route as ApiError).unavailable).toBe(true)
    // The nested form of the same error reads the same.
    vi.stubGlobal('fetch', fakeFetch(400, ['{"error":{"code":"BAD_REQUEST","message":"from must be end"}}']))
    const nested = await streamEvents('/x', () => {}, new AbortController().signal).catch((e: unknown) => e)
    expect([(nested as ApiError).status, (nested as ApiError).code, (nested as ApiError).message]).toEqual([
      400,
      'BAD_REQUEST',
      'from must be end',
    ])
  })
})
