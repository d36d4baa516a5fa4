/**
 * The round skeleton's producer: scenario 6's producer loop (workers/producer-load.ts 'rate'
 * mode: record i intended at t0 + i / rate, its value starting with that intended time) over the
 * skeleton's wire, with the SDK's batching rules for scenario 6's tuning: keyless records stick
 * to one random partition until its open batch is sent (KIP-480), lingerMs 0 sends a batch as
 * soon as its leader has no request in flight, and at most one request per broker is in flight
 * (maxInFlight 1), so what falls due meanwhile waits in the open batches.
 */
import net from 'node:net'
import { traceHop, traceOn } from '@sluice/protocol'
import { newHistogram, recordUs, summarize, type LatencySummary } from '../../histogram.js'
import { FrameReader } from '../frame-reader.js'
import { leaderOf, ROUND_BROKERS, ROUND_PARTITIONS, ROUND_TOPIC } from './round-topology.js'
import { decodeProduceAnswer, encodeProduce } from './round-wire.js'

export interface RoundLoadWindow {
  readonly t0Ns: bigint
  readonly warmEndNs: bigint
  readonly stopNs: bigint
}

interface OpenBatch {
  readonly partition: number
  readonly values: Buffer[]
  readonly intended: bigint[]
  readonly enqueueNs: bigint
}

interface InFlight {
  readonly batches: readonly OpenBatch[]
  readonly sentNs: bigint
}

export class RoundProducer {
  private readonly sockets: net.Socket[] = []
  private readonly open = new Map<number, OpenBatch>()
  private readonly inFlight: Array<InFlight | undefined> = []
  private sticky = Math.floor(Math.random() * ROUND_PARTITIONS)
  private readonly hist = newHistogram()
  private acked = 0

  private constructor(ports: readonly number[]) {
    ports.forEach((port, broker) => {
      const socket = net.connect(port, '127.0.0.1')
      socket.setNoDelay(true)
      const reader = new FrameReader()
      socket.on('data', (chunk) => reader.push(chunk, (body) => this.onAnswer(broker, body)))
      socket.on('error', () => socket.destroy())
      this.sockets.push(socket)
    })
  }

  static async connect(ports: readonly number[]): Promise<RoundProducer> {
    const p = new RoundProducer(ports)
    await Promise.all(p.sockets.map((s) => new Promise((resolve) => s.once('connect', resolve))))
    return p
  }

  /** Sends `ratePerSec` records of `recordBytes` over the window; resolves when every one is acked. */
  async run(window: RoundLoadWindow, ratePerSec: number, recordBytes: number): Promise<LatencySummary> {
    this.warmEndNs = window.warmEndNs
    const intervalNs = 1e9 / ratePerSec
    const total = Math.ceil(Number(window.stopNs - window.t0Ns) / intervalNs)
    const filler = Buffer.alloc(Math.max(12, recordBytes), 7)
    let seq = 0
    while (process.hrtime.bigint() < window.t0Ns) await new Promise((r) => setTimeout(r, 1))
    await new Promise<void>((resolve) => {
      const tick = (): void => {
        const now = process.hrtime.bigint()
        const due = Math.min(Math.floor(Number(now - window.t0Ns) / intervalNs) + 1, total)
        for (; seq < due; seq++) {
          const at = window.t0Ns + BigInt(Math.round(seq * intervalNs))
          const value = Buffer.from(filler)
          value.writeBigInt64BE(at, 0)
          value.writeUInt32BE(seq, 8)
          this.add(value, at)
        }
        for (let b = 0; b < ROUND_BROKERS; b++) this.trySend(b)
        if (seq >= total) resolve()
        else
          setTimeout(
            tick,
            Math.max(1, Math.floor((seq * intervalNs - Number(process.hrtime.bigint() - window.t0Ns)) / 1e6)),
          )
      }
      tick()
    })
    while (this.acked < total) await new Promise((r) => setTimeout(r, 5))
    return summarize(this.hist)
  }

  close(): void {
    for (const s of this.sockets) s.destroy()
  }

  private warmEndNs = 0n

  private add(value: Buffer, intended: bigint): void {
    let batch = this.open.get(this.sticky)
    if (batch === undefined) {
      batch = {
        partition: this.sticky,
        values: [],
        intended: [],
        enqueueNs: traceOn ? process.hrtime.bigint() : 0n,
      }
      this.open.set(this.sticky, batch)
    }
    batch.values.push(value)
    batch.intended.push(intended)
  }

  private trySend(broker: number): void {
    if (this.inFlight[broker] !== undefined) return
    const batches = [...this.open.values()].filter((b) => leaderOf(b.partition) === broker)
    if (batches.length === 0) return
    for (const b of batches) this.open.delete(b.partition)
    // The sticky partition's batch is gone: the next record picks a new partition.
    if (!this.open.has(this.sticky)) this.sticky = Math.floor(Math.random() * ROUND_PARTITIONS)
    const sentNs = traceOn ? process.hrtime.bigint() : 0n
    this.inFlight[broker] = { batches, sentNs }
    this.sockets[broker]!.write(
      encodeProduce(
        broker,
        batches.map((b) => ({ partition: b.partition, count: b.values.length, data: Buffer.concat(b.values) })),
      ),
    )
  }

  private onAnswer(broker: number, body: Buffer): void {
    const ackNs = process.hrtime.bigint()
    const flight = this.inFlight[broker]
    this.inFlight[broker] = undefined
    if (flight === undefined) return
    const bases = new Map(decodeProduceAnswer(body).parts.map((p) => [p.partition, p.offset]))
    for (const b of flight.batches) {
      this.acked += b.values.length
      for (const at of b.intended) if (at >= this.warmEndNs) recordUs(this.hist, Number(ackNs - at) / 1000)
      const base = bases.get(b.partition)
      if (traceOn && base !== undefined) {
        const from = BigInt(base)
        const to = from + BigInt(b.values.length)
        traceHop('producer-enqueue', -1, ROUND_TOPIC, b.partition, from, to, b.enqueueNs)
        traceHop('producer-sent', -1, ROUND_TOPIC, b.partition, from, to, flight.sentNs)
        traceHop('producer-acked', -1, ROUND_TOPIC, b.partition, from, to, ackNs)
      }
    }
    // What fell due while this request was out goes now.
    this.trySend(broker)
  }
}
