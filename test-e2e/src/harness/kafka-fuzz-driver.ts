/**
 * Sends fuzz frames to a broker's Kafka listener over many connections, a bounded number at a
 * time, one frame in flight per connection so every frame's outcome is known: answered (a whole
 * response frame came back), closed (the broker closed the connection: a new one is opened for
 * the next frame), or stalled (no answer within `stallMs`, e.g. a size prefix promising bytes
 * that never come or a long poll the mutation asked for; the fuzzer closes that connection).
 */
import net from 'node:net'
import { kafka } from '@sluice/protocol'
import type { FuzzFrame } from './kafka-fuzz-frames.js'

export interface FuzzStats {
  sent: number
  answered: number
  closed: number
  stalled: number
  connections: number
  /** Outcome counts per mutation, for the report. */
  readonly byMutation: Map<string, { answered: number; closed: number; stalled: number }>
}

type Outcome = 'answered' | 'closed' | 'stalled'

/** One connection; `send` writes a frame and resolves with what happened to it. */
class FuzzConnection {
  private readonly splitter = new kafka.KafkaFrameSplitter()
  private waiter: ((o: Outcome) => void) | undefined
  private dead = false

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      let frames: Buffer[]
      try {
        frames = this.splitter.push(chunk)
      } catch {
        this.finish('closed')
        socket.destroy()
        return
      }
      if (frames.length > 0) this.finish('answered')
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      this.dead = true
      this.finish('closed')
    })
  }

  static async open(port: number, host: string, localAddress?: string): Promise<FuzzConnection> {
    return await new Promise<FuzzConnection>((resolve, reject) => {
      const s = net.connect({ port, host, ...(localAddress === undefined ? {} : { localAddress }) })
      s.once('connect', () => {
        s.setNoDelay(true)
        resolve(new FuzzConnection(s))
      })
      s.once('error', reject)
    })
  }

  get alive(): boolean {
    return !this.dead
  }

  async send(frame: FuzzFrame, stallMs: number): Promise<Outcome> {
    const outcome = new Promise<Outcome>((resolve) => {
      this.waiter = resolve
    })
    const timer = setTimeout(() => this.finish('stalled'), stallMs)
    this.socket.write(frame.bytes)
    if (frame.endAfter) this.socket.end()
    const o = await outcome
    clearTimeout(timer)
    return o
  }

  destroy(): void {
    this.dead = true
    this.socket.destroy()
  }

  private finish(o: Outcome): void {
    const w = this.waiter
    this.waiter = undefined
    w?.(o)
  }
}

/**
 * Tens of thousands of short connections cycle through the ephemeral ports within a minute, and
 * a SYN that lands on a 4-tuple the broker still holds in TIME_WAIT can be refused. On Linux every
 * 127.x.y.z address is the loopback, so connections are spread over many source addresses; a
 * refused connect is retried briefly either way (the checks afterwards prove the broker serves).
 */
const LOCAL_ADDRESSES = process.platform === 'linux' ? Array.from({ length: 64 }, (_, i) => `127.0.1.${i + 1}`) : []
const CONNECT_ATTEMPTS = 50

async function openWithRetry(port: number, host: string, n: number): Promise<FuzzConnection> {
  for (let attempt = 1; ; attempt++) {
    const local = LOCAL_ADDRESSES.length === 0 ? undefined : LOCAL_ADDRESSES[(n + attempt) % LOCAL_ADDRESSES.length]
    try {
      return await FuzzConnection.open(port, host, local)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (attempt >= CONNECT_ATTEMPTS || (code !== 'ECONNREFUSED' && code !== 'EADDRNOTAVAIL')) throw err
      await new Promise((r) => setTimeout(r, 20))
    }
  }
}

export async function sendFuzzFrames(
  frames: Iterator<FuzzFrame>,
  options: { host: string; port: number; concurrency: number; stallMs: number },
): Promise<FuzzStats> {
  const stats: FuzzStats = { sent: 0, answered: 0, closed: 0, stalled: 0, connections: 0, byMutation: new Map() }
  const next = (): FuzzFrame | undefined => {
    const n = frames.next()
    return n.done === true ? undefined : n.value
  }
  const worker = async (): Promise<void> => {
    let conn: FuzzConnection | undefined
    try {
      for (let frame = next(); frame !== undefined; frame = next()) {
        if (conn === undefined || !conn.alive) {
          conn = await openWithRetry(options.port, options.host, stats.connections++)
        }
        const outcome = await conn.send(frame, options.stallMs)
        stats.sent++
        stats[outcome]++
        const m = stats.byMutation.get(frame.mutation) ?? { answered: 0, closed: 0, stalled: 0 }
        m[outcome]++
        stats.byMutation.set(frame.mutation, m)
        // After a stall or an early end the stream is out of step: start the next frame afresh.
        if (outcome !== 'answered' || frame.endAfter) {
          conn.destroy()
          conn = undefined
        }
      }
    } finally {
      conn?.destroy()
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, async () => await worker()))
  return stats
}
