/**
 * The tasks' RecordSender over one SDK producer (acks 'all', idempotent): output, repartition
 * and changelog records. send() only queues, so a task's process() stays synchronous; the queued
 * records go to the producer in one send() per topic when the runtime dispatches (after each
 * input batch, or when many are queued). The commit path calls flush(), which resolves once every
 * record sent so far is acknowledged, and fails if any was not: then nothing is committed.
 * For changelog topics it remembers the offset after the newest acknowledged record of each
 * partition: what a task's checkpoint says its stores hold.
 */
import type { Producer, ProducerRecord, RecordHeader } from '@sluice/client'
import { StreamsError } from '../errors.js'
import type { RecordSender, SinkRecord } from './task-contract.js'

export function tpKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`
}

export class ProducerRecordSender implements RecordSender {
  private buffered = new Map<string, ProducerRecord[]>()
  private bufferedCount = 0
  private readonly pending = new Set<Promise<void>>()
  /** Records handed to the producer and not yet settled. */
  inFlightRecords = 0
  /** The first failed send; the app stops on it and commits nothing after it. */
  failure: Error | undefined
  /** Per changelog partition (tpKey): the offset after the newest acknowledged record. */
  readonly changelogEnds = new Map<string, bigint>()

  constructor(
    private readonly producer: Producer,
    private readonly isChangelog: (topic: string) => boolean,
    private readonly dispatchAt = 5_000,
  ) {}

  send(record: SinkRecord): void {
    const r: ProducerRecord = {
      key: record.key,
      value: record.value,
      headers: record.headers as RecordHeader[],
      timestamp: record.timestamp,
      ...(record.partition !== undefined ? { partition: record.partition } : {}),
    }
    let list = this.buffered.get(record.topic)
    if (list === undefined) {
      list = []
      this.buffered.set(record.topic, list)
    }
    list.push(r)
    if (++this.bufferedCount >= this.dispatchAt) this.dispatch()
  }

  /** Hands the queued records to the producer (one send per topic, in queue order). */
  dispatch(): void {
    if (this.bufferedCount === 0) return
    const batches = this.buffered
    this.buffered = new Map()
    this.bufferedCount = 0
    for (const [topic, records] of batches) {
      const changelog = this.isChangelog(topic)
      this.inFlightRecords += records.length
      const p = this.producer.send({ topic, records }).then(
        (meta) => {
          if (!changelog) return
          for (const m of meta) {
            const k = tpKey(m.topic, m.partition)
            const next = m.offset + 1n
            if ((this.changelogEnds.get(k) ?? -1n) < next) this.changelogEnds.set(k, next)
          }
        },
        (err: unknown) => {
          this.failure ??= err instanceof Error ? err : new Error(String(err))
        },
      )
      const tracked = p.finally(() => {
        this.inFlightRecords -= records.length
        this.pending.delete(tracked)
      })
      this.pending.add(tracked)
    }
  }

  /** Waits until every record handed over so far is settled (for backpressure: no error check). */
  async settle(): Promise<void> {
    await Promise.all([...this.pending])
  }

  /**
   * Dispatches what is queued and waits for every acknowledgement. Rejects with StreamsError
   * 'RUNTIME' when any record since the start failed: the caller must not commit.
   */
  async flush(): Promise<void> {
    this.dispatch()
    await this.producer.flush().catch((err: unknown) => {
      this.failure ??= err instanceof Error ? err : new Error(String(err))
    })
    await this.settle()
    this.throwIfFailed()
  }

  throwIfFailed(): void {
    if (this.failure !== undefined) {
      throw new StreamsError('RUNTIME', `a record could not be written: ${this.failure.message}`, {
        cause: this.failure,
      })
    }
  }
}
