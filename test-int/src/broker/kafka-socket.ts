/**
 * A raw Kafka client socket for the listener's tests: frames built byte by byte with the
 * protocol's KafkaWriter, answers split with its KafkaFrameSplitter, and a way to see that the
 * broker closed the connection. It knows no API: tests read the answers themselves, so a
 * mistake in a generated codec cannot hide behind the same codec in the test.
 */
import net from 'node:net'
import { onTestFinished } from 'vitest'
import { kafka } from '@sluice/protocol'

export interface TestRequestHeader {
  readonly apiKey: number
  readonly apiVersion: number
  readonly correlationId: number
  readonly clientId?: string | null
}

/** One request frame: size prefix, header (v1, or v2 for flexible versions), then the body. */
export function requestFrame(
  header: TestRequestHeader,
  headerVersion: 1 | 2,
  body?: (w: kafka.KafkaWriter) => void,
): Buffer {
  const w = new kafka.KafkaWriter()
  kafka.writeRequestHeader(w, headerVersion, { ...header, clientId: header.clientId ?? 'sluice-test' })
  body?.(w)
  return Buffer.concat(w.toFrame())
}

export class KafkaTestSocket {
  private readonly splitter = new kafka.KafkaFrameSplitter()
  private readonly frames: Buffer[] = []
  private waiter: (() => void) | undefined
  private closedFlag = false
  /** Resolves when the peer (the broker) has closed the connection. */
  readonly closed: Promise<void>

  private constructor(private readonly socket: net.Socket) {
    this.closed = new Promise((resolve) => {
      socket.once('close', () => {
        this.closedFlag = true
        this.waiter?.()
        resolve()
      })
    })
    socket.on('error', () => {
      /* a reset by the broker is one way of closing; 'close' follows */
    })
    socket.on('data', (chunk: Buffer) => {
      for (const f of this.splitter.push(chunk)) this.frames.push(f)
      this.waiter?.()
    })
  }

  /** Connects to 127.0.0.1:port; the socket is destroyed when the test finishes. */
  static async connect(port: number): Promise<KafkaTestSocket> {
    const socket = net.connect({ host: '127.0.0.1', port })
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve)
      socket.once('error', reject)
    })
    const s = new KafkaTestSocket(socket)
    onTestFinished(() => {
      socket.destroy()
    })
    return s
  }

  get isClosed(): boolean {
    return this.closedFlag
  }

  /** Writes raw bytes (one or several frames, or a hostile fragment) in one write. */
  write(...buffers: Buffer[]): void {
    this.socket.write(Buffer.concat(buffers))
  }

  /** The next answer's frame body (without its size prefix); fails if the connection closes first. */
  async next(timeoutMs = 10_000): Promise<Buffer> {
    const deadline = Date.now() + timeoutMs
    while (this.frames.length === 0) {
      if (this.closedFlag) throw new Error('the broker closed the connection before answering')
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no answer within ${timeoutMs} ms`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        this.waiter = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      this.waiter = undefined
    }
    return this.frames.shift()!
  }

  /** Waits for the broker to close the connection; fails after `timeoutMs`. */
  async expectClosed(timeoutMs = 10_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the connection stayed open for ${timeoutMs} ms`)), timeoutMs)
    })
    try {
      await Promise.race([this.closed, timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  /** Answers received and not yet taken by next(). */
  get pending(): number {
    return this.frames.length
  }

  destroy(): void {
    this.socket.destroy()
  }
}
