/**
 * The delivery core both consumers are built on: the assign consumer (consumer.ts) adds manual
 * assignment, the group consumer (group/group-consumer.ts) adds group membership. The core owns
 * what the application sees of consumption: the subscription state and the Fetcher that fills
 * its buffers, seek / pause / resume / position, and delivery (the messages() iterator and the
 * run() loop), which takes buffered batches partition by partition in rotation
 * (takeNextBatch) and advances `position` as each message (or batch) is handed out.
 *
 * How one message or batch is handed over is the subclass's: the assign consumer hands it
 * straight out; the group consumer hands it out only at a safe point (no rebalance work
 * running), keeps it in flight for commits, and retries or dead-letters a failed callback. The
 * core asks through protected hooks; the per-message ones (beforeHandOut, handOut, handedBack)
 * return undefined or a boolean when there is nothing to wait for, so the assign consumer's hot
 * path allocates and awaits nothing beyond what the application returns.
 */
import { SluiceError } from '@sluice/protocol'
import type { Logger } from '../logger.js'
import type { ConnectionPool } from '../network/connection-pool.js'
import type { MetadataCache } from '../network/metadata-cache.js'
import type {
  ConsumerBatch,
  ConsumerMessage,
  RunHandle,
  RunOptions,
  SeekOffset,
  TopicPartition,
} from './consumer-types.js'
import { takeNextBatch } from './fetched-records.js'
import { Fetcher, type FetcherOptions } from './fetcher.js'
import { SubscriptionState, assertSeekOffset, type PartitionState } from './subscription.js'

/** A batch taken for delivery, with its partition's generation then (a seek bumps it). */
export interface Delivered {
  s: PartitionState
  generation: number
  batch: ConsumerBatch
}

export abstract class DeliveryCore<O extends RunOptions> {
  protected readonly subs = new SubscriptionState()
  protected readonly fetcher: Fetcher
  protected closed = false
  /** True while the one messages() iterator or run() allowed per consumer is active. */
  protected delivering = false
  /** Set when the consumer failed for good: delivery throws it from then on. */
  protected failure: SluiceError | undefined
  /** How position() names a partition that stopped being assigned while it waited. */
  protected abstract readonly lostAs: string
  /** Delivery waiting for data wakes at least this often (undefined: only when data comes). */
  protected readonly idleWakeMs: number | undefined = undefined
  private rotation = 0

  constructor(
    protected readonly cache: MetadataCache,
    protected readonly pool: ConnectionPool,
    fetcherOptions: FetcherOptions,
    log: Logger,
  ) {
    this.fetcher = new Fetcher(this.subs, cache, pool, fetcherOptions, log)
  }

  // ---- what a subclass adds; the defaults add nothing ----

  /** seek() is about to move `s` (its buffers are dropped). */
  protected beforeSeek(_s: PartitionState): void {}
  /** run() checks the options the core does not know about. */
  protected checkRunOptions(_options: O): void {}
  /** Throws if this consumer cannot deliver yet (checked before the one-at-a-time rule). */
  protected assertCanDeliver(): void {}
  /** An iterator or run() just became the active delivery. */
  protected deliveryStarted(): void {}
  /** The active iterator or run() ended (normally, by break, stop, close or error). */
  protected deliveryEnded(): void {}
  /** Where delivery may let other work run before it takes the next batch; returns that work. */
  protected pollPoint(): Promise<void> | undefined {
    return undefined
  }
  /** What the iterator must wait for before it may hand out its next message. */
  protected beforeHandOut(): Promise<void> | undefined {
    return undefined
  }
  /** Whether the iterator may hand out message `i` of `next`; if so this moves the position past it. */
  protected abstract handOut(next: Delivered, i: number): boolean
  /** The application asked the iterator for more after message `i`: it is processed. */
  protected handedBack(_next: Delivered, _i: number): Promise<void> | undefined {
    return undefined
  }
  /** run({ eachBatch }) of one batch. */
  protected abstract runBatch(next: Delivered, options: O, signal: AbortSignal): Promise<void>
  /** run({ eachMessage }) of one batch's messages. */
  protected abstract runMessages(next: Delivered, options: O, signal: AbortSignal): Promise<void>

  // ---- position ----

  assignment(): TopicPartition[] {
    return [...this.subs.partitions.values()].map((s) => ({ topic: s.topic, partition: s.partition }))
  }

  seek(target: TopicPartition & { offset: SeekOffset }): void {
    this.assertOpen()
    const s = this.subs.mustGet(target)
    const o = target.offset
    assertSeekOffset(o)
    this.beforeSeek(s)
    this.subs.seek(s, o)
  }

  pause(tps: TopicPartition[]): void {
    this.subs.setPaused(tps, true)
  }

  resume(tps: TopicPartition[]): void {
    this.subs.setPaused(tps, false)
  }

  async position(tp: TopicPartition): Promise<bigint> {
    return await this.subs.positionOf(
      this.subs.mustGet(tp),
      () => {
        this.assertOpen()
      },
      this.lostAs,
    )
  }

  // ---- delivery ----

  [Symbol.asyncIterator](): AsyncIterableIterator<ConsumerMessage> {
    return this.messages()
  }

  async *messages(options: { signal?: AbortSignal } = {}): AsyncIterableIterator<ConsumerMessage> {
    this.beginDelivery()
    try {
      for (;;) {
        const next = await this.nextBatch(options.signal)
        if (next === undefined) return
        const messages = next.batch.messages
        for (let i = 0; i < messages.length; i++) {
          const control = this.beforeHandOut()
          if (control !== undefined) await control
          if (!this.handOut(next, i)) break
          yield messages[i]!
          const back = this.handedBack(next, i)
          if (back !== undefined) await back
        }
      }
    } finally {
      this.endDelivery()
    }
  }

  run(options: O): RunHandle {
    if (
      options === null ||
      typeof options !== 'object' ||
      (options.eachBatch === undefined && options.eachMessage === undefined)
    ) {
      throw new TypeError('run() needs eachMessage or eachBatch')
    }
    this.checkRunOptions(options)
    this.beginDelivery()
    const abort = new AbortController()
    const signal = abort.signal
    const done = (async () => {
      try {
        while (!signal.aborted) {
          let next: Delivered | undefined
          try {
            next = await this.nextBatch(signal)
          } catch (err) {
            if (signal.aborted) return
            throw err
          }
          if (next === undefined) return
          if (options.eachBatch !== undefined) await this.runBatch(next, options, signal)
          else await this.runMessages(next, options, signal)
        }
      } finally {
        this.endDelivery()
      }
    })()
    done.catch(() => {})
    return {
      done,
      stop: async () => {
        abort.abort()
        this.subs.notify()
        await done.catch(() => {})
      },
    }
  }

  protected assertOpen(): void {
    if (this.closed) throw new SluiceError('CLIENT_CLOSED', 'the consumer is closed')
  }

  private beginDelivery(): void {
    this.assertOpen()
    this.assertCanDeliver()
    if (this.delivering)
      throw new SluiceError('INVALID_ARGUMENT', 'only one messages() iterator or run() may be active per consumer')
    this.delivering = true
    this.deliveryStarted()
  }

  private endDelivery(): void {
    this.delivering = false
    this.deliveryEnded()
  }

  /** The next buffered batch of some partition (rotating), or undefined once closed or aborted. */
  private async nextBatch(signal?: AbortSignal): Promise<Delivered | undefined> {
    let poll = this.pollPoint()
    if (poll !== undefined) await poll
    for (;;) {
      if (this.closed || signal?.aborted === true) return undefined
      if (this.failure !== undefined) throw this.failure
      const next = takeNextBatch([...this.subs.partitions.values()], this.rotation)
      if (next !== undefined) {
        this.rotation = next.rotation
        this.subs.notify() // buffer space freed: the fetcher may fetch more
        return { s: next.s, generation: next.s.generation, batch: next.batch }
      }
      const onAbort = (): void => {
        this.subs.notify()
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      await this.subs.changed(this.idleWakeMs)
      signal?.removeEventListener('abort', onAbort)
      poll = this.pollPoint()
      if (poll !== undefined) await poll
    }
  }
}
