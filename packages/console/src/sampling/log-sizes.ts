/**
 * Partition sizes in bytes for the topics pages. The SDK has no call for them, but every broker
 * exports `sluice_log_size_bytes{topic,partition}` for the replicas it hosts (docs/metrics.md)
 * on its admin port, so the console reads them there and shows the leader's. One scrape of all
 * brokers is shared by every request, and a page never waits for a refresh: once sizes older
 * than `ttlMs` are asked for, a new scrape starts in the background and this answer uses the
 * previous one (a broker with 1,000 partitions answers ~270 KB of metrics, tens of ms to fetch
 * and read). Only the very first request waits, and at most `timeoutMs` (sizes unknown, null,
 * after that). Brokers without an admin port give no sizes.
 */
import type { SluiceClient, TopicDescription } from '@sluice/client'
import { tpKey } from '../log-offsets.js'
import { scrapeMetrics } from './prometheus-text.js'

const SIZE_METRIC = 'sluice_log_size_bytes'
const WANTED = new Set([SIZE_METRIC])

/** broker id -> (topic/partition key -> bytes) */
type SizesByBroker = Map<number, Map<string, number>>

export class LogSizes {
  private current: SizesByBroker | undefined
  private currentAt = 0
  private refreshing: Promise<SizesByBroker> | undefined

  constructor(
    private readonly client: SluiceClient,
    private readonly ttlMs = 5_000,
    private readonly timeoutMs = 1_000,
  ) {}

  /** Size of each partition of these topics on its leader; absent when unknown. */
  async of(topics: readonly TopicDescription[]): Promise<Map<string, number>> {
    const byBroker = await this.scrape()
    const out = new Map<string, number>()
    for (const t of topics)
      for (const p of t.partitions) {
        const k = tpKey(t.name, p.partition)
        const size = byBroker.get(p.leader)?.get(k)
        if (size !== undefined) out.set(k, size)
      }
    return out
  }

  private async scrape(): Promise<SizesByBroker> {
    if (this.refreshing === undefined && (this.current === undefined || Date.now() - this.currentAt > this.ttlMs)) {
      this.refreshing = this.scrapeAll()
        .catch(() => new Map<number, Map<string, number>>())
        .then((sizes) => {
          this.current = sizes
          this.currentAt = Date.now()
          return sizes
        })
        .finally(() => {
          this.refreshing = undefined
        })
    }
    if (this.current !== undefined) return this.current
    const bound = new Promise<SizesByBroker>((resolve) => setTimeout(() => resolve(new Map()), this.timeoutMs).unref())
    return await Promise.race([this.refreshing!, bound])
  }

  private async scrapeAll(): Promise<SizesByBroker> {
    const { brokers } = await this.client.admin().describeCluster()
    const out: SizesByBroker = new Map()
    await Promise.all(
      brokers
        .filter((b) => b.adminPort > 0)
        .map(async (b) => {
          const parsed = await scrapeMetrics(b.host, b.adminPort, WANTED, this.timeoutMs)
          const sizes = new Map<string, number>()
          for (const s of parsed?.get(SIZE_METRIC) ?? []) {
            const { topic, partition } = s.labels
            if (topic !== undefined && partition !== undefined) sizes.set(tpKey(topic, Number(partition)), s.value)
          }
          out.set(b.brokerId, sizes)
        }),
    )
    return out
  }
}

/** Sum of the known sizes of a topic's partitions; null when none is known. */
export function topicSize(t: TopicDescription, sizes: ReadonlyMap<string, number>): number | null {
  let total: number | null = null
  for (const p of t.partitions) {
    const s = sizes.get(tpKey(t.name, p.partition))
    if (s !== undefined) total = (total ?? 0) + s
  }
  return total
}
