/**
 * What the console's integration specs share: JSON requests to the console API over real HTTP
 * (answers parsed, with status, headers and the time taken), and a reader of its Server-Sent
 * Events (the live tail) that waits for an event with a deadline.
 */

// Answers are read field by field, as the page would; the tests check their shapes.
// biome-ignore lint/suspicious/noExplicitAny: JSON answers of many shapes
export type Json = any

export interface HttpAnswer {
  readonly status: number
  readonly body: Json
  readonly text: string
  readonly headers: Headers
  readonly ms: number
}

export async function http(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const started = performance.now()
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  const json = (res.headers.get('content-type') ?? '').startsWith('application/json') && text !== ''
  return {
    status: res.status,
    body: json ? JSON.parse(text) : undefined,
    text,
    headers: res.headers,
    ms: performance.now() - started,
  }
}

export interface SseEvent {
  readonly event: string
  readonly data: Json
}

export interface SseStream {
  readonly status: number
  readonly contentType: string
  /** Every event received so far, in order. */
  readonly events: SseEvent[]
  /** Comment lines (heartbeats) received so far. */
  readonly comments: number
  /** Resolves with the first event (from the start) that `match` accepts; fails after timeoutMs. */
  waitFor(match: (e: SseEvent) => boolean, what: string, timeoutMs?: number): Promise<SseEvent>
  /** Whether the server ended the stream. */
  readonly ended: boolean
  close(): void
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController()
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal })
  const events: SseEvent[] = []
  let comments = 0
  let ended = false
  const waiters = new Set<() => void>()
  const wake = (): void => {
    for (const w of waiters) w()
  }
  void (async () => {
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true })
        for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, i)
          buffer = buffer.slice(i + 2)
          let event = 'message'
          const data: string[] = []
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments++
            else if (line.startsWith('event: ')) event = line.slice(7)
            else if (line.startsWith('data: ')) data.push(line.slice(6))
          }
          if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) })
        }
        wake()
      }
    } catch {
      // Closed by us (abort) or by the server.
    }
    ended = true
    wake()
  })()
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    events,
    get comments() {
      return comments
    },
    get ended() {
      return ended
    },
    waitFor: async (match, what, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = events.find(match)
        if (found !== undefined) return found
        if (ended) throw new Error(`the event stream ended before ${what}`)
        const left = deadline - Date.now()
        if (left <= 0) throw new Error(`timed out waiting for ${what}`)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left)
          const w = (): void => {
            clearTimeout(timer)
            waiters.delete(w)
            resolve()
          }
          waiters.add(w)
        })
      }
    },
    close: () => abort.abort(),
  }
}
