/**
 * A compacted topic read from its start into memory and written through one producer: what
 * the worker keeps its connector configs, source offsets and statuses in (docs/connect.md,
 * "Where a worker keeps its state"). Every worker reads every partition (no group), so each has
 * the whole state; `readToEnd()` resolves once everything written before the call has been
 * applied, which is how a worker makes sure it saw a write before acting on it.
 *
 * The end is the partition's log end offset, but the consumer moves only on records it
 * delivers, and a compacted tail can hold no record up to the end: the cleaner keeps a
 * producer's last batch as an empty batch (for its producer state) once every record in it is
 * gone (an expired tombstone). Nothing would ever arrive from there, so a partition that made no
 * progress for `stallMs` while behind gets a marker written (a tombstone under READ_MARKER_KEY,
 * never applied): the consumer then delivers a record at or past the end.
 */
import type { Admin, Consumer, Logger, Producer, RunHandle, SluiceClient } from '@sluice/client'
import { ConnectError } from '../errors.js'

/** Key of the marker tombstone readToEnd() writes past a tail the consumer cannot deliver. */
export const READ_MARKER_KEY = '__sluice-connect-read-marker'

export interface TopicLogOptions {
  readonly topic: string
  readonly partitions: number
  /** Undefined: the cluster's default. */
  readonly replicationFactor?: number
  readonly logger: Logger
  /** Called for every record (but read markers), in offset order per partition. */
  readonly apply: (key: Buffer | null, value: Buffer | null, partition: number) => void
  /** How long a partition behind its end may make no progress before a marker is written. Default 2 s. */
  readonly stallMs?: number
}

const MARKER = Buffer.from(READ_MARKER_KEY)

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
        for (const m of batch.messages)
          if (m.key === null || !m.key.equals(MARKER)) this.options.apply(m.key, m.value, m.partition)
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
        clearInterval(stall)
        this.waiters = this.waiters.filter((w) => w.resolve !== done)
        reject(new ConnectError('RUNTIME', `reading ${this.options.topic} to its end took over ${timeoutMs} ms`))
      }, timeoutMs)
      const stall = this.watchStalls(ends)
      const done = (): void => {
        clearTimeout(timer)
        clearInterval(stall)
        resolve()
      }
      this.waiters.push({ ends, resolve: done })
    })
  }

  /** Every stallMs, writes a marker to each partition still behind `ends` that did not move. */
  private watchStalls(ends: ReadonlyMap<number, bigint>): NodeJS.Timeout {
    let seen = new Map(this.positions)
    const marked = new Set<number>()
    const timer = setInterval(() => {
      for (const [p, end] of ends) {
        const at = this.positions.get(p) ?? 0n
        if (at >= end || at !== (seen.get(p) ?? 0n) || marked.has(p)) continue
        marked.add(p)
        this.options.logger.info(
          { topic: this.options.topic, partition: p, at, end },
          'no record up to the end: writing a read marker',
        )
        this.send(READ_MARKER_KEY, null, p).catch((err: unknown) => {
          this.options.logger.warn({ err, topic: this.options.topic, partition: p }, 'writing a read marker failed')
        })
      }
      seen = new Map(this.positions)
    }, this.options.stallMs ?? 2000)
    timer.unref()
    return timer
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
