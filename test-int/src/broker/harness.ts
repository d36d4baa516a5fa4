/**
 * Test harness for the broker's integration tests (test-int/specs/broker): a real metadata
 * server, real brokers, and real gRPC clients of the Metadata and Broker services. It lives in
 * test-int because it starts the metadata service, which the broker package must not depend on.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import * as grpc from '@grpc/grpc-js'
import { onTestFinished } from 'vitest'
import { startMetadataServer } from '@sluice/metadata'
import { GRPC_CHANNEL_OPTIONS, encodeRecordBatch, loadSluiceProto, type RecordInput, type wire } from '@sluice/protocol'
import { startBroker, type BrokerHandle, type BrokerOptions } from '@sluice/broker'

export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `sluice-${prefix}-`))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  return dir
}

export function uniqueTopic(): string {
  return `t-${randomUUID().slice(0, 8)}`
}

/** Polls `fn` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(fn: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (let i = 0; i < 10_000; i++) {
    try {
      const v = await fn()
      if (v !== undefined) return v
    } catch (e) {
      last = e
    }
    if (Date.now() > deadline) break
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`timed out waiting for ${what}${last !== undefined ? `: ${String(last)}` : ''}`)
}

export interface TestCluster {
  readonly metadataEndpoint: string
  readonly brokers: BrokerHandle[]
  readonly admin: wire.MetadataClient
  startBroker(brokerId: number, dataDir?: string): Promise<BrokerHandle>
  brokerDataDir(brokerId: number): string
}

/** A metadata server and `brokerCount` brokers (ids 1..n), stopped when the test finishes. */
export async function startTestCluster(brokerCount: number, extra: Partial<BrokerOptions> = {}): Promise<TestCluster> {
  const root = await tempDir('cluster')
  const metadata = await startMetadataServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: path.join(root, 'metadata'),
    brokerSessionTimeoutMs: 6000,
  })
  const brokers: BrokerHandle[] = []
  const dataDirs = new Map<number, string>()
  const admin = new (loadSluiceProto().sluice.v1.Metadata)(
    metadata.endpoint,
    grpc.credentials.createInsecure(),
    GRPC_CHANNEL_OPTIONS,
  )
  onTestFinished(async () => {
    admin.close()
    await Promise.all(brokers.map((b) => b.stop()))
    await metadata.stop()
  })
  const cluster: TestCluster = {
    metadataEndpoint: metadata.endpoint,
    brokers,
    admin,
    brokerDataDir: (id) => dataDirs.get(id) ?? path.join(root, `broker-${id}`),
    async startBroker(brokerId, dataDir) {
      const dir = dataDir ?? cluster.brokerDataDir(brokerId)
      dataDirs.set(brokerId, dir)
      const b = await startBroker({
        brokerId,
        host: '127.0.0.1',
        port: 0,
        dataDir: dir,
        metadataEndpoints: [metadata.endpoint],
        heartbeatIntervalMs: 500,
        sessionTimeoutMs: 6000,
        ...extra,
      })
      brokers.push(b)
      return b
    },
  }
  for (let id = 1; id <= brokerCount; id++) await cluster.startBroker(id)
  return cluster
}

export function unaryCall<Req, Res>(
  fn: (req: Req, cb: (err: grpc.ServiceError | null, res?: Res) => void) => unknown,
  req: Req,
): Promise<Res> {
  return new Promise((resolve, reject) => {
    fn(req, (err, res) => (err !== null || res === undefined ? reject(err ?? new Error('no response')) : resolve(res)))
  })
}

export async function createTopic(
  cluster: TestCluster,
  topic: wire.CreatableTopic,
): Promise<wire.CreatableTopicResult__Output> {
  const res = await unaryCall<wire.CreateTopicsRequest, wire.CreateTopicsResponse__Output>(
    (r, cb) => cluster.admin.CreateTopics(r, cb),
    { topics: [topic], timeout_ms: 10_000 },
  )
  const result = res.topics[0]
  if (result === undefined || result.error_code !== 0) throw new Error(`CreateTopics failed: ${JSON.stringify(result)}`)
  return result
}

/** A Broker-service client with promise helpers over the Produce and Fetch streams. */
export class BrokerTestClient {
  readonly raw: wire.BrokerClient
  private readonly produceStream: grpc.ClientDuplexStream<wire.ProduceRequest, wire.ProduceResponse__Output>
  private readonly fetchStream: grpc.ClientDuplexStream<wire.FetchRequest, wire.FetchResponse__Output>
  private nextId = 1
  private readonly pendingProduce = new Map<string, (r: wire.ProduceResponse__Output) => void>()
  private readonly pendingFetch = new Map<string, (r: wire.FetchResponse__Output) => void>()
  /** Every correlation id answered, in order, to check "exactly once". */
  readonly answered: string[] = []

  constructor(endpoint: string) {
    this.raw = new (loadSluiceProto().sluice.v1.Broker)(
      endpoint,
      grpc.credentials.createInsecure(),
      GRPC_CHANNEL_OPTIONS,
    )
    this.produceStream = this.raw.Produce()
    this.fetchStream = this.raw.Fetch()
    this.produceStream.on('data', (r: wire.ProduceResponse__Output) =>
      this.settle(this.pendingProduce, r.correlation_id, r),
    )
    this.fetchStream.on('data', (r: wire.FetchResponse__Output) => this.settle(this.pendingFetch, r.correlation_id, r))
    this.produceStream.on('error', () => undefined)
    this.fetchStream.on('error', () => undefined)
    onTestFinished(() => this.close())
  }

  produce(req: Omit<wire.ProduceRequest, 'correlation_id'>): Promise<wire.ProduceResponse__Output> {
    const id = String(this.nextId++)
    const p = new Promise<wire.ProduceResponse__Output>((resolve) => this.pendingProduce.set(id, resolve))
    this.produceStream.write({ acks: 1, timeout_ms: 5000, ...req, correlation_id: id })
    return p
  }

  /** acks=0: nothing comes back. */
  produceNoAck(req: Omit<wire.ProduceRequest, 'correlation_id' | 'acks'>): void {
    this.produceStream.write({ ...req, acks: 0, correlation_id: String(this.nextId++) })
  }

  fetch(req: Omit<wire.FetchRequest, 'correlation_id'>): Promise<wire.FetchResponse__Output> {
    const id = String(this.nextId++)
    const p = new Promise<wire.FetchResponse__Output>((resolve) => this.pendingFetch.set(id, resolve))
    this.fetchStream.write({
      replica_id: -1,
      max_wait_ms: 0,
      min_bytes: 0,
      max_bytes: 1 << 20,
      ...req,
      correlation_id: id,
    })
    return p
  }

  listOffsets(req: wire.ListOffsetsRequest): Promise<wire.ListOffsetsResponse__Output> {
    return unaryCall((r, cb) => this.raw.ListOffsets(r, cb), req)
  }

  metadata(req: wire.MetadataRequest): Promise<wire.MetadataResponse__Output> {
    return unaryCall((r, cb) => this.raw.Metadata(r, cb), req)
  }

  deleteRecords(req: wire.DeleteRecordsRequest): Promise<wire.DeleteRecordsResponse__Output> {
    return unaryCall((r, cb) => this.raw.DeleteRecords(r, cb), req)
  }

  close(): void {
    this.produceStream.end()
    this.fetchStream.end()
    this.raw.close()
  }

  private settle<R>(pending: Map<string, (r: R) => void>, id: string, r: R): void {
    this.answered.push(id)
    const resolve = pending.get(id)
    pending.delete(id)
    resolve?.(r)
  }
}

/** Waits until the broker's Metadata RPC shows a leader for every partition of `topic`. */
export async function waitForLeaders(
  client: BrokerTestClient,
  topic: string,
  partitions: number,
): Promise<wire.TopicMetadata__Output> {
  return eventually(async () => {
    const res = await client.metadata({ topics: [topic] })
    const t = res.topics[0]
    const ok =
      t !== undefined &&
      t.error_code === 0 &&
      t.partitions.length === partitions &&
      t.partitions.every((p) => p.leader >= 0)
    return ok ? t : undefined
  }, `leaders of ${topic}`)
}

export function batch(values: string[], options: { timestamp?: bigint } = {}): Buffer {
  const records: RecordInput[] = values.map((v) => ({ value: Buffer.from(v), timestamp: options.timestamp }))
  return encodeRecordBatch(records, options.timestamp !== undefined ? { baseTimestamp: options.timestamp } : {})
}

export function one<T>(items: readonly T[] | undefined, what = 'item'): T {
  const v = items?.[0]
  if (v === undefined) throw new Error(`missing ${what}`)
  return v
}

/** The single partition answer of a single-topic response. */
export function onlyPartition<P>(res: { topics: Array<{ partitions: P[] }> }): P {
  return one(one(res.topics, 'topic').partitions, 'partition')
}
