/**
 * The round skeleton's consumer: one fetch connection per broker covering the partitions it
 * leads, from the start of the (empty) logs; each answer's records are read (their intended
 * send time, as the bench's consumer reads it) and the next fetch goes at once. Latency is
 * arrival minus intended time for records intended inside the measured window, as scenario 6
 * measures it.
 */
import net from 'node:net'
import { traceHop, traceOn } from '@sluice/protocol'
import { newHistogram, recordUs, summarize, type LatencySummary } from '../../histogram.js'
import { FrameReader } from '../frame-reader.js'
import { ledBy, ROUND_TOPIC } from './round-topology.js'
import { decodeFetchAnswer, encodeFetch } from './round-wire.js'
import type { RoundLoadWindow } from './round-producer.js'

export class RoundConsumer {
  private readonly sockets: net.Socket[] = []
  private readonly offsets = new Map<number, number>()
  private hist = newHistogram()
  private window: RoundLoadWindow | undefined
  /** Records received in total. */
  received = 0

  private constructor(ports: readonly number[], recordBytes: number) {
    ports.forEach((port, broker) => {
      const partitions = ledBy(broker)
      for (const p of partitions) this.offsets.set(p, 0)
      const socket = net.connect(port, '127.0.0.1')
      socket.setNoDelay(true)
      const next = (): void => {
        socket.write(
          encodeFetch(
            -1,
            partitions.map((p) => ({ partition: p, offset: this.offsets.get(p)! })),
          ),
        )
      }
      const reader = new FrameReader()
      socket.on('connect', next)
      socket.on('data', (chunk) =>
        reader.push(chunk, (body) => {
          const receivedNs = process.hrtime.bigint()
          for (const part of decodeFetchAnswer(body)) {
            if (part.count === 0) continue
            this.offsets.set(part.partition, part.from + part.count)
            for (let at = 0; at + recordBytes <= part.data.length; at += recordBytes) {
              const intended = part.data.readBigInt64BE(at)
              const w = this.window
              if (w !== undefined && intended >= w.warmEndNs && intended < w.stopNs)
                recordUs(this.hist, Number(receivedNs - intended) / 1000)
            }
            this.received += part.count
            if (traceOn) {
              const from = BigInt(part.from)
              const to = from + BigInt(part.count)
              traceHop('consumer-response-received', -1, ROUND_TOPIC, part.partition, from, to, receivedNs)
              traceHop('consumer-delivered', -1, ROUND_TOPIC, part.partition, from, to)
            }
          }
          next()
        }),
      )
      socket.on('error', () => socket.destroy())
      this.sockets.push(socket)
    })
  }

  static async connect(ports: readonly number[], recordBytes: number): Promise<RoundConsumer> {
    const c = new RoundConsumer(ports, recordBytes)
    await Promise.all(c.sockets.map((s) => new Promise((resolve) => s.once('connect', resolve))))
    return c
  }

  /** The window whose records count (sent before the producer starts). */
  measure(window: RoundLoadWindow): void {
    this.window = window
    this.hist = newHistogram()
  }

  latency(): LatencySummary {
    return summarize(this.hist)
  }

  close(): void {
    for (const s of this.sockets) s.destroy()
  }
}
