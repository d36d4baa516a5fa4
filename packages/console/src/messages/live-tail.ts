/**
 * The live tail: GET /api/topics/:name/tail?partition=&from=end|beginning answers Server-Sent
 * Events. Each record read is an event `record` whose data is the record view the message
 * browser answers (record-view.ts); a failure is an event `error` ({error_code, message}) and
 * ends the stream. A comment line every `heartbeatMs` keeps proxies from closing an idle
 * stream. The tail's consumer (no group, nothing committed) is closed when the browser goes
 * away. The rate is bounded: at most `maxPerSecond` records a second, and none while the
 * socket's buffer is full (the page is not keeping up); records left out are counted and told
 * as an event `skipped` ({count}) before the next record sent, so the page can say so.
 */
import type { ServerResponse } from 'node:http'
import type { SluiceClient } from '@sluice/client'
import { errorAnswer } from '../errors.js'
import { jsonText } from '../http/http-io.js'
import { messageView } from './record-view.js'

export interface TailOptions {
  readonly topic: string
  readonly partitions: readonly number[]
  readonly from: 'beginning' | 'end'
  readonly heartbeatMs: number
  readonly maxPerSecond: number
}

/** false when the socket's buffer is full; a gone browser's socket is not written to at all. */
function event(res: ServerResponse, name: string, data: unknown): boolean {
  if (res.destroyed) return false
  return res.write(`event: ${name}\ndata: ${jsonText(data)}\n\n`)
}

export async function streamTail(
  client: SluiceClient,
  res: ServerResponse,
  signal: AbortSignal,
  o: TailOptions,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-content-type-options': 'nosniff',
    // Tells nginx-like proxies not to buffer the stream.
    'x-accel-buffering': 'no',
  })
  // The page learns the stream is open (and what it tails) before any record arrives.
  res.write(
    `retry: 3000\nevent: ready\ndata: ${jsonText({ topic: o.topic, partitions: o.partitions, from: o.from })}\n\n`,
  )
  const heartbeat = setInterval(() => {
    if (!res.destroyed) res.write(': heartbeat\n\n')
  }, o.heartbeatMs)
  heartbeat.unref()
  let blocked = false
  res.on('drain', () => {
    blocked = false
  })
  let skipped = 0
  let windowStart = Date.now()
  let sentInWindow = 0
  const tellSkipped = (): void => {
    if (skipped === 0 || blocked) return
    if (!event(res, 'skipped', { count: skipped })) blocked = true
    skipped = 0
  }
  // A burst that ends while records are being left out is told within a second, not at the next record.
  const skipFlush = setInterval(tellSkipped, 1000)
  skipFlush.unref()
  const consumer = client.consumer({ maxWaitMs: 500, offsetReset: o.from === 'beginning' ? 'earliest' : 'latest' })
  try {
    await consumer.assign(o.partitions.map((partition) => ({ topic: o.topic, partition })))
    for await (const m of consumer.messages({ signal })) {
      const now = Date.now()
      if (now - windowStart >= 1000) {
        windowStart = now
        sentInWindow = 0
      }
      if (blocked || sentInWindow >= o.maxPerSecond) {
        skipped++
        continue
      }
      tellSkipped()
      sentInWindow++
      if (!event(res, 'record', messageView(m))) blocked = true
    }
  } catch (err) {
    if (!signal.aborted) event(res, 'error', errorAnswer(err).body)
  } finally {
    clearInterval(heartbeat)
    clearInterval(skipFlush)
    await consumer.close().catch(() => {})
    res.end()
  }
}
