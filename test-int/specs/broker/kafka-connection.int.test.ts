/**
 * The Kafka listener's per-connection rules, with test handlers whose timing the test controls
 * (a gate per request): answers in request order whatever order the handlers finish in, a
 * bounded number of requests served at once, requests Kafka does not answer (acks=0), a handler
 * that throws, an unsupported version, and the abort signal when a connection closes or the
 * listener stops. The listener runs over a real broker's context, on its own port.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { kafka } from '@sluice/protocol'
import {
  brokerInternals,
  startKafkaListener,
  type KafkaApiCodec,
  type KafkaApiHandler,
  type KafkaListener,
} from '@sluice/broker/internal'
import { defaultTestLogger, waitFor } from '@sluice/testkit'
import { startTestCluster } from '../../src/broker/harness.js'
import { KafkaTestSocket, requestFrame } from '../../src/broker/kafka-socket.js'

const ECHO_KEY = 900

/** Echo: the request is one int32, so is the answer; versions 0-3, answer header v1 from v2. */
const echoCodec: KafkaApiCodec<number, number> = {
  apiKey: ECHO_KEY,
  name: 'Echo',
  minVersion: 0,
  maxVersion: 3,
  flexibleFrom: Number.POSITIVE_INFINITY,
  readRequest: (r) => r.int32(),
  writeRequest: (w, _v, m) => void w.int32(m),
  readResponse: (r) => r.int32(),
  writeResponse: (w, _v, m) => void w.int32(m),
  requestHeaderVersion: () => 1,
  responseHeaderVersion: (v) => (v >= 2 ? 1 : 0),
}

/** Test values: THROW makes the handler throw, SILENT answers nothing (as Produce with acks=0). */
const THROW = -1
const SILENT = -2

class EchoHandler implements KafkaApiHandler<number, number> {
  readonly codec = echoCodec
  readonly minVersion = 0
  // The codec knows v3; the handler does not, so v3 is refused.
  readonly maxVersion = 2
  active = 0
  maxActive = 0
  started: number[] = []
  readonly signals = new Map<number, AbortSignal>()
  private readonly gates = new Map<number, () => void>()
  private readonly gated = new Set<number>()

  /** Requests with these values wait until `open(value)`. */
  hold(...values: number[]): void {
    for (const v of values) this.gated.add(v)
  }

  open(value: number): void {
    this.gated.delete(value)
    this.gates.get(value)?.()
  }

  async handle(value: number, _version: number, ctx: { signal: AbortSignal }): Promise<number | undefined> {
    this.started.push(value)
    this.signals.set(value, ctx.signal)
    this.active += 1
    this.maxActive = Math.max(this.maxActive, this.active)
    try {
      if (this.gated.has(value)) {
        await new Promise<void>((resolve) => {
          this.gates.set(value, resolve)
          ctx.signal.addEventListener('abort', () => resolve())
        })
      }
      if (value === THROW) throw new Error('a handler bug')
      return value === SILENT ? undefined : value
    } finally {
      this.active -= 1
    }
  }
}

const echo = (value: number, correlationId: number, version = 0): Buffer =>
  requestFrame({ apiKey: ECHO_KEY, apiVersion: version, correlationId }, 1, (w) => w.int32(value))

/** Correlation id and value of an Echo answer with a v0 header (v1 adds an empty tagged section). */
function readEcho(frame: Buffer, headerVersion: 0 | 1 = 0): { correlationId: number; value: number } {
  const r = new kafka.KafkaReader(frame)
  const correlationId = r.int32()
  if (headerVersion === 1) expect(r.taggedFields(true).size).toBe(0)
  const value = r.int32()
  expect(r.remaining).toBe(0)
  return { correlationId, value }
}

async function echoListener(
  maxInFlight = 4,
  connectionsMaxIdleMs?: number,
): Promise<{ listener: KafkaListener; handler: EchoHandler }> {
  const cluster = await startTestCluster(1)
  const handler = new EchoHandler()
  const listener = await startKafkaListener({
    broker: brokerInternals(cluster.brokers[0]!)!.context,
    host: '127.0.0.1',
    port: 0,
    advertisedHost: '127.0.0.1',
    logger: defaultTestLogger(),
    handlers: [handler],
    maxInFlightPerConnection: maxInFlight,
    connectionsMaxIdleMs,
  })
  onTestFinished(() => listener.stop())
  return { listener, handler }
}

describe('a Kafka connection', () => {
  it('answers in request order when an earlier request finishes last', async () => {
    const { listener, handler } = await echoListener()
    const socket = await KafkaTestSocket.connect(listener.port)
    handler.hold(1)
    socket.write(echo(1, 11), echo(2, 12), echo(3, 13))
    // All three are being served at once: pipelined, not one at a time.
    await waitFor(() => handler.started.length === 3, { timeoutMs: 10_000, description: 'three requests served' })
    // 2 and 3 are done, yet nothing may be written before 1's answer.
    await waitFor(() => handler.active === 1, { timeoutMs: 10_000, description: 'requests 2 and 3 done' })
    expect(socket.pending).toBe(0)
    handler.open(1)
    for (const [id, value] of [
      [11, 1],
      [12, 2],
      [13, 3],
    ]) {
      expect(readEcho(await socket.next())).toEqual({ correlationId: id, value })
    }
  })

  it('serves at most maxInFlight requests at once, and reads on as answers go out', async () => {
    const { listener, handler } = await echoListener(4)
    const socket = await KafkaTestSocket.connect(listener.port)
    const values = Array.from({ length: 10 }, (_, i) => 100 + i)
    handler.hold(...values)
    socket.write(...values.map((v) => echo(v, v)))
    await waitFor(() => handler.started.length === 4, { timeoutMs: 10_000, description: 'four requests served' })
    handler.open(100)
    expect(readEcho(await socket.next())).toEqual({ correlationId: 100, value: 100 })
    await waitFor(() => handler.started.length === 5, { timeoutMs: 10_000, description: 'a fifth request served' })
    expect(handler.active).toBe(4)
    for (const v of values) handler.open(v)
    for (const v of values.slice(1)) expect(readEcho(await socket.next()).correlationId).toBe(v)
    expect(handler.maxActive).toBe(4)
  })

  it('writes nothing for a request answered with undefined, and keeps the order of the rest', async () => {
    const { listener } = await echoListener()
    const socket = await KafkaTestSocket.connect(listener.port)
    socket.write(echo(SILENT, 1), echo(7, 2), echo(SILENT, 3), echo(8, 4, 2))
    expect(readEcho(await socket.next())).toEqual({ correlationId: 2, value: 7 })
    // Version 2 answers with response header v1 (an empty tagged-field section after the id).
    expect(readEcho(await socket.next(), 1)).toEqual({ correlationId: 4, value: 8 })
  })

  it('closes the connection of a handler that throws (aborting its other requests), and only that one', async () => {
    const { listener, handler } = await echoListener()
    const other = await KafkaTestSocket.connect(listener.port)
    const socket = await KafkaTestSocket.connect(listener.port)
    handler.hold(5)
    socket.write(echo(5, 1), echo(THROW, 2))
    await socket.expectClosed()
    await waitFor(() => handler.signals.get(5)?.aborted === true, {
      timeoutMs: 10_000,
      description: 'the waiting request aborted',
    })
    other.write(echo(6, 9))
    expect(readEcho(await other.next())).toEqual({ correlationId: 9, value: 6 })
  })

  it('closes the connection on a version the handler does not serve, after answering what came before', async () => {
    const { listener } = await echoListener()
    const socket = await KafkaTestSocket.connect(listener.port)
    socket.write(echo(1, 1), echo(2, 2, 3), echo(3, 3))
    expect(readEcho(await socket.next())).toEqual({ correlationId: 1, value: 1 })
    await socket.expectClosed()
    expect(socket.pending).toBe(0)
  })

  it('aborts the signal of a request whose client went away', async () => {
    const { listener, handler } = await echoListener()
    const socket = await KafkaTestSocket.connect(listener.port)
    handler.hold(1)
    socket.write(echo(1, 1))
    await waitFor(() => handler.signals.has(1), { timeoutMs: 10_000, description: 'the request served' })
    socket.destroy()
    await waitFor(() => handler.signals.get(1)!.aborted, { timeoutMs: 10_000, description: 'the signal aborted' })
    await waitFor(() => listener.connectionCount === 0, { timeoutMs: 10_000, description: 'the connection gone' })
  })

  it('stop() aborts in-flight requests, closes every connection and resolves', async () => {
    const { listener, handler } = await echoListener()
    const a = await KafkaTestSocket.connect(listener.port)
    const b = await KafkaTestSocket.connect(listener.port)
    handler.hold(1)
    a.write(echo(1, 1))
    await waitFor(() => handler.signals.has(1) && listener.connectionCount === 2, {
      timeoutMs: 10_000,
      description: 'both connections open, one request in flight',
    })
    await listener.stop()
    expect(handler.signals.get(1)!.aborted).toBe(true)
    await a.expectClosed()
    await b.expectClosed()
    expect(listener.connectionCount).toBe(0)
  })

  it('closes an idle connection (a partial frame that never completes), but not one with a request in flight', async () => {
    const { listener, handler } = await echoListener(4, 300)
    const partial = await KafkaTestSocket.connect(listener.port)
    const frame = echo(7, 1)
    partial.write(frame.subarray(0, frame.length - 2))
    const busy = await KafkaTestSocket.connect(listener.port)
    handler.hold(2)
    busy.write(echo(2, 1))
    await waitFor(() => handler.signals.has(2), { timeoutMs: 10_000, description: 'the held request served' })
    await partial.expectClosed()
    // A second idle connection, opened after the first closed, closes too: by then the busy one
    // has been quiet for two idle periods, and its request must still be alive.
    const second = await KafkaTestSocket.connect(listener.port)
    await second.expectClosed()
    expect(handler.signals.get(2)!.aborted).toBe(false)
    handler.open(2)
    expect(readEcho(await busy.next())).toEqual({ correlationId: 1, value: 2 })
  })
})
