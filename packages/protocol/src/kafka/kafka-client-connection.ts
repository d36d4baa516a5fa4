/**
 * The client end of one Kafka connection: a TCP socket carrying int32-size-prefixed frames, each
 * request behind its request header (v1, or v2 for flexible versions), each answer behind its
 * response header and matched to its request by correlation id. Written for any Kafka client in
 * the repository: the broker's replica fetcher uses it today, the SDK may later.
 *
 * Several requests may be in flight at once (Kafka answers them in order on a connection). Nagle
 * is off: a request is one write of whole frames, and waiting for an ACK would only add latency.
 *
 * Answers are read through the socket's `onread` option: the kernel fills one buffer the
 * connection reuses, and each read is copied once into memory the decoded answer may keep views
 * of. That skips the Readable stream's machinery (push, buffering, 'data' events, a deferred
 * read-more check) on every read: the replica fetcher and the SDK read hundreds of small answers
 * a second per connection.
 *
 * Failures are typed SluiceErrors, and every request in flight settles exactly once:
 * - NETWORK_EXCEPTION: the connection could not be opened, was closed (by either side) or broke;
 *   every request in flight fails with it, and so does any request made afterwards.
 * - REQUEST_TIMED_OUT: a request was not answered within its timeout. The connection is closed
 *   with it: an answer that comes late would be out of step with the ones behind it.
 * - INVALID_REQUEST (KafkaWireError): an answer did not decode, or named no request in flight;
 *   the stream is out of step, so the connection is closed and everything in flight fails.
 */
import { readInt32BE } from '../buffer-methods.js'
import net from 'node:net'
import { SluiceError } from '../errors.js'
import type { KafkaApiCodec } from './kafka-api-codec.js'
import { DEFAULT_MAX_FRAME_BYTES, KafkaFrameSplitter, readResponseHeader, writeRequestHeader } from './kafka-frame.js'
import { KafkaReader } from './kafka-reader.js'
import { KafkaWireError } from './kafka-wire-error.js'
import { KafkaWriter } from './kafka-writer.js'

export interface KafkaClientConnectionOptions {
  readonly host: string
  readonly port: number
  /** The client id every request header carries (null = none). */
  readonly clientId: string | null
  /** How long opening the connection may take (default 10 s). */
  readonly connectTimeoutMs?: number
  /** The largest answer accepted (default Kafka's 100 MiB request limit). */
  readonly maxFrameBytes?: number
}

export interface KafkaRequestOptions {
  /** The answer must arrive within this long, or the request fails and the connection closes. */
  readonly timeoutMs?: number
}

interface InFlight {
  readonly correlationId: number
  readonly decode: (r: KafkaReader) => unknown
  readonly responseHeaderVersion: 0 | 1
  readonly resolve: (value: unknown) => void
  readonly reject: (err: Error) => void
  timer: NodeJS.Timeout | undefined
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000
/** What the kernel may fill per read; libuv suggests the same size to a stream's reads. */
const READ_BUFFER_BYTES = 64 * 1024
const MAX_CORRELATION_ID = 0x7fffffff

export class KafkaClientConnection {
  private readonly splitter: KafkaFrameSplitter
  private readonly inFlight = new Map<number, InFlight>()
  private nextCorrelationId = 1
  private closeReason: SluiceError | undefined
  private onClosed!: (reason: SluiceError) => void
  /** Resolves (never rejects) with the reason, once the connection is closed. */
  readonly closed: Promise<SluiceError> = new Promise((resolve) => {
    this.onClosed = resolve
  })

  /** The splitter's frame callback, made once: a closure per read costs a lazy compile per call. */
  private readonly frameReceived = (frame: Buffer): void => this.onFrame(frame)

  private constructor(
    private readonly socket: net.Socket,
    private readonly options: KafkaClientConnectionOptions,
  ) {
    this.splitter = new KafkaFrameSplitter(options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES)
    socket.setNoDelay(true)
    socket.on('error', (err) => this.fail(networkError(`connection to ${this.address} broke: ${err.message}`, err)))
    socket.on('close', () => this.fail(networkError(`connection to ${this.address} closed by the server`)))
  }

  /** Opens a connection; rejects with NETWORK_EXCEPTION when it cannot be opened in time. */
  static connect(options: KafkaClientConnectionOptions): Promise<KafkaClientConnection> {
    const address = `${options.host}:${options.port}`
    return new Promise((resolve, reject) => {
      let connection: KafkaClientConnection | undefined
      const socket = net.connect({
        host: options.host,
        port: options.port,
        onread: {
          buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
          callback: (nread, buf) => {
            // The read buffer is reused by the next read: the answer gets its own copy.
            if (connection !== undefined) connection.onData(Buffer.from(buf.subarray(0, nread)))
            else socket.destroy() // a server that speaks before it is asked is out of step
            return true // keep reading
          },
        },
      })
      const timeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
      const timer = setTimeout(() => {
        socket.destroy()
        reject(networkError(`could not connect to ${address} within ${timeoutMs} ms`))
      }, timeoutMs)
      const onError = (err: Error): void => {
        clearTimeout(timer)
        socket.destroy()
        reject(networkError(`could not connect to ${address}: ${err.message}`, err))
      }
      socket.once('error', onError)
      socket.once('connect', () => {
        clearTimeout(timer)
        socket.off('error', onError)
        connection = new KafkaClientConnection(socket, options)
        resolve(connection)
      })
    })
  }

  get address(): string {
    return `${this.options.host}:${this.options.port}`
  }

  get isClosed(): boolean {
    return this.closeReason !== undefined
  }

  /** Requests sent and not yet answered. */
  get inFlightCount(): number {
    return this.inFlight.size
  }

  /**
   * Sends one request at `version` and resolves with its decoded answer. Rejects with a typed
   * SluiceError (see the file comment); a body the codec cannot encode at `version` throws
   * before anything is sent, and leaves the connection as it was.
   */
  request<Req, Res, ReqIn, ResIn>(
    codec: KafkaApiCodec<Req, Res, ReqIn, ResIn>,
    version: number,
    body: ReqIn,
    options: KafkaRequestOptions = {},
  ): Promise<Res> {
    if (this.closeReason !== undefined) return Promise.reject(this.closeReason)
    if (version < codec.minVersion || version > codec.maxVersion) {
      return Promise.reject(
        new SluiceError(
          'UNSUPPORTED_VERSION',
          `${codec.name} v${version} is outside the schema's ${codec.minVersion}-${codec.maxVersion}`,
        ),
      )
    }
    const correlationId = this.takeCorrelationId()
    let frame: Buffer[]
    try {
      const w = KafkaWriter.forFrame()
      writeRequestHeader(w, codec.requestHeaderVersion(version), {
        apiKey: codec.apiKey,
        apiVersion: version,
        correlationId,
        clientId: this.options.clientId,
      })
      codec.writeRequest(w, version, body)
      frame = w.toFrame()
    } catch (err) {
      return Promise.reject(err)
    }
    return new Promise<Res>((resolve, reject) => {
      const entry: InFlight = {
        correlationId,
        decode: (r) => codec.readResponse(r, version),
        responseHeaderVersion: codec.responseHeaderVersion(version),
        resolve: resolve as (value: unknown) => void,
        reject,
        timer: undefined,
      }
      if (options.timeoutMs !== undefined) {
        const timeoutMs = options.timeoutMs
        entry.timer = setTimeout(() => {
          this.settle(entry)
          reject(
            new SluiceError(
              'REQUEST_TIMED_OUT',
              `${codec.name} to ${this.address} was not answered within ${timeoutMs} ms`,
            ),
          )
          this.close(networkError(`connection to ${this.address} closed after a request timed out`))
        }, timeoutMs)
      }
      this.inFlight.set(correlationId, entry)
      if (frame.length === 1) {
        this.socket.write(frame[0]!) // a small request is one buffer: a plain write
        return
      }
      this.socket.cork()
      for (const chunk of frame) this.socket.write(chunk)
      this.socket.uncork()
    })
  }

  /** Closes the connection; requests in flight fail with `reason` (default NETWORK_EXCEPTION). */
  close(reason?: SluiceError): void {
    this.fail(reason ?? networkError(`connection to ${this.address} closed by the client`))
    this.socket.destroy()
  }

  private takeCorrelationId(): number {
    const id = this.nextCorrelationId
    this.nextCorrelationId = id >= MAX_CORRELATION_ID ? 1 : id + 1
    return id
  }

  private onData(chunk: Buffer): void {
    if (this.closeReason !== undefined) return
    try {
      this.splitter.pushEach(chunk, this.frameReceived)
    } catch (err) {
      const reason =
        err instanceof SluiceError ? err : new SluiceError('INVALID_REQUEST', `bad answer: ${(err as Error).message}`)
      this.close(reason)
    }
  }

  private onFrame(frame: Buffer): void {
    const r = new KafkaReader(frame)
    // The correlation id comes first in every response header version.
    const correlationId = frame.length >= 4 ? readInt32BE(frame, 0) : -1
    const entry = this.inFlight.get(correlationId)
    if (entry === undefined) {
      throw new KafkaWireError(`answer with correlation id ${correlationId} matches no request in flight`, 0)
    }
    readResponseHeader(r, entry.responseHeaderVersion)
    const value = entry.decode(r)
    this.settle(entry)
    entry.resolve(value)
  }

  /** Takes `entry` out of the in-flight set and clears its timer (before it is resolved or rejected). */
  private settle(entry: InFlight): void {
    this.inFlight.delete(entry.correlationId)
    if (entry.timer !== undefined) clearTimeout(entry.timer)
  }

  private fail(reason: SluiceError): void {
    if (this.closeReason !== undefined) return
    this.closeReason = reason
    const all = [...this.inFlight.values()]
    this.inFlight.clear()
    for (const entry of all) {
      if (entry.timer !== undefined) clearTimeout(entry.timer)
      entry.reject(reason)
    }
    this.socket.destroy()
    this.onClosed(reason)
  }
}

function networkError(message: string, cause?: Error): SluiceError {
  return new SluiceError('NETWORK_EXCEPTION', message, {}, cause === undefined ? undefined : { cause })
}
