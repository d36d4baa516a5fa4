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

  static async open(port: number, host: string): Promise<FuzzConnection> {
    return await new Promise<FuzzConnection>((resolve, reject) => {
      const s = net.connect({ port, host })
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
          conn = await FuzzConnection.open(options.port, options.host)
          stats.connections++
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
