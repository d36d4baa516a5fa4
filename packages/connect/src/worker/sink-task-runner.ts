/**
 * Runs one sink task: a group consumer in the connector's group (`connect-<name>`, Kafka
 * Connect's naming) reads the connector's topics; each batch is converted, transformed and
 * handed to put(); at most every `offset.flush.interval.ms`, at a revocation and on stop, the
 * task's flush() runs and only then are the offsets of what was put committed. So every
 * committed record is in the external system, and a crash repeats at most what came after the
 * last commit (at least once).
 */
import {
  type GroupConsumer,
  type Logger,
  type RunHandle,
  type SluiceClient,
  SluiceError,
  type TopicPartition,
} from '@sluice/client'
import type { ConnectorConfig } from '../api/config-def.js'
import type { SinkTask } from '../api/connector.js'
import type { SinkRecord } from '../api/records.js'
import type { ConsumedRecord } from '../errors-handling/error-context.js'
import type { RetryWithToleranceOperator } from '../errors-handling/retry-with-tolerance.js'
import type { RecordPipeline } from './record-pipeline.js'

export interface SinkTaskRunnerOptions {
  readonly connector: string
  readonly taskId: number
  readonly task: SinkTask
  readonly config: ConnectorConfig
  readonly client: SluiceClient
  readonly topics: readonly string[]
  readonly pipeline: RecordPipeline
  readonly logger: Logger
  readonly flushIntervalMs: number
  readonly onState: (state: 'RUNNING' | 'PAUSED' | 'FAILED', trace?: string) => void
  /**
   * Runs each stage (convert, transform, put) with the connector's errors.* policy; a record it
   * skips goes to the dead-letter topic when the connector names one.
   */
  readonly errors: RetryWithToleranceOperator
}

/** Commit refusals that mean "not in this generation": retried after the rejoin, not fatal. */
const GENERATION_ERRORS = new Set(['REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID'])

function partitionKey(tp: TopicPartition): string {
  return `${tp.topic}\u0000${tp.partition}`
}

export function sinkGroupId(connector: string): string {
  return `connect-${connector}`
}

export class SinkTaskRunner {
  private consumer: GroupConsumer | undefined
  private run: RunHandle | undefined
  /** Next offset to commit per partition: the records put() so far. */
  private readonly put = new Map<string, { tp: TopicPartition; offset: bigint }>()
  private lastCommit = Date.now()
  private paused = false
  private failed = false
  private delivered = 0
  /** put(), flush() and commits run one at a time: batches and the flush timer share it. */
  private serial: Promise<unknown> = Promise.resolve()
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly o: SinkTaskRunnerOptions) {}

  get metrics(): { delivered: number; skipped: number } {
    return { delivered: this.delivered, skipped: this.o.errors.metrics().skipped }
  }

  async start(): Promise<void> {
    const { task, logger } = this.o
    try {
      await task.start(this.o.config, { connector: this.o.connector, taskId: this.o.taskId, logger })
      this.consumer = this.o.client.consumer({
        groupId: sinkGroupId(this.o.connector),
        autoCommit: false,
        autoOffsetReset: 'earliest',
        rebalanceListener: {
          onPartitionsRevoked: async (revoked) => {
            if (!this.failed) await this.serially(() => this.flushAndCommit())
            // Whatever could not be committed now belongs to the next owner, who reads it again.
            for (const tp of revoked) this.put.delete(partitionKey(tp))
          },
          onPartitionsLost: () => {
            this.put.clear()
          },
        },
      })
      this.consumer.subscribe({ topics: [...this.o.topics] })
      this.run = this.consumer.run({
        eachBatch: async ({ batch }) => {
          if (this.failed) return
          await this.serially(() => this.onBatch(batch.topic, batch.partition, batch.messages))
        },
      })
      // Records put() and not followed by another batch are flushed and committed on time too.
      this.timer = setInterval(
        () => {
          if (this.failed || Date.now() - this.lastCommit < this.o.flushIntervalMs) return
          this.serially(() => this.flushAndCommit()).catch((err: unknown) => {
            this.fail(err)
          })
        },
        Math.max(50, Math.min(this.o.flushIntervalMs, 1000)),
      )
      this.timer.unref()
      this.run.done.catch((err: unknown) => {
        this.fail(err)
      })
      this.o.onState('RUNNING')
    } catch (err) {
      this.fail(err)
    }
  }

  pause(): void {
    this.paused = true
    const tps = this.consumer?.assignment() ?? []
    if (tps.length > 0) this.consumer!.pause(tps)
    this.o.onState('PAUSED')
  }

  resume(): void {
    if (!this.paused) return
    this.paused = false
    const tps = this.consumer?.assignment() ?? []
    if (tps.length > 0) this.consumer!.resume(tps)
    this.o.onState('RUNNING')
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer)
    this.o.errors.stop()
    await this.run?.stop().catch(() => {})
    if (!this.failed)
      await this.flushAndCommit().catch((err: unknown) => this.o.logger.warn({ err }, 'the last sink commit failed'))
    await this.consumer?.close().catch(() => {})
    await Promise.resolve(this.o.task.stop()).catch(() => {})
  }

  private async onBatch(
    topic: string,
    partition: number,
    messages: ReadonlyArray<{
      offset: bigint
      timestamp: bigint
      key: Buffer | null
      value: Buffer | null
      headers: Array<{ key: string; value: Buffer | null }>
    }>,
  ): Promise<void> {
    if (this.paused) this.consumer!.pause([{ topic, partition }])
    const { pipeline, errors } = this.o
    const records: SinkRecord[] = []
    for (const m of messages) {
      const consumed: ConsumedRecord = {
        topic,
        partition,
        offset: m.offset,
        timestamp: Number(m.timestamp),
        key: m.key,
        value: m.value,
        headers: m.headers,
      }
      const k = await errors.execute('KEY_CONVERTER', () => pipeline.keyConverter.toConnectData(topic, m.key), {
        record: consumed,
        className: pipeline.keyConverterClass,
      })
      if (!k.ok) continue
      const v = await errors.execute('VALUE_CONVERTER', () => pipeline.valueConverter.toConnectData(topic, m.value), {
        record: consumed,
        className: pipeline.valueConverterClass,
      })
      if (!v.ok) continue
      const r: SinkRecord = {
        topic,
        partition,
        offset: m.offset,
        timestamp: Number(m.timestamp),
        key: k.value.value,
        ...(k.value.schema !== undefined ? { keySchema: k.value.schema } : {}),
        value: v.value.value,
        ...(v.value.schema !== undefined ? { valueSchema: v.value.schema } : {}),
        headers: m.headers.map((h) => ({ key: h.key, value: h.value })),
      }
      const t = await errors.execute('TRANSFORMATION', () => pipeline.transform(r), { record: consumed })
      if (t.ok && t.value !== null) records.push(t.value)
    }
    if (records.length > 0) await errors.execute('TASK_PUT', () => this.o.task.put(records))
    this.delivered += records.length
    const last = messages.at(-1)
    if (last !== undefined)
      this.put.set(partitionKey({ topic, partition }), { tp: { topic, partition }, offset: last.offset + 1n })
  }

  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.serial.then(fn, fn)
    this.serial = next.catch(() => {})
    return next
  }

  private async flushAndCommit(): Promise<void> {
    this.lastCommit = Date.now()
    if (this.put.size === 0) return
    await this.o.task.flush()
    const pending = [...this.put.values()]
    this.put.clear()
    try {
      await this.consumer!.commit(pending.map((p) => ({ ...p.tp, offset: p.offset })))
    } catch (err) {
      if (!(err instanceof SluiceError && GENERATION_ERRORS.has(err.code))) throw err
      // The group is rebalancing: the consumer rejoins on its own. The records are flushed, so
      // their offsets are kept and committed at the next chance (a revocation, the next tick or
      // stop); a partition that moves meanwhile is dropped on revocation and read again by its
      // new owner (at least once). Failing the task here would stop a healthy sink for good.
      for (const p of pending) if (!this.put.has(partitionKey(p.tp))) this.put.set(partitionKey(p.tp), p)
      this.o.logger.info(
        { connector: this.o.connector, task: this.o.taskId, code: err.code },
        'sink offsets not committed during a rebalance; kept for the next commit',
      )
    }
  }

  private fail(err: unknown): void {
    if (this.failed) return
    this.failed = true
    if (this.timer !== undefined) clearInterval(this.timer)
    const trace = err instanceof Error ? (err.stack ?? err.message) : String(err)
    this.o.logger.error({ err, connector: this.o.connector, task: this.o.taskId }, 'sink task failed')
    this.o.onState('FAILED', trace)
  }
}
