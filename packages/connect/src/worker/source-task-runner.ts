/**
 * Runs one source task: poll, transform, convert, produce; once a poll's records are all
 * acknowledged, the newest source offset of each source partition among them is written to
 * the offsets topic, and only after that is acknowledged is the task told (commit()), so what
 * the source releases on commit (a PostgreSQL LSN) is always behind what Sluice holds. A crash
 * in between repeats at most the records after the last stored offset (at least once).
 */
import type { Logger, Producer, ProducerRecord } from '@sluice/client'
import type { ConnectorConfig } from '../api/config-def.js'
import type { SourceTask } from '../api/connector.js'
import type { SourceRecord } from '../api/records.js'
import type { RetryWithToleranceOperator } from '../errors-handling/retry-with-tolerance.js'
import { offsetKey, type OffsetMap } from '../storage/offset-store.js'
import type { RecordPipeline } from './record-pipeline.js'

export interface SourceTaskRunnerOptions {
  readonly connector: string
  readonly taskId: number
  readonly task: SourceTask
  readonly config: ConnectorConfig
  readonly producer: Producer
  readonly pipeline: RecordPipeline
  readonly logger: Logger
  readonly offsetOf: (partition: OffsetMap) => Promise<OffsetMap | undefined>
  /** Stores offsets (acked on return). */
  readonly storeOffsets: (offsets: ReadonlyArray<{ partition: OffsetMap; offset: OffsetMap }>) => Promise<void>
  /** Called on every state change of the task. */
  readonly onState: (state: 'RUNNING' | 'PAUSED' | 'FAILED', trace?: string) => void
  /** Runs each stage (poll, transform, convert, produce) with the connector's errors.* policy. */
  readonly errors: RetryWithToleranceOperator
  /** Creates a topic the task writes to when it does not exist yet (running-work.ts). */
  readonly ensureTopic: (topic: string) => Promise<void>
}

export class SourceTaskRunner {
  private readonly abort = new AbortController()
  private paused = false
  private resumeWaiter: (() => void) | undefined
  private loop: Promise<void> | undefined
  private polled = 0

  constructor(private readonly o: SourceTaskRunnerOptions) {}

  get metrics(): { polled: number; skipped: number } {
    return { polled: this.polled, skipped: this.o.errors.metrics().skipped }
  }

  start(): void {
    this.loop = this.run()
  }

  pause(): void {
    this.paused = true
    this.o.onState('PAUSED')
  }

  resume(): void {
    if (!this.paused) return
    this.paused = false
    this.resumeWaiter?.()
    this.o.onState('RUNNING')
  }

  async stop(): Promise<void> {
    this.abort.abort()
    this.o.errors.stop()
    this.resumeWaiter?.()
    await this.loop
  }

  private async run(): Promise<void> {
    const { task, logger } = this.o
    try {
      await task.start(this.o.config, {
        connector: this.o.connector,
        taskId: this.o.taskId,
        logger,
        offsetOf: this.o.offsetOf,
      })
      // A pause that came while the task was starting (a task restarted with new configs while
      // its connector is PAUSED) stands: reporting RUNNING here would hide it for good.
      if (this.abort.signal.aborted) return
      this.o.onState(this.paused ? 'PAUSED' : 'RUNNING')
      while (!this.abort.signal.aborted) {
        if (this.paused) {
          await new Promise<void>((resolve) => {
            this.resumeWaiter = resolve
          })
          continue
        }
        const polled = await this.o.errors.execute('TASK_POLL', () => task.poll(this.abort.signal))
        const records = polled.ok ? polled.value : []
        if (records.length === 0) continue
        this.polled += records.length
        await this.deliver(records)
      }
    } catch (err) {
      if (this.abort.signal.aborted) return
      const trace = err instanceof Error ? (err.stack ?? err.message) : String(err)
      logger.error({ err, connector: this.o.connector, task: this.o.taskId }, 'source task failed')
      this.o.onState('FAILED', trace)
    } finally {
      await Promise.resolve(task.stop()).catch((err: unknown) => {
        logger.warn({ err }, 'stopping a source task failed')
      })
    }
  }

  /** Produces a poll's records, then stores their offsets, then tells the task. */
  private async deliver(records: readonly SourceRecord[]): Promise<void> {
    const byTopic = new Map<string, ProducerRecord[]>()
    const newest = new Map<string, { partition: OffsetMap; offset: OffsetMap }>()
    for (const r of records) {
      // The offset moves on even for a record a transform drops or the error policy skips: it was handled.
      newest.set(offsetKey(this.o.connector, r.sourcePartition), {
        partition: r.sourcePartition,
        offset: r.sourceOffset,
      })
      const out = await this.convert(r)
      if (out === undefined) continue
      const list = byTopic.get(out.topic) ?? []
      list.push(out.record)
      byTopic.set(out.topic, list)
    }
    await Promise.all(
      [...byTopic].map(async ([topic, recs]) => {
        await this.o.ensureTopic(topic)
        // errors.tolerance=all skips a batch the cluster refuses for good (Kafka since 3.2).
        await this.o.errors.execute('KAFKA_PRODUCE', () => this.o.producer.send({ topic, records: recs }))
      }),
    )
    const offsets = [...newest.values()]
    await this.o.storeOffsets(offsets)
    await this.o.task.commit?.(new Map(offsets.map((o) => [offsetKey(this.o.connector, o.partition), o.offset])))
  }

  /** The record as produced, or undefined when a transform dropped it or the error policy skipped it. */
  private async convert(r: SourceRecord): Promise<{ topic: string; record: ProducerRecord } | undefined> {
    const { pipeline, errors } = this.o
    const t = await errors.execute('TRANSFORMATION', () => pipeline.transform(r), { record: r })
    if (!t.ok || t.value === null) return undefined
    const out = t.value
    const key = await errors.execute(
      'KEY_CONVERTER',
      () => pipeline.keyConverter.fromConnectData(out.topic, { schema: out.keySchema, value: out.key }),
      { record: r, className: pipeline.keyConverterClass },
    )
    if (!key.ok) return undefined
    const value = await errors.execute(
      'VALUE_CONVERTER',
      () => pipeline.valueConverter.fromConnectData(out.topic, { schema: out.valueSchema, value: out.value }),
      { record: r, className: pipeline.valueConverterClass },
    )
    if (!value.ok) return undefined
    return {
      topic: out.topic,
      record: {
        key: key.value,
        value: value.value,
        headers: out.headers.map((h) => ({ key: h.key, value: h.value === null ? null : Buffer.from(h.value) })),
        ...(out.partition !== undefined ? { partition: out.partition } : {}),
        ...(out.timestamp !== undefined ? { timestamp: out.timestamp } : {}),
      },
    }
  }
}
