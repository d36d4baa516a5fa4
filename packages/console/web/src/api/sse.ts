/**
 * Server-Sent Events over fetch rather than EventSource, because EventSource cannot send the
 * Authorization header the token needs. Parses the text/event-stream framing (event:, data:,
 * blank line ends an event; comment lines ignored) and hands each event to `onEvent` until the
 * stream ends or `signal` aborts.
 */
import { apiErrorOf, authHeaders } from './client.js'

export interface SseEvent {
  readonly event: string
  readonly data: string
}

export async function streamEvents(path: string, onEvent: (e: SseEvent) => void, signal: AbortSignal): Promise<void> {
  const res = await fetch(path, { headers: { accept: 'text/event-stream', ...authHeaders() }, signal })
  if (!res.ok || res.body === null) throw apiErrorOf(res.status, res.statusText, await res.text().catch(() => ''), path)
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  let event = 'message'
  let data: string[] = []
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    buffer += value
    let nl = buffer.search(/\r?\n/)
    while (nl >= 0) {
      const line = buffer.slice(0, nl)
      buffer = buffer.slice(buffer[nl] === '\r' ? nl + 2 : nl + 1)
      if (line === '') {
        if (data.length > 0) onEvent({ event, data: data.join('\n') })
        event = 'message'
        data = []
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const v = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'event') event = v
        else if (field === 'data') data.push(v)
      }
      nl = buffer.search(/\r?\n/)
    }
  }
}
