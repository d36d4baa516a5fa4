/**
 * A minimal Kafka connection built on the generated codecs of @sluice/protocol, for tests that
 * need to see exact versions and fields (which real clients hide): one socket, requests
 * pipelined and answered in order, each with a deadline. Not a client: no retries, no metadata.
 */
import net from 'node:net'
import { kafka } from '@sluice/protocol'

// biome-ignore lint/suspicious/noExplicitAny: a codec of any API; the caller's response type comes through Res.
type AnyCodec<Res> = kafka.KafkaApiCodec<unknown, Res, any, any>

interface Pending {
  readonly correlationId: number
  readonly apiKey: number
  readonly version: number
  readonly decode: (r: kafka.KafkaReader) => unknown
  readonly resolve: (value: unknown) => void
  readonly reject: (err: Error) => void
  readonly timer: NodeJS.Timeout
}

const API_VERSIONS_KEY = 18

export class KafkaWireConnection {
  private readonly splitter = new kafka.KafkaFrameSplitter()
  private readonly pending: Pending[] = []
  private nextCorrelationId = 1
  private closedError: Error | undefined

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk))
    socket.on('error', (err) => this.fail(err))
    socket.on('close', () => this.fail(new Error('the broker closed the connection')))
  }

  static async open(host: string, port: number, timeoutMs = 10_000): Promise<KafkaWireConnection> {
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect({ host, port })
      const timer = setTimeout(() => {
        s.destroy()
        reject(new Error(`no TCP connection to ${host}:${port} within ${timeoutMs} ms`))
      }, timeoutMs)
      s.once('connect', () => {
        clearTimeout(timer)
        resolve(s)
      })
      s.once('error', (err) => {
        clearTimeout(timer)
        reject(err)
      })
    })
    socket.setNoDelay(true)
    return new KafkaWireConnection(socket)
  }

  /** Sends one request and resolves with its decoded response (rejects on timeout or close). */
  async request<Res>(
    api: AnyCodec<Res>,
    version: number,
    body: unknown,
    options: { clientId?: string; timeoutMs?: number } = {},
  ): Promise<Res> {
    if (this.closedError !== undefined) throw this.closedError
    const correlationId = this.nextCorrelationId++
    const w = new kafka.KafkaWriter()
    kafka.writeRequestHeader(w, api.requestHeaderVersion(version), {
      apiKey: api.apiKey,
      apiVersion: version,
      correlationId,
      clientId: options.clientId ?? 'sluice-e2e',
    })
    api.writeRequest(w, version, body)
    const timeoutMs = options.timeoutMs ?? 15_000
    return await new Promise<Res>((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.pending.findIndex((p) => p.correlationId === correlationId)
        if (i >= 0) this.pending.splice(i, 1)
        reject(new Error(`${api.name} v${version} got no answer within ${timeoutMs} ms`))
        // Answers come in order, so a missing one leaves the stream out of step: close it.
        this.close()
      }, timeoutMs)
      this.pending.push({
        correlationId,
        apiKey: api.apiKey,
        version,
        decode: (r) => api.readResponse(r, version),
        resolve: resolve as (v: unknown) => void,
        reject,
        timer,
      })
      this.socket.write(Buffer.concat(w.toFrame()))
    })
  }

  close(): void {
    this.socket.destroy()
  }

  private onData(chunk: Buffer): void {
    let frames: Buffer[]
    try {
      frames = this.splitter.push(chunk)
    } catch (err) {
      this.fail(err as Error)
      this.close()
      return
    }
    for (const frame of frames) {
      const p = this.pending.shift()
      if (p === undefined) {
        this.fail(new Error('an answer arrived for no request'))
        this.close()
        return
      }
      clearTimeout(p.timer)
      try {
        const r = new kafka.KafkaReader(frame)
        // ApiVersions answers always use response header v0 (KIP-511), whatever their version.
        const headerVersion = p.apiKey === API_VERSIONS_KEY ? 0 : responseHeaderVersionOf(p.apiKey, p.version)
        const header = kafka.readResponseHeader(r, headerVersion)
        if (header.correlationId !== p.correlationId)
          throw new Error(`answer with correlation id ${header.correlationId}, expected ${p.correlationId}`)
        p.resolve(p.decode(r))
      } catch (err) {
        p.reject(err as Error)
      }
    }
  }

  private fail(err: Error): void {
    this.closedError ??= err
    for (const p of this.pending.splice(0)) {
      clearTimeout(p.timer)
      p.reject(err)
    }
  }
}

function responseHeaderVersionOf(apiKey: number, version: number): kafka.ResponseHeaderVersion {
  const codec = kafka.KAFKA_API_CODECS.get(apiKey)
  if (codec === undefined) throw new Error(`no codec for api key ${apiKey}`)
  return codec.responseHeaderVersion(version)
}

/** Opens a connection, runs `use`, and always closes it. */
export async function withKafkaConnection<T>(
  host: string,
  port: number,
  use: (c: KafkaWireConnection) => Promise<T>,
): Promise<T> {
  const c = await KafkaWireConnection.open(host, port)
  try {
    return await use(c)
  } finally {
    c.close()
  }
}
