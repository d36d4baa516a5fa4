/**
 * A tiny in-memory stand-in for Sluice brokers, for client unit tests that need a real gRPC
 * peer but not the real storage: Metadata, Produce (stamps offsets into the batch header like a
 * leader does), Fetch (whole stored batches, long poll), ListOffsets. Tests steer leadership and
 * inject per-partition errors to exercise the client's retry and re-routing paths. Every fake
 * broker also serves the Metadata service's InitProducerId (ids 1000, 1001, ...), advertised as
 * the metadata endpoint, and produce enforces idempotent sequences like a broker (duplicate of
 * one of the last 5 batches -> the original offset; gap -> OUT_OF_ORDER_SEQUENCE_NUMBER).
 */
import * as grpc from '@grpc/grpc-js'
import {
  GRPC_SERVER_OPTIONS,
  OFF_BASE_OFFSET,
  loadSluiceProto,
  readBatchHeader,
  toBigInt,
  type wire,
} from '@sluice/protocol'

interface StoredBatch {
  base: bigint
  last: bigint
  maxTimestamp: bigint
  bytes: Buffer
}

export class FakeCluster {
  readonly logs = new Map<string, StoredBatch[]>()
  readonly leaders = new Map<string, number>()
  readonly partitionCounts = new Map<string, number>()
  /** Errors to answer produce requests with, per `topic/partition`, consumed one by one. */
  readonly produceErrors = new Map<string, number[]>()
  /** Errors to answer with AFTER appending (a lost acknowledgement), per `topic/partition`. */
  readonly appendThenFail = new Map<string, number[]>()
  /** Idempotence: per `topic/partition/producerId`, the last 5 batches (base seq, last seq, offset). */
  private readonly sequences = new Map<string, Array<{ first: number; last: number; offset: bigint }>>()
  readonly produceRequests: Array<{ brokerId: number; partitions: string[] }> = []
  private readonly servers = new Map<number, { server: grpc.Server; port: number }>()
  private readonly waiters = new Set<() => void>()
  private nextProducerId = 1000n
  /** InitProducerId calls answered. */
  initProducerIdCalls = 0
  /** OUT_OF_ORDER_SEQUENCE_NUMBER answers given (batches that arrived behind a missing one). */
  outOfOrderAnswers = 0

  static async start(brokerIds: number[]): Promise<FakeCluster> {
    const c = new FakeCluster()
    for (const id of brokerIds) await c.startBroker(id)
    return c
  }

  get bootstrap(): string[] {
    return [...this.servers.values()].map((s) => `127.0.0.1:${s.port}`)
  }

  createTopic(topic: string, partitions: number, leaderOf: (p: number) => number): void {
    this.partitionCounts.set(topic, partitions)
    for (let p = 0; p < partitions; p++) {
      this.logs.set(`${topic}/${p}`, [])
      this.leaders.set(`${topic}/${p}`, leaderOf(p))
    }
  }

  logEnd(tp: string): bigint {
    const l = this.logs.get(tp) ?? []
    return l.length === 0 ? 0n : l[l.length - 1]!.last + 1n
  }

  async stop(): Promise<void> {
    for (const w of this.waiters) w()
    await Promise.all(
      [...this.servers.values()].map(async ({ server }) => {
        await new Promise<void>((resolve) => {
          server.tryShutdown(() => {
            resolve()
          })
        })
        server.forceShutdown()
      }),
    )
  }

  private async startBroker(id: number): Promise<void> {
    const server = new grpc.Server(GRPC_SERVER_OPTIONS)
    const handlers: wire.BrokerHandlers = {
      Metadata: (call, cb) => {
        cb(null, this.metadata(call.request))
      },
      ListOffsets: (call, cb) => {
        cb(null, this.listOffsets(call.request))
      },
      DeleteRecords: (_call, cb) => {
        cb(null, { topics: [] })
      },
      Produce: (call) => {
        call.on('data', (req: wire.ProduceRequest__Output) => {
          const res = this.produce(id, req)
          if (req.acks !== 0) call.write(res)
        })
        call.on('end', () => {
          call.end()
        })
      },
      Fetch: (call) => {
        call.on('data', (req: wire.FetchRequest__Output) => {
          this.fetch(id, req).then(
            (res) => {
              call.write(res)
            },
            () => {},
          )
        })
        call.on('end', () => {
          call.end()
        })
      },
    }
    server.addService(loadSluiceProto().sluice.v1.Broker.service, handlers)
    server.addService(loadSluiceProto().sluice.v1.Metadata.service, {
      InitProducerId: (_call: unknown, cb: grpc.sendUnaryData<wire.InitProducerIdResponse>) => {
        this.initProducerIdCalls++
        cb(null, { producer_id: String(this.nextProducerId++), producer_epoch: 0 })
      },
    } as unknown as wire.MetadataHandlers)
    const port = await new Promise<number>((resolve, reject) => {
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => {
        err !== null ? reject(err) : resolve(p)
      })
    })
    this.servers.set(id, { server, port })
  }

  private metadata(req: wire.MetadataRequest__Output): wire.MetadataResponse {
    const names = req.topics.length > 0 ? req.topics : [...this.partitionCounts.keys()]
    return {
      cluster_id: 'fake',
      controller_id: -1,
      metadata_endpoints: this.bootstrap.slice(0, 1),
      brokers: [...this.servers].map(([id, s]) => ({ broker_id: id, host: '127.0.0.1', port: s.port })),
      topics: names.map((name) => {
        const n = this.partitionCounts.get(name)
        if (n === undefined) return { name, error_code: 3, error_message: 'unknown topic' }
        return {
          name,
          partitions: Array.from({ length: n }, (_, p) => ({
            partition: p,
            leader: this.leaders.get(`${name}/${p}`),
            leader_epoch: 0,
            replicas: [],
            isr: [],
          })),
        }
      }),
    }
  }

  private produce(brokerId: number, req: wire.ProduceRequest__Output): wire.ProduceResponse {
    const seen: string[] = []
    const topics = req.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => {
        const tp = `${t.topic}/${p.partition}`
        seen.push(tp)
        const injected = this.produceErrors.get(tp)?.shift()
        if (injected !== undefined) return { partition: p.partition, error_code: injected, error_message: 'injected' }
        if (this.leaders.get(tp) !== brokerId)
          return { partition: p.partition, error_code: 6, error_message: 'not leader' }
        const base = this.logEnd(tp)
        const bytes = Buffer.from(p.records)
        const h = readBatchHeader(bytes)!
        if (h.producerId >= 0n) {
          const key = `${tp}/${h.producerId}`
          const seen = this.sequences.get(key) ?? []
          const last = h.baseSequence + h.lastOffsetDelta
          const dup = seen.find((x) => x.first === h.baseSequence && x.last === last)
          if (dup !== undefined)
            return {
              partition: p.partition,
              error_code: 0,
              base_offset: dup.offset.toString(),
              log_append_time_ms: '-1',
            }
          const prev = seen[seen.length - 1]
          if (prev !== undefined && h.baseSequence !== prev.last + 1) {
            this.outOfOrderAnswers++
            return { partition: p.partition, error_code: 45, error_message: 'out of order' }
          }
          seen.push({ first: h.baseSequence, last, offset: base })
          this.sequences.set(key, seen.slice(-5))
        }
        bytes.writeBigInt64BE(base, OFF_BASE_OFFSET)
        this.logs.get(tp)!.push({ base, last: base + BigInt(h.lastOffsetDelta), maxTimestamp: h.maxTimestamp, bytes })
        for (const w of this.waiters) w()
        const lost = this.appendThenFail.get(tp)?.shift()
        if (lost !== undefined)
          return { partition: p.partition, error_code: lost, error_message: 'injected after append' }
        return { partition: p.partition, error_code: 0, base_offset: base.toString(), log_append_time_ms: '-1' }
      }),
    }))
    this.produceRequests.push({ brokerId, partitions: seen })
    return { correlation_id: req.correlation_id, topics }
  }

  private async fetch(brokerId: number, req: wire.FetchRequest__Output): Promise<wire.FetchResponse> {
    const deadline = Date.now() + req.max_wait_ms
    for (;;) {
      const res = this.readFetch(brokerId, req)
      if (res.bytes > 0 || Date.now() >= deadline) return res.response
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.waiters.delete(done)
          clearTimeout(timer)
          resolve()
        }
        const timer = setTimeout(done, Math.max(1, deadline - Date.now()))
        this.waiters.add(done)
      })
    }
  }

  private readFetch(brokerId: number, req: wire.FetchRequest__Output): { bytes: number; response: wire.FetchResponse } {
    let bytes = 0
    const topics = req.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => {
        const tp = `${t.topic}/${p.partition}`
        if (this.leaders.get(tp) !== brokerId) return { partition: p.partition, error_code: 6 }
        const offset = toBigInt(p.fetch_offset)
        const end = this.logEnd(tp)
        if (offset > end) {
          return {
            partition: p.partition,
            error_code: 1,
            log_start_offset: '0',
            log_end_offset: end.toString(),
            high_watermark: end.toString(),
          }
        }
        const chosen: Buffer[] = []
        let size = 0
        for (const b of this.logs.get(tp)!) {
          if (b.last < offset) continue
          if (chosen.length > 0 && size + b.bytes.length > p.partition_max_bytes) break
          chosen.push(b.bytes)
          size += b.bytes.length
        }
        bytes += size
        return {
          partition: p.partition,
          high_watermark: end.toString(),
          log_end_offset: end.toString(),
          records: Buffer.concat(chosen),
        }
      }),
    }))
    return { bytes, response: { correlation_id: req.correlation_id, topics } }
  }

  private listOffsets(req: wire.ListOffsetsRequest__Output): wire.ListOffsetsResponse {
    return {
      topics: req.topics.map((t) => ({
        topic: t.topic,
        partitions: t.partitions.map((p) => {
          const tp = `${t.topic}/${p.partition}`
          const ts = toBigInt(p.timestamp)
          let offset = -1n
          if (ts === -2n) offset = 0n
          else if (ts === -1n) offset = this.logEnd(tp)
          else offset = this.logs.get(tp)?.find((b) => b.maxTimestamp >= ts)?.base ?? -1n
          return { partition: p.partition, offset: offset.toString(), timestamp: '-1' }
        }),
      })),
    }
  }
}
