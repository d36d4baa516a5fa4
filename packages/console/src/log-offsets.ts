/**
 * Log start and end offsets of partitions, the console's source for record counts and lag. Two
 * listOffsets calls (earliest, latest) cover any number of topics. The record count is
 * end - start: exact for a plain log, an upper bound once compaction removed records or
 * transaction markers took offsets (the SDK exposes no per-partition size or count).
 */
import type { SluiceClient, TopicDescription } from '@sluice/client'

export interface LogRange {
  readonly start: bigint
  readonly end: bigint
}

export const tpKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`

/**
 * Ranges of the partitions of these topics that have a leader: an offline partition would make
 * listOffsets retry until its timeout, and one offline partition must not stall a whole page
 * (its range is simply unknown, shown as null).
 */
export async function logRanges(
  client: SluiceClient,
  topics: readonly TopicDescription[],
): Promise<Map<string, LogRange>> {
  const out = new Map<string, LogRange>()
  const items = topics.flatMap((t) =>
    t.partitions.filter((p) => p.leader >= 0).map((p) => ({ topic: t.name, partition: p.partition })),
  )
  if (items.length === 0) return out
  const admin = client.admin()
  type Item = (typeof items)[number]
  const read = async (batch: Item[]): Promise<void> => {
    const [starts, ends] = await Promise.all([admin.listOffsets(batch, 'earliest'), admin.listOffsets(batch, 'latest')])
    const startOf = new Map(starts.map((s) => [tpKey(s.topic, s.partition), s.offset]))
    for (const e of ends) {
      const k = tpKey(e.topic, e.partition)
      out.set(k, { start: startOf.get(k) ?? 0n, end: e.offset })
    }
  }
  // One call for all. Should one partition refuse (just added, its leader not yet serving it, or
  // its topic deleted meanwhile), ask each on its own so only that one is unknown (null).
  await read(items).catch(async () => {
    await Promise.all(items.map(async (item) => await read([item]).catch(() => {})))
  })
  return out
}

/** Log end offsets only (lag needs no start), tolerating topics that no longer exist. */
export async function logEnds(client: SluiceClient, topics: readonly string[]): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>()
  const unique = [...new Set(topics)]
  if (unique.length === 0) return out
  const admin = client.admin()
  const read = async (names: string[]): Promise<void> => {
    const ends = await admin.listOffsets(
      names.map((topic) => ({ topic })),
      'latest',
    )
    for (const e of ends) out.set(tpKey(e.topic, e.partition), e.offset)
  }
  // One call for all; should one topic be gone (a committed offset outlives its topic), per topic.
  await read(unique).catch(async () => {
    await Promise.all(unique.map(async (t) => await read([t]).catch(() => {})))
  })
  return out
}
