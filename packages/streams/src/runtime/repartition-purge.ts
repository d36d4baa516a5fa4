/**
 * Repartition topics are the application's own plumbing: once a record's offset is committed by
 * the sub-topology that reads it, nobody needs it again. So, as Kafka Streams does, the runtime
 * deletes committed records from them (Kafka DeleteRecords through the admin client) at most
 * every `intervalMs`, in the background and best-effort: a failure is logged and the next purge
 * covers it. It is not part of the commit path; it only follows successful commits.
 */
import type { Admin, CommitOffset, Logger } from '@sluice/client'
import { tpKey } from './record-sender.js'

export class RepartitionPurger {
  private readonly pending = new Map<string, CommitOffset>()
  private lastPurgeAt = 0
  private running: Promise<void> | undefined

  constructor(
    private readonly admin: Admin,
    private readonly repartitionTopics: ReadonlySet<string>,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  /** Offsets just committed; the repartition ones are deleted up to there when the interval has passed. */
  committed(offsets: readonly CommitOffset[]): void {
    for (const o of offsets) if (this.repartitionTopics.has(o.topic)) this.pending.set(tpKey(o.topic, o.partition), o)
    const now = Date.now()
    if (this.pending.size === 0 || this.running !== undefined || now - this.lastPurgeAt < this.intervalMs) return
    this.lastPurgeAt = now
    const targets = [...this.pending.values()].map((o) => ({
      topic: o.topic,
      partition: o.partition,
      beforeOffset: o.offset,
    }))
    this.pending.clear()
    this.running = this.admin
      .deleteRecords(targets)
      .then(
        () => {},
        (err: unknown) => {
          this.log.warn({ err }, 'purging committed records from repartition topics failed; the next purge retries')
        },
      )
      .finally(() => {
        this.running = undefined
      })
  }

  /** Waits for a purge in flight (close). */
  async idle(): Promise<void> {
    await this.running
  }
}
