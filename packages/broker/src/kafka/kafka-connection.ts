/**
 * One Kafka client connection: frames in, requests dispatched to their handlers, answers out.
 *
 * Requests are pipelined: each is decoded and handed to its handler as soon as it arrives, so a
 * slow request (a fetch long poll, acks=all) does not hold back the work of the ones behind it.
 * Answers go out strictly in request order, as Kafka clients require: each request takes a slot
 * in a queue, and the queue is written from its head as far as the answers are ready. The number
 * of requests being served at once is bounded (`maxInFlight`); when it is reached, or the socket's
 * write buffer is full because the client does not read, reading pauses. That is Kafka's muting
 * of a connection with a request in flight, with a window instead of one request.
 *
 * Bad input closes the connection, as Kafka does: a frame size out of range, an undecodable
 * header or body, an unknown api key, an unsupported version (ApiVersions excepted: it gets a v0
 * answer with UNSUPPORTED_VERSION and the supported list). Nothing after the bad frame is read,
 * but the requests before it are still answered, as a Kafka broker (which reads one request at a
 * time) would have answered them before reading the bad one; then the socket ends, or is
 * destroyed after DRAIN_TIMEOUT_MS. A handler that throws, or returns an answer that does not
 * encode, is a bug: the connection is destroyed at once. Nothing here throws out of a socket
 * callback.
 *
 * Idle connections are closed after `idleMs` (Kafka's connections.max.idle.ms) by the listener's
 * sweep (idle-sweep.ts), which reads `activity` and `busy`: one with a partial frame that never
 * completes would otherwise hold its socket forever. A connection with a request in flight (a
 * parked fetch) is not idle, whatever its socket does.
 */
import type { Socket } from 'node:net'
import type { Logger } from 'pino'
import { errorId, kafka } from '@sluice/protocol'
import type { BrokerContext } from '../server/context.js'
import { apiVersionsResponse } from './api-versions-handler.js'
import type { KafkaListenerInfo, KafkaRequestContext } from './kafka-api-handler.js'
import type { KafkaApiEntry, KafkaApiTable } from './kafka-api-table.js'

/** How long a connection refused for bad input may take to answer the requests before it. */
const DRAIN_TIMEOUT_MS = 5000

export interface KafkaConnectionOptions {
  readonly socket: Socket
  readonly id: string
  readonly table: KafkaApiTable
  readonly broker: BrokerContext
  readonly listener: KafkaListenerInfo
  readonly logger: Logger
  /** Requests served at once before reading pauses. */
  readonly maxInFlight: number
  readonly maxFrameBytes: number
  /** Logs why a connection is being closed for bad input (the listener rate-limits it). */
  readonly onRefused: (details: Record<string, unknown>, message: string) => void
  /** Called once, when the socket has closed. */
  readonly onClosed: () => void
}

/** One request's place in the answer order; `chunks` undefined once done = no answer (acks=0). */
interface AnswerSlot {
  done: boolean
  chunks: Buffer[] | undefined
}

export class KafkaConnection {
  private readonly socket: Socket
  private readonly splitter: kafka.KafkaFrameSplitter
  private readonly abort = new AbortController()
  /** Frames received but not yet dispatched (the window was full), oldest at `frameHead`. */
  private frames: Buffer[] = []
  private frameHead = 0
  /** Dispatched requests in arrival order; the head is the next answer to write. */
  private readonly answers: AnswerSlot[] = []
  private ended = false
  /** Set once a bad frame arrived: nothing more is read, and the socket ends once answered. */
  private draining = false
  private paused = false
  /** Set while pump() runs, so an answer settled during a dispatch does not pump recursively. */
  private pumping = false
  /** Reads and answer writes so far (idle-sweep.ts compares it between sweeps). */
  activity = 0
  private onSocketClosed!: () => void
  /** Resolves once the socket has closed (and onClosed has run). */
  readonly closed: Promise<void> = new Promise((resolve) => {
    this.onSocketClosed = resolve
  })

  /** The splitter's frame callback, made once: a closure per chunk costs a lazy compile per call. */
  private readonly takeFrame = (frame: Buffer): void => {
    this.frames.push(frame)
  }

  constructor(private readonly options: KafkaConnectionOptions) {
    this.socket = options.socket
    this.splitter = new kafka.KafkaFrameSplitter(options.maxFrameBytes)
  }

  get id(): string {
    return this.options.id
  }

  start(): void {
    // Answers are whole frames written at once; Nagle's delay would only add latency.
    this.socket.setNoDelay(true)
    // The handlers are made once here; per-chunk and per-answer work makes no closures (issue 16).
    this.socket.on('data', (chunk: Buffer) => {
      try {
        this.onData(chunk)
      } catch (err) {
        this.crashed(err)
      }
    })
    this.socket.on('drain', () => this.guarded(() => this.pump()))
    this.socket.on('error', (err) => {
      this.options.logger.debug({ err, connection: this.id }, 'kafka connection error')
    })
    this.socket.once('close', () => {
      this.ended = true
      this.abort.abort()
      this.frames = []
      this.options.onClosed()
      this.onSocketClosed()
    })
  }

  /** A request is in flight: the connection is not idle, whatever its socket does. */
  get busy(): boolean {
    return this.answers.length > 0
  }

  /** The idle sweep found the connection quiet for the idle period. */
  closeIdle(): void {
    this.options.logger.debug({ connection: this.id }, 'closing an idle Kafka connection')
    this.close()
  }

  /** Closes at once: in-flight handlers see their signal aborted, unwritten answers are dropped. */
  close(): void {
    if (this.ended) return
    this.ended = true
    this.abort.abort()
    this.socket.destroy()
  }

  /** The last line of defence: a bug on this path closes this connection, never the process. */
  private guarded(f: () => void): void {
    try {
      f()
    } catch (err) {
      this.crashed(err)
    }
  }

  private crashed(err: unknown): void {
    this.options.logger.error({ err, connection: this.id }, 'closing a Kafka connection: unexpected error')
    this.close()
  }

  private onData(chunk: Buffer): void {
    if (this.ended || this.draining) return
    this.activity++
    try {
      this.splitter.pushEach(chunk, this.takeFrame)
    } catch (err) {
      // The frames before the bad size are kept: pump() dispatches them, then the refusal ends the socket.
      this.pump()
      this.refuse({}, `bad frame: ${(err as Error).message}`)
      return
    }
    this.pump()
  }

  /** Dispatches waiting frames while the window has room, then pauses or resumes reading. */
  private pump(): void {
    if (this.pumping) return
    this.pumping = true
    try {
      while (!this.ended && !this.draining && this.frameHead < this.frames.length && this.hasRoom()) {
        const frame = this.frames[this.frameHead]!
        this.frames[this.frameHead++] = EMPTY
        this.dispatch(frame)
      }
    } finally {
      this.pumping = false
    }
    if (this.ended || this.draining) return
    if (this.frameHead === this.frames.length) {
      this.frames = []
      this.frameHead = 0
    }
    const full = !this.hasRoom() || this.frameHead < this.frames.length
    if (full && !this.paused) {
      this.paused = true
      this.socket.pause()
    } else if (!full && this.paused) {
      this.paused = false
      this.socket.resume()
    }
  }

  private hasRoom(): boolean {
    return this.answers.length < this.options.maxInFlight && !this.socket.writableNeedDrain
  }

  private dispatch(frame: Buffer): void {
    const decoded = this.options.table.decode(frame)
    if (decoded.kind === 'refused') {
      const { kind: _kind, reason, ...details } = decoded
      this.refuse(details, reason)
      return
    }
    const slot: AnswerSlot = { done: false, chunks: undefined }
    this.answers.push(slot)
    if (decoded.kind === 'unsupported-api-versions') {
      this.options.logger.debug(
        { connection: this.id, apiVersion: decoded.apiVersion },
        'ApiVersions at an unsupported version: answering v0 with UNSUPPORTED_VERSION',
      )
      const w = new kafka.KafkaWriter()
      kafka.writeResponseHeader(w, 0, decoded.correlationId)
      kafka.ApiVersionsApi.writeResponse(
        w,
        0,
        apiVersionsResponse(this.options.listener.apis, errorId('UNSUPPORTED_VERSION')),
      )
      this.settle(slot, w.toFrame())
      return
    }
    const { header, entry, body } = decoded
    const ctx = new RequestContext(this.options.broker, this.options.listener, header, this.id, this.abort.signal)
    // Timed here, in the reactions the answer needs anyway: a wrapper promise would add a hop.
    const start = entry.probe === undefined ? 0 : performance.now()
    let answer: Promise<unknown>
    try {
      answer = entry.handler.handle(body, header.apiVersion, ctx)
    } catch (err) {
      // A handler that throws synchronously is treated like one that rejects.
      answer = Promise.reject(err)
    }
    answer.then(
      (res) => this.answered(slot, entry, header, start, res),
      (err: unknown) => this.handlerFailed(entry, header, start, err),
    )
  }

  private answered(
    slot: AnswerSlot,
    entry: KafkaApiEntry,
    header: kafka.KafkaRequestHeader,
    start: number,
    res: unknown,
  ): void {
    try {
      entry.probe?.done(start)
      if (this.ended) return
      let chunks: Buffer[] | undefined
      try {
        chunks = res === undefined ? undefined : encodeAnswer(entry, header, res)
      } catch (err) {
        this.fail(entry, header, err, 'the answer does not encode')
        return
      }
      this.settle(slot, chunks)
    } catch (err) {
      this.crashed(err)
    }
  }

  private handlerFailed(entry: KafkaApiEntry, header: kafka.KafkaRequestHeader, start: number, err: unknown): void {
    try {
      entry.probe?.done(start, err)
      if (this.ended) return
      this.fail(entry, header, err, 'the handler failed')
    } catch (e) {
      this.crashed(e)
    }
  }

  private settle(slot: AnswerSlot, chunks: Buffer[] | undefined): void {
    slot.done = true
    slot.chunks = chunks
    this.flush()
  }

  /** Writes every ready answer at the head of the queue, in one corked burst, then reads on. */
  private flush(): void {
    if (this.ended) return
    this.activity++
    let corked = false
    while (this.answers.length > 0 && this.answers[0]!.done) {
      const { chunks } = this.answers.shift()!
      if (chunks === undefined) continue
      // One small answer alone (the common case) is one buffer: a plain write, no cork or writev.
      const alone = chunks.length === 1 && !corked && !(this.answers[0]?.done ?? false)
      if (!alone && !corked) {
        this.socket.cork()
        corked = true
      }
      for (const c of chunks) this.socket.write(c)
    }
    if (corked) this.socket.uncork()
    if (this.draining) {
      // end(), not destroy(): the answers just written must reach the client before the FIN.
      if (this.answers.length === 0) this.socket.end()
      return
    }
    this.pump()
  }

  private fail(entry: KafkaApiEntry, header: kafka.KafkaRequestHeader, err: unknown, why: string): void {
    this.options.logger.error(
      {
        err,
        connection: this.id,
        api: entry.handler.codec.name,
        apiVersion: header.apiVersion,
        correlationId: header.correlationId,
        clientId: header.clientId,
      },
      `closing a Kafka connection: ${why}`,
    )
    this.close()
  }

  private refuse(details: Record<string, unknown>, reason: string): void {
    if (this.draining) return
    this.options.onRefused(
      { connection: this.id, remote: this.socket.remoteAddress, ...details },
      `closing a Kafka connection: ${reason}`,
    )
    this.draining = true
    this.frames = []
    this.frameHead = 0
    if (!this.paused) {
      this.paused = true
      this.socket.pause()
    }
    // A client that does not read its answers (or a handler that never finishes) cannot hold the
    // connection open: the deadline destroys it.
    setTimeout(() => this.close(), DRAIN_TIMEOUT_MS).unref()
    this.flush()
  }
}

const EMPTY = Buffer.alloc(0)

/** A request's context: a class, so its method is shared rather than a closure per request. */
class RequestContext implements KafkaRequestContext {
  readonly clientId: string

  constructor(
    readonly broker: KafkaRequestContext['broker'],
    readonly listener: KafkaRequestContext['listener'],
    readonly header: kafka.KafkaRequestHeader,
    readonly connectionId: string,
    readonly signal: AbortSignal,
  ) {
    this.clientId = header.clientId ?? ''
  }

  metadataEndpoints(): readonly string[] {
    return this.broker.cache.metadataEndpoints
  }
}

function encodeAnswer(entry: KafkaApiEntry, header: kafka.KafkaRequestHeader, res: unknown): Buffer[] {
  const codec = entry.handler.codec
  const w = kafka.KafkaWriter.forFrame()
  kafka.writeResponseHeader(w, codec.responseHeaderVersion(header.apiVersion), header.correlationId)
  codec.writeResponse(w, header.apiVersion, res)
  return w.toFrame()
}
