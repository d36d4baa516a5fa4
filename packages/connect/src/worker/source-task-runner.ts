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
import { ConnectError } from '../errors.js'
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
  /** errors.tolerance=all: a record that fails to transform or convert is skipped (logged). */
  readonly tolerateErrors: boolean
  /** Creates a topic the task writes to when it does not exist yet (running-work.ts). */
  readonly ensureTopic: (topic: string) => Promise<void>
}

export class SourceTaskRunner {
  private readonly abort = new AbortController()
  private paused = false
  private resumeWaiter: (() => void) | undefined
  private loop: Promise<void> | undefined
  private polled = 0
  private skipped = 0

  constructor(private readonly o: SourceTaskRunnerOptions) {}

  get metrics(): { polled: number; skipped: number } {
    return { polled: this.polled, skipped: this.skipped }
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
      this.o.onState('RUNNING')
      while (!this.abort.signal.aborted) {
        if (this.paused) {
          await new Promise<void>((resolve) => {
            this.resumeWaiter = resolve
          })
          continue
        }
        const records = await task.poll(this.abort.signal)
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
      // The offset moves on even for a record a transform drops: it was handled.
      newest.set(offsetKey(this.o.connector, r.sourcePartition), {
        partition: r.sourcePartition,
        offset: r.sourceOffset,
      })
      const out = this.convert(r)
      if (out === undefined) continue
      const list = byTopic.get(out.topic) ?? []
      list.push(out.record)
      byTopic.set(out.topic, list)
    }
    await Promise.all(
      [...byTopic].map(async ([topic, recs]) => {
        await this.o.ensureTopic(topic)
        await this.o.producer.send({ topic, records: recs })
      }),
    )
    const offsets = [...newest.values()]
    await this.o.storeOffsets(offsets)
    await this.o.task.commit?.(new Map(offsets.map((o) => [offsetKey(this.o.connector, o.partition), o.offset])))
  }

  private convert(r: SourceRecord): { topic: string; record: ProducerRecord } | undefined {
    try {
      const t = this.o.pipeline.transform(r)
      if (t === null) return undefined
      const key = this.o.pipeline.keyConverter.fromConnectData(t.topic, { schema: t.keySchema, value: t.key })
      const value = this.o.pipeline.valueConverter.fromConnectData(t.topic, { schema: t.valueSchema, value: t.value })
      return {
        topic: t.topic,
        record: {
          key,
          value,
          headers: t.headers.map((h) => ({ key: h.key, value: h.value === null ? null : Buffer.from(h.value) })),
          ...(t.partition !== undefined ? { partition: t.partition } : {}),
          ...(t.timestamp !== undefined ? { timestamp: t.timestamp } : {}),
        },
      }
    } catch (err) {
      if (!this.o.tolerateErrors) {
        throw new ConnectError(
          'TASK',
          `a record of ${this.o.connector} could not be converted: ${(err as Error).message}`,
          {
            cause: err,
          },
        )
      }
      this.skipped++
      this.o.logger.warn(
        { err, connector: this.o.connector, task: this.o.taskId },
        'skipped a source record (errors.tolerance=all)',
      )
      return undefined
    }
  }
}
