/**
 * Serves one bidirectional request/response stream (Produce, Fetch): every incoming message is
 * handled on its own, concurrently with the others, and answered once in whatever order the
 * answers complete (or not at all when the handler returns undefined, e.g. acks=0).
 *
 * Invariants:
 * - At most `maxInFlight` requests per stream are being handled or written; past that the stream
 *   is paused (HTTP/2 flow control then pushes back on the client) and resumed at half.
 * - A handler that throws becomes the whole-request error answer from `errorResponse`; a stream
 *   error or cancellation is logged and aborts the stream's signal (parked fetches give up).
 * - The server half-closes after the client does, once every in-flight answer is written.
 * - `drain()` (broker stopping) answers new requests with BROKER_NOT_AVAILABLE and ends the
 *   stream once in-flight work is done.
 */
import type * as grpc from '@grpc/grpc-js'
import type { Logger } from 'pino'
import { SluiceError } from '@sluice/protocol'

export interface BidiStreamOptions<Req, Res> {
  readonly name: string
  readonly call: grpc.ServerDuplexStream<Req, Res>
  readonly handle: (req: Req, signal: AbortSignal) => Promise<Res | undefined>
  readonly errorResponse: (req: Req, err: unknown) => Res | undefined
  readonly maxInFlight: number
  readonly logger: Logger
}

export interface ServedStream {
  /** Stops taking requests; ends the stream when in-flight ones are answered. */
  drain(): void
  readonly closed: Promise<void>
}

export function serveBidiStream<Req, Res>(o: BidiStreamOptions<Req, Res>): ServedStream {
  const { call, logger } = o
  const abort = new AbortController()
  let inFlight = 0
  let paused = false
  let clientEnded = false
  let draining = false
  let finished = false
  let markClosed!: () => void
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve
  })

  const finish = (): void => {
    if (finished) return
    finished = true
    abort.abort()
    markClosed()
  }
  const maybeEnd = (): void => {
    if (finished || inFlight > 0 || !(clientEnded || draining)) return
    finish()
    try {
      call.end()
    } catch (err) {
      logger.debug({ err, rpc: o.name }, 'ending the stream failed')
    }
  }
  const write = (res: Res | undefined, done: () => void): void => {
    if (res === undefined || finished || call.destroyed) {
      done()
      return
    }
    try {
      call.write(res, () => done())
    } catch (err) {
      logger.warn({ err, rpc: o.name }, 'writing an answer failed')
      done()
    }
  }

  call.on('data', (req: Req) => {
    if (finished) return
    inFlight++
    if (inFlight >= o.maxInFlight && !paused) {
      paused = true
      call.pause()
    }
    const work = draining
      ? Promise.resolve(o.errorResponse(req, new SluiceError('BROKER_NOT_AVAILABLE', 'the broker is shutting down')))
      : o.handle(req, abort.signal).catch((err: unknown) => {
          logger.error({ err, rpc: o.name }, 'request handler failed')
          return o.errorResponse(req, err)
        })
    void work.then((res) =>
      write(res, () => {
        inFlight--
        if (paused && inFlight <= o.maxInFlight / 2) {
          paused = false
          call.resume()
        }
        maybeEnd()
      }),
    )
  })
  call.on('end', () => {
    clientEnded = true
    maybeEnd()
  })
  call.on('error', (err: Error) => {
    logger.debug({ err, rpc: o.name }, 'stream error')
    finish()
  })
  call.on('cancelled', () => finish())
  call.on('close', () => finish())

  return {
    drain() {
      draining = true
      maybeEnd()
    },
    closed,
  }
}
