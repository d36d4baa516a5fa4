/**
 * End offsets for the consumer-lag gauge. The coordinator knows committed offsets, but only the
 * partition leaders know high watermarks, so on scrape this asks them with ListOffsets (latest),
 * one call per topic through a lazily connected client of its own, bootstrapped from the live
 * brokers' registered endpoints. That is O(leaders) small RPCs per scrape, not per commit, and
 * results are reused for `refreshMs` so several scrapers (or a fast one) cost no more. A
 * refresh is bounded by `timeoutMs`; when it fails the last known offsets are used and the
 * partitions never answered simply have no lag series. (Kafka's own broker exports no lag;
 * exporters compute it this same way.)
 */
import { connect, type SluiceClient } from '@sluice/client'
import type { Logger } from 'pino'

export interface ConsumerLagReaderOptions {
  /** host:port of live brokers, read before each connection attempt. */
  readonly bootstrap: () => string[]
  readonly logger: Logger
  /** End offsets younger than this are reused (default 5000). */
  readonly refreshMs?: number
  /** Budget of one refresh (default 3000). */
  readonly timeoutMs?: number
}

export type EndOffsets = Map<string, Map<number, bigint>>

export class ConsumerLagReader {
  private client: Promise<SluiceClient> | undefined
  private ends: EndOffsets = new Map()
  private fetchedAtMs = 0
  private refreshing: Promise<void> | undefined
  private closed = false

  constructor(private readonly options: ConsumerLagReaderOptions) {}

  /** High watermarks of `partitions` (those it could learn; possibly up to refreshMs old). */
  async endOffsets(partitions: Iterable<{ readonly topic: string; readonly partition: number }>): Promise<EndOffsets> {
    const topics = new Set<string>()
    let covered = true
    for (const p of partitions) {
      topics.add(p.topic)
      if (this.ends.get(p.topic)?.get(p.partition) === undefined) covered = false
    }
    const fresh = Date.now() - this.fetchedAtMs < (this.options.refreshMs ?? 5000)
    if ((!fresh || !covered) && !this.closed) {
      this.refreshing ??= this.refresh([...topics]).finally(() => {
        this.refreshing = undefined
      })
      await this.refreshing
    }
    return this.ends
  }

  private async refresh(topics: string[]): Promise<void> {
    const timeoutMs = this.options.timeoutMs ?? 3000
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs)
    })
    try {
      const work = (async () => {
        const admin = (await this.connected()).admin()
        const results = await Promise.allSettled(
          topics.map(async (topic) => await admin.listOffsets([{ topic }], 'latest')),
        )
        const next: EndOffsets = new Map()
        for (const [i, r] of results.entries()) {
          if (r.status === 'rejected') {
            this.options.logger.debug(
              { err: r.reason, topic: topics[i] },
              'listing end offsets for consumer lag failed',
            )
            const old = this.ends.get(topics[i]!)
            if (old !== undefined) next.set(topics[i]!, old)
            continue
          }
          const m = new Map<number, bigint>()
          for (const o of r.value) m.set(o.partition, o.offset)
          next.set(topics[i]!, m)
        }
        this.ends = next
        this.fetchedAtMs = Date.now()
      })()
      if ((await Promise.race([work.then(() => 'done' as const), deadline])) === 'timeout') {
        work.catch(() => {})
        this.options.logger.debug(
          { timeoutMs },
          'listing end offsets for consumer lag timed out; using the last known ones',
        )
      }
    } catch (err) {
      this.options.logger.debug({ err }, 'connecting for consumer lag failed; using the last known end offsets')
      this.client = undefined
    } finally {
      clearTimeout(timer)
    }
  }

  private async connected(): Promise<SluiceClient> {
    this.client ??= (async () => {
      const bootstrap = this.options.bootstrap()
      if (bootstrap.length === 0) throw new Error('no live broker to ask for end offsets')
      return await connect({
        bootstrap,
        clientId: 'sluice-metadata-lag',
        requestTimeoutMs: this.options.timeoutMs ?? 3000,
        retry: { retries: 1 },
      })
    })()
    try {
      return await this.client
    } catch (err) {
      this.client = undefined
      throw err
    }
  }

  async close(): Promise<void> {
    this.closed = true
    const client = this.client
    this.client = undefined
    if (client !== undefined) await (await client.catch(() => undefined))?.close()
  }
}
