/**
 * Reading the outcome back, two ways:
 * - `readTopic`: through the SDK, as any consumer would (from each leader, below the high
 *   watermark): every partition from its log start to the end offset it has when the read
 *   begins. The caller heals the cluster and waits for a full ISR first, so that end is final.
 * - `readReplicaFiles`: one broker's on-disk copy of a partition, decoded from its segment files
 *   (`<dataDir>/<topic>-<p>/<20-digit base offset>.log`, docs/design.md §4). Comparing the
 *   copies proves the replicas converged: a fenced zombie that kept its unacknowledged tail
 *   would hold different records at the same offsets. A trailing batch still being written is
 *   skipped by the decoder.
 */
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import type { SluiceClient, TopicPartition } from '@sluice/client'
import { decodeRecordBatches } from '@sluice/protocol'
import type { ReadRecord } from './checker.js'

const text = (b: Buffer | null): string | null => (b === null ? null : b.toString('utf8'))

/** Every record of every partition of `topic` up to the end offsets seen at the start. */
export async function readTopic(
  client: SluiceClient,
  topic: string,
  options: { timeoutMs?: number } = {},
): Promise<ReadRecord[]> {
  const timeoutMs = options.timeoutMs ?? 60_000
  const ends = new Map<number, bigint>()
  const endReader = client.consumer({ offsetReset: 'latest' })
  let tps: TopicPartition[]
  try {
    tps = await endReader.assign([{ topic }])
    for (const tp of tps) ends.set(tp.partition, await endReader.position(tp))
  } finally {
    await endReader.close()
  }
  const records: ReadRecord[] = []
  const pending = new Set(tps.filter((tp) => ends.get(tp.partition)! > 0n).map((tp) => tp.partition))
  if (pending.size === 0) return records
  const consumer = client.consumer({ offsetReset: 'earliest', maxWaitMs: 200 })
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), timeoutMs)
  try {
    await consumer.assign([{ topic }])
    for await (const m of consumer.messages({ signal: abort.signal })) {
      const end = ends.get(m.partition)!
      if (m.offset >= end) continue // written after the read began: not part of this check
      records.push({ partition: m.partition, offset: m.offset, key: text(m.key), value: text(m.value) })
      if (m.offset + 1n >= end) {
        pending.delete(m.partition)
        if (pending.size === 0) break
      }
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err
  } finally {
    clearTimeout(timer)
    await consumer.close()
  }
  if (pending.size > 0) {
    const behind = [...pending].map((p) => `${p} (end ${ends.get(p)!})`).join(', ')
    throw new Error(`reading ${topic} back did not reach the end of partition(s) ${behind} within ${timeoutMs} ms`)
  }
  return records
}

export interface ReplicaRecord {
  offset: bigint
  leaderEpoch: number
  key: string | null
  value: string | null
}

/** The records of one replica's log files, in offset order ([] when the replica has no dir). */
export async function readReplicaFiles(
  brokerDataDir: string,
  topic: string,
  partition: number,
): Promise<ReplicaRecord[]> {
  const dir = path.join(brokerDataDir, `${topic}-${partition}`)
  let names: string[]
  try {
    names = await readdir(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
  const segments = names.filter((n) => /^\d{20}\.log$/.test(n)).sort()
  const out: ReplicaRecord[] = []
  for (const name of segments) {
    for (const batch of decodeRecordBatches(await readFile(path.join(dir, name)))) {
      for (const r of batch.records) {
        out.push({
          offset: r.offset,
          leaderEpoch: batch.header.partitionLeaderEpoch,
          key: text(r.key),
          value: text(r.value),
        })
      }
    }
  }
  return out
}

/**
 * Undefined when the two copies hold the same records at the same offsets, stamped with the same
 * leader epochs (followers append the leader's batches unchanged), else the first difference.
 */
export function replicaDifference(a: readonly ReplicaRecord[], b: readonly ReplicaRecord[]): string | undefined {
  const n = Math.max(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a[i]
    const y = b[i]
    const show = (r: ReplicaRecord | undefined): string =>
      r === undefined ? 'nothing' : `${r.offset}:${String(r.value)} (epoch ${r.leaderEpoch})`
    if (
      x === undefined ||
      y === undefined ||
      x.offset !== y.offset ||
      x.value !== y.value ||
      x.key !== y.key ||
      x.leaderEpoch !== y.leaderEpoch
    ) {
      return `record #${i}: ${show(x)} vs ${show(y)}`
    }
  }
  return undefined
}
