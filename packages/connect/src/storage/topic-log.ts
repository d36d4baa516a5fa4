/**
 * A compacted topic read from its start into memory and written through one producer: what
 * the worker keeps its connector configs, source offsets and statuses in (docs/connect.md,
 * "Where a worker keeps its state"). Every worker reads every partition (no group), so each has
 * the whole state; `readToEnd()` resolves once everything written before the call has been
 * applied, which is how a worker makes sure it saw a write before acting on it.
 */
import type { Admin, Consumer, Logger, Producer, RunHandle, SluiceClient } from '@sluice/client'
import { ConnectError } from '../errors.js'

export interface TopicLogOptions {
  readonly topic: string
  readonly partitions: number
  /** Undefined: the cluster's default. */
  readonly replicationFactor?: number
  readonly logger: Logger
  /** Called for every record, in offset order per partition. */
  readonly apply: (key: Buffer | null, value: Buffer | null, partition: number) => void
}

export class TopicLog {
  private consumer: Consumer | undefined
  private run: RunHandle | undefined
  /** Next offset to apply, per partition. */
  private readonly positions = new Map<number, bigint>()
  private waiters: Array<{ ends: Map<number, bigint>; resolve: () => void }> = []
  private partitionCount = 0

  constructor(
    private readonly client: SluiceClient,
    private readonly producer: Producer,
    private readonly options: TopicLogOptions,
  ) {}

  get topic(): string {
    return this.options.topic
  }

  /** Creates the topic when missing (compacted), then reads it to its end. */
  async start(): Promise<void> {
    const admin = this.client.admin()
    await ensureCompactedTopic(admin, this.options)
    const [d] = await admin.describeTopics([this.options.topic])
    this.partitionCount = d?.partitions.length ?? this.options.partitions
    this.consumer = this.client.consumer({ offsetReset: 'earliest', maxWaitMs: 200 })
    await this.consumer.assign([{ topic: this.options.topic }])
    this.run = this.consumer.run({
      eachBatch: ({ batch }) => {
        for (const m of batch.messages) this.options.apply(m.key, m.value, m.partition)
        const last = batch.messages.at(-1)
        if (last !== undefined) this.positions.set(batch.partition, last.offset + 1n)
        this.release()
      },
    })
    this.run.done.catch((err: unknown) => {
      this.options.logger.error({ err, topic: this.options.topic }, 'reading a worker state topic stopped')
    })
    await this.readToEnd()
  }

  /** Writes one record and waits for its acknowledgement. */
  async send(key: string, value: string | null, partition?: number): Promise<void> {
    await this.producer.send({
      topic: this.options.topic,
      records: [{ key, value, ...(partition !== undefined ? { partition } : {}) }],
    })
  }

  /** Resolves once every record written before the call has been applied. */
  async readToEnd(timeoutMs = 30_000): Promise<void> {
    const listed = await this.client.admin().listOffsets([{ topic: this.options.topic }], 'latest')
    const ends = new Map(listed.map((o) => [o.partition, o.offset]))
    if (this.caughtUp(ends)) return
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done)
        reject(new ConnectError('RUNTIME', `reading ${this.options.topic} to its end took over ${timeoutMs} ms`))
      }, timeoutMs)
      const done = (): void => {
        clearTimeout(timer)
        resolve()
      }
      this.waiters.push({ ends, resolve: done })
    })
  }

  get partitions(): number {
    return this.partitionCount
  }

  async stop(): Promise<void> {
    await this.run?.stop().catch(() => {})
    await this.consumer?.close().catch(() => {})
  }

  private caughtUp(ends: ReadonlyMap<number, bigint>): boolean {
    for (const [p, end] of ends) if ((this.positions.get(p) ?? 0n) < end) return false
    return true
  }

  private release(): void {
    const still: typeof this.waiters = []
    for (const w of this.waiters) {
      if (this.caughtUp(w.ends)) w.resolve()
      else still.push(w)
    }
    this.waiters = still
  }
}

/** Creates a compacted topic unless it exists; an existing one is left as it is. */
export async function ensureCompactedTopic(
  admin: Admin,
  t: { topic: string; partitions: number; replicationFactor?: number },
): Promise<void> {
  const existing = new Set(await admin.listTopics({ includeInternal: true }))
  if (existing.has(t.topic)) return
  try {
    await admin.createTopics([
      {
        name: t.topic,
        numPartitions: t.partitions,
        ...(t.replicationFactor !== undefined ? { replicationFactor: t.replicationFactor } : {}),
        configs: { 'cleanup.policy': 'compact' },
      },
    ])
  } catch (err) {
    // Another worker created it first.
    if ((err as { code?: string }).code !== 'TOPIC_ALREADY_EXISTS') throw err
  }
}
