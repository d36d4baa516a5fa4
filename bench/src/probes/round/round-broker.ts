/**
 * A broker of the round skeleton (round-probe.ts): the replication protocol of an acks=all
 * round and nothing else. As leader of its partitions it appends produce requests, answers the
 * followers' parked fetches with the new records at once, takes each follower's next fetch as
 * the proof of its log end, moves the high watermark to the smallest log end of the three, and
 * then answers the produce requests it covers and the consumer's parked fetch. As follower it
 * fetches from each other broker, appends what comes and fetches again at once. Every step
 * starts from the event before it; the only timers are the parked fetches' deadlines.
 *
 * With SLUICE_TRACE_DIR set it stamps the anatomy's hops (packages/protocol/src/trace.ts) with
 * the same names and ranges as Sluice's broker, so the anatomy's join reads both alike.
 */
import net from 'node:net'
import path from 'node:path'
import { traceHop, traceOn } from '@sluice/protocol'
import { FrameReader } from '../frame-reader.js'
import { RoundLog } from './round-log.js'
import { ledBy, leaderOf, ROUND_MAX_WAIT_MS, ROUND_PARTITIONS, ROUND_TOPIC } from './round-topology.js'
import {
  decodeFetch,
  decodeFetchAnswer,
  decodeProduce,
  encodeFetch,
  encodeFetchAnswer,
  encodeProduceAnswer,
  FETCH,
  type OffsetPart,
  PRODUCE,
} from './round-wire.js'

const MAX_FETCH_BYTES = 1024 * 1024
const CONSUMER = -1

interface ParkedFetch {
  readonly socket: net.Socket
  readonly replica: number
  readonly parts: readonly OffsetPart[]
  timer: NodeJS.Timeout | undefined
}

interface PendingProduce {
  readonly socket: net.Socket
  readonly corr: number
  readonly parts: ReadonlyArray<{ partition: number; base: number; end: number }>
}

interface LeaderState {
  readonly log: RoundLog
  hw: number
  readonly followerEnd: Map<number, number>
}

export class RoundBroker {
  private readonly server: net.Server
  private readonly led = new Map<number, LeaderState>()
  private readonly followed = new Map<number, RoundLog>()
  private readonly parkedFollowers = new Set<ParkedFetch>()
  private readonly parkedConsumers = new Set<ParkedFetch>()
  private readonly pending = new Set<PendingProduce>()
  private readonly fetchers: net.Socket[] = []
  private closed = false

  private constructor(
    readonly id: number,
    dataDir: string,
  ) {
    for (let p = 0; p < ROUND_PARTITIONS; p++) {
      const file = path.join(dataDir, `broker-${id}-p${p}.log`)
      if (leaderOf(p) === id) this.led.set(p, { log: new RoundLog(file), hw: 0, followerEnd: new Map() })
      else this.followed.set(p, new RoundLog(file))
    }
    this.server = net.createServer((socket) => this.serve(socket))
  }

  static async start(id: number, dataDir: string): Promise<{ broker: RoundBroker; port: number }> {
    const broker = new RoundBroker(id, dataDir)
    await new Promise<void>((resolve) => broker.server.listen(0, '127.0.0.1', resolve))
    return { broker, port: (broker.server.address() as net.AddressInfo).port }
  }

  /** Starts following: one fetch connection to each other broker (`ports` by broker id). */
  follow(ports: readonly number[]): void {
    ports.forEach((port, leader) => {
      if (leader !== this.id) this.fetchFrom(leader, port)
    })
  }

  close(): void {
    this.closed = true
    for (const f of [...this.parkedFollowers, ...this.parkedConsumers]) clearTimeout(f.timer)
    for (const s of this.fetchers) s.destroy()
    this.server.close()
    for (const s of this.led.values()) s.log.close()
    for (const l of this.followed.values()) l.close()
  }

  private serve(socket: net.Socket): void {
    socket.setNoDelay(true)
    const reader = new FrameReader()
    socket.on('data', (chunk) =>
      reader.push(chunk, (body) => {
        if (body[0] === PRODUCE) this.onProduce(socket, body)
        else if (body[0] === FETCH) this.onFetch(socket, body)
      }),
    )
    socket.on('error', () => socket.destroy())
  }

  private onProduce(socket: net.Socket, body: Buffer): void {
    const receivedNs = traceOn ? process.hrtime.bigint() : 0n
    const { corr, parts } = decodeProduce(body)
    const appended: Array<{ partition: number; base: number; end: number }> = []
    for (const part of parts) {
      const state = this.led.get(part.partition)
      if (state === undefined) continue
      const base = state.log.append(part.count, part.data)
      const end = base + part.count
      if (traceOn) {
        traceHop('leader-received', this.id, ROUND_TOPIC, part.partition, BigInt(base), BigInt(end), receivedNs)
        traceHop('append-done', this.id, ROUND_TOPIC, part.partition, BigInt(base), BigInt(end))
      }
      appended.push({ partition: part.partition, base, end })
    }
    this.pending.add({ socket, corr, parts: appended })
    // New records: every parked follower fetch of these partitions is answered now.
    for (const f of [...this.parkedFollowers]) {
      if (f.parts.some((p) => appended.some((a) => a.partition === p.partition))) this.answerFollower(f)
    }
  }

  private onFetch(socket: net.Socket, body: Buffer): void {
    const { replica, parts } = decodeFetch(body)
    const fetch: ParkedFetch = { socket, replica, parts, timer: undefined }
    if (replica === CONSUMER) {
      if (parts.some((p) => (this.led.get(p.partition)?.hw ?? 0) > p.offset)) this.answerConsumer(fetch)
      else this.park(fetch, this.parkedConsumers)
      return
    }
    for (const p of parts) {
      const state = this.led.get(p.partition)
      if (state === undefined) continue
      if (traceOn)
        traceHop('follower-fetch-received', replica, ROUND_TOPIC, p.partition, BigInt(p.offset), BigInt(p.offset))
      state.followerEnd.set(replica, p.offset)
      this.maybeAdvanceHw(p.partition, state)
    }
    if (parts.some((p) => (this.led.get(p.partition)?.log.endOffset ?? 0) > p.offset)) this.answerFollower(fetch)
    else this.park(fetch, this.parkedFollowers)
  }

  private park(fetch: ParkedFetch, set: Set<ParkedFetch>): void {
    set.add(fetch)
    fetch.timer = setTimeout(() => {
      set.delete(fetch)
      if (set === this.parkedConsumers) this.answerConsumer(fetch)
      else this.answerFollower(fetch)
    }, ROUND_MAX_WAIT_MS)
  }

  private maybeAdvanceHw(partition: number, state: LeaderState): void {
    let hw = state.log.endOffset
    for (const end of state.followerEnd.values()) hw = Math.min(hw, end)
    if (state.followerEnd.size < 2 || hw <= state.hw) return
    if (traceOn) traceHop('hw-advanced', this.id, ROUND_TOPIC, partition, BigInt(state.hw), BigInt(hw))
    state.hw = hw
    for (const pr of [...this.pending]) {
      if (pr.parts.every((p) => (this.led.get(p.partition)?.hw ?? 0) >= p.end)) {
        this.pending.delete(pr)
        if (traceOn)
          for (const p of pr.parts)
            traceHop('produce-answered', this.id, ROUND_TOPIC, p.partition, BigInt(p.base), BigInt(p.end))
        pr.socket.write(
          encodeProduceAnswer(
            pr.corr,
            pr.parts.map((p) => ({ partition: p.partition, offset: p.base })),
          ),
        )
      }
    }
    for (const f of [...this.parkedConsumers]) {
      if (f.parts.some((p) => p.partition === partition && hw > p.offset)) this.answerConsumer(f)
    }
  }

  private answerFollower(fetch: ParkedFetch): void {
    this.unpark(fetch, this.parkedFollowers)
    fetch.socket.write(encodeFetchAnswer(this.readParts(fetch, (s) => s.log.endOffset, 'follower-fetch-answered')))
  }

  private answerConsumer(fetch: ParkedFetch): void {
    this.unpark(fetch, this.parkedConsumers)
    fetch.socket.write(encodeFetchAnswer(this.readParts(fetch, (s) => s.hw, 'consumer-fetch-answered')))
  }

  private unpark(fetch: ParkedFetch, set: Set<ParkedFetch>): void {
    set.delete(fetch)
    clearTimeout(fetch.timer)
  }

  private readParts(
    fetch: ParkedFetch,
    endOf: (s: LeaderState) => number,
    hop: 'follower-fetch-answered' | 'consumer-fetch-answered',
  ): Array<{ partition: number; hw: number; from: number; count: number; chunks: Buffer[] }> {
    const out: Array<{ partition: number; hw: number; from: number; count: number; chunks: Buffer[] }> = []
    for (const p of fetch.parts) {
      const state = this.led.get(p.partition)
      if (state === undefined) continue
      const { count, chunks } = state.log.read(p.offset, endOf(state), MAX_FETCH_BYTES)
      if (traceOn && count > 0) {
        const node = hop === 'follower-fetch-answered' ? fetch.replica : this.id
        traceHop(hop, node, ROUND_TOPIC, p.partition, BigInt(p.offset), BigInt(p.offset + count))
      }
      out.push({ partition: p.partition, hw: state.hw, from: p.offset, count, chunks })
    }
    return out
  }

  private fetchFrom(leader: number, port: number): void {
    const socket = net.connect(port, '127.0.0.1')
    socket.setNoDelay(true)
    this.fetchers.push(socket)
    const partitions = ledBy(leader)
    const next = (): void => {
      if (this.closed) return
      socket.write(
        encodeFetch(
          this.id,
          partitions.map((p) => ({ partition: p, offset: this.followed.get(p)!.endOffset })),
        ),
      )
    }
    const reader = new FrameReader()
    socket.on('connect', next)
    socket.on('data', (chunk) =>
      reader.push(chunk, (body) => {
        const receivedNs = traceOn ? process.hrtime.bigint() : 0n
        for (const part of decodeFetchAnswer(body)) {
          if (part.count === 0) continue
          const log = this.followed.get(part.partition)!
          const from = BigInt(part.from)
          const to = BigInt(part.from + part.count)
          log.append(part.count, part.data)
          if (traceOn) {
            traceHop('follower-response-received', this.id, ROUND_TOPIC, part.partition, from, to, receivedNs)
            traceHop('follower-append-done', this.id, ROUND_TOPIC, part.partition, from, to)
          }
        }
        // Appended: fetch again at once (the next fetch is the leader's proof of this log end).
        next()
      }),
    )
    socket.on('error', () => socket.destroy())
  }
}
