/**
 * Test support for in-process integration tests: a real metadata server on 127.0.0.1 port 0 with
 * a fresh temp data dir, a real grpc-js client from loadSluiceProto(), and fake brokers that hold
 * real BrokerSession streams. Everything registers its cleanup with onTestFinished.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as grpc from '@grpc/grpc-js'
import { onTestFinished } from 'vitest'
import { GRPC_CHANNEL_OPTIONS, loadSluiceProto, type wire } from '@sluice/protocol'
import {
  startMetadataServerInternal,
  type InternalMetadataServerOptions,
  type MetadataServerHandle,
} from '../server/metadata-server.js'
import { seededRandomInt } from '../controller/placement.js'

export type MetadataClient = wire.MetadataClient
type SessionMsg = wire.BrokerSessionResponse__Output

export async function waitFor(cond: () => boolean, what: string | (() => string), deadlineMs = 5000): Promise<void> {
  const end = Date.now() + deadlineMs
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

export async function waitForAsync(cond: () => Promise<boolean>, what: string, deadlineMs = 5000): Promise<void> {
  const end = Date.now() + deadlineMs
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-metadata-'))
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true })
  })
  return dir
}

export interface Harness {
  server: MetadataServerHandle
  client: MetadataClient
  dataDir: string
  call: <Res>(method: string, req: object) => Promise<Res>
  broker: (reg: Partial<wire.RegisterBroker>) => FakeBroker
  /** Stops the server and starts a new one on the same data dir (new port, new client). */
  restart: (overrides?: Partial<InternalMetadataServerOptions>) => Promise<void>
  liveBrokers: () => Promise<number[]>
}

export async function startHarness(options: Partial<InternalMetadataServerOptions> = {}): Promise<Harness> {
  const dataDir = options.dataDir ?? (await tempDir())
  const opts = { host: '127.0.0.1', port: 0, dataDir, random: seededRandomInt(42), ...options }
  const h: Harness = {
    server: await startMetadataServerInternal(opts),
    client: undefined as unknown as MetadataClient,
    dataDir,
    call: async <Res>(method: string, req: object) => await callMethod<Res>(h.client, method, req),
    broker: (reg) => {
      const b = new FakeBroker(h.client, { host: '127.0.0.1', port: 19092, ...reg })
      onTestFinished(() => {
        b.cancel()
      })
      return b
    },
    restart: async (overrides = {}) => {
      h.client.close()
      await h.server.stop()
      h.server = await startMetadataServerInternal({ ...opts, ...overrides })
      h.client = newClient(h.server.endpoint)
    },
    liveBrokers: async () =>
      (await h.call<wire.DescribeClusterResponse__Output>('DescribeCluster', {})).brokers.map((b) => b.broker_id),
  }
  h.client = newClient(h.server.endpoint)
  onTestFinished(async () => {
    h.client.close()
    await h.server.stop()
  })
  return h
}

export function newClient(endpoint: string): MetadataClient {
  const Ctor = loadSluiceProto().sluice.v1.Metadata
  return new Ctor(endpoint, grpc.credentials.createInsecure(), GRPC_CHANNEL_OPTIONS) as unknown as MetadataClient
}

/** A Metadata client that is closed when the test finishes. */
export function testClient(endpoint: string): MetadataClient {
  const c = newClient(endpoint)
  onTestFinished(() => {
    c.close()
  })
  return c
}

/** One unary Metadata call by method name; rejects with the grpc ServiceError. */
export async function callMethod<Res>(
  client: MetadataClient,
  method: string,
  req: object,
  timeoutMs = 10_000,
): Promise<Res> {
  return await new Promise<Res>((resolve, reject) => {
    const fn = (
      client as unknown as Record<
        string,
        (r: object, md: grpc.Metadata, o: grpc.CallOptions, cb: (e: grpc.ServiceError | null, res: Res) => void) => void
      >
    )[method]!
    fn.call(client, req, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (e, res) => {
      if (e !== null) reject(e)
      else resolve(res)
    })
  })
}

export interface PartitionView {
  leader: number
  leader_epoch: number
  isr: number[]
  replicas: number[]
  partition_epoch: number
}

/** A broker's side of a BrokerSession stream that records everything it receives. */
export class FakeBroker {
  readonly messages: SessionMsg[] = []
  readonly call: grpc.ClientDuplexStream<wire.BrokerSessionRequest, SessionMsg>
  ended = false
  status: grpc.StatusObject | undefined

  constructor(
    client: MetadataClient,
    readonly reg: wire.RegisterBroker,
  ) {
    this.call = client.BrokerSession()
    this.call.on('data', (m: SessionMsg) => {
      this.messages.push(m)
    })
    this.call.on('end', () => {
      this.ended = true
    })
    this.call.on('status', (s: grpc.StatusObject) => {
      this.status = s
    })
    this.call.on('error', () => {
      this.ended = true
    })
    this.call.write({ register: reg })
  }

  get brokerId(): number {
    return this.reg.broker_id ?? 0
  }

  get epoch(): string {
    const r = this.messages.find((m) => m.kind === 'registered')
    if (r?.registered == null) throw new Error(`broker ${this.brokerId} is not registered`)
    return r.registered.broker_epoch
  }

  async registered(): Promise<string> {
    await waitFor(
      () => this.messages.some((m) => m.kind === 'registered' || m.kind === 'error'),
      `registration of broker ${this.brokerId}`,
    )
    const err = this.messages.find((m) => m.kind === 'error')
    if (err !== undefined) throw new Error(`registration failed: ${JSON.stringify(err.error)}`)
    return this.epoch
  }

  async error(): Promise<wire.SessionError__Output> {
    await waitFor(() => this.messages.some((m) => m.kind === 'error'), `a session error for broker ${this.brokerId}`)
    return this.messages.find((m) => m.kind === 'error')!.error!
  }

  heartbeat(epoch = this.epoch): void {
    this.call.write({ heartbeat: { broker_id: this.brokerId, broker_epoch: epoch } })
  }

  updates(): wire.MetadataUpdate__Output[] {
    return this.messages.filter((m) => m.kind === 'update').map((m) => m.update!)
  }

  /** The metadata as a broker would hold it after applying every update so far. */
  view(): { brokers: number[]; partitions: Map<string, PartitionView>; configs: Map<string, Record<string, string>> } {
    let brokers: number[] = []
    const partitions = new Map<string, PartitionView>()
    const configs = new Map<string, Record<string, string>>()
    for (const u of this.updates()) {
      if (u.full) {
        partitions.clear()
        configs.clear()
      }
      brokers = u.brokers.map((b) => b.broker_id)
      for (const t of u.deleted_topics) {
        for (const k of [...partitions.keys()])
          if (k.startsWith(`${t}-`) && /^\d+$/.test(k.slice(t.length + 1))) partitions.delete(k)
        configs.delete(t)
      }
      for (const p of u.partitions)
        partitions.set(`${p.topic}-${p.partition}`, {
          leader: p.leader,
          leader_epoch: p.leader_epoch,
          isr: p.isr,
          replicas: p.replicas,
          partition_epoch: p.partition_epoch,
        })
      for (const c of u.topic_configs) configs.set(c.topic, Object.fromEntries(c.entries.map((e) => [e.name, e.value])))
    }
    return { brokers, partitions, configs }
  }

  /** Half-closes the stream (a clean goodbye). */
  end(): void {
    this.call.end()
  }

  cancel(): void {
    this.call.cancel()
  }
}
