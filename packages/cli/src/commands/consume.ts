/**
 * `sluice consume <topic>`: assigns the topic's partitions (or one), seeks each to the start the
 * flags ask for, and prints one record per line. Without --follow it first reads the end offsets
 * (high watermarks) and stops once every partition has reached the end it had at start (or after
 * --max-messages); a partition already at its end is paused and never fetched. With --follow it
 * long-polls until Ctrl-C. Either way SIGINT/SIGTERM end it cleanly with exit 0.
 */
import type { Consumer, ConsumerMessage, SeekOffset, TopicPartition } from '@sluice/client'
import { toJson, write, type CliIo } from '../output.js'
import type { CommandContext, ConsumeArgs } from '../command-types.js'
import { assertTopicExists, withClient } from './client.js'

export type ConsumeFormat = Pick<ConsumeArgs, 'printKey' | 'printOffset'> & { json: boolean }

function text(b: Buffer | null): string {
  return b === null ? 'null' : b.toString('utf8')
}

/** One output line (without newline): JSON, or `[partition:offset\t][key\t]value`. */
export function formatMessage(m: ConsumerMessage, f: ConsumeFormat): string {
  if (f.json) {
    return toJson({
      topic: m.topic,
      partition: m.partition,
      offset: m.offset,
      timestamp: m.timestamp,
      key: m.key === null ? null : m.key.toString('utf8'),
      value: m.value === null ? null : m.value.toString('utf8'),
      headers: Object.fromEntries(m.headers.map((h) => [h.key, h.value === null ? null : h.value.toString('utf8')])),
    })
  }
  const parts: string[] = []
  if (f.printOffset) parts.push(`${m.partition}:${m.offset}`)
  if (f.printKey) parts.push(text(m.key))
  parts.push(text(m.value))
  return parts.join('\t')
}

export function startOffset(args: ConsumeArgs): SeekOffset {
  if (args.offset !== undefined) return args.offset
  if (args.fromTimestamp !== undefined) return { timestamp: args.fromTimestamp }
  if (args.fromBeginning) return 'beginning'
  return args.follow ? 'end' : 'beginning'
}

export async function consume(ctx: CommandContext, topic: string, args: ConsumeArgs): Promise<number> {
  return await withClient(ctx, async (client) => {
    await assertTopicExists(client, topic, args.partition)
    const consumer = client.consumer({ maxWaitMs: 500, offsetReset: 'none' })
    const abort = new AbortController()
    const onSignal = (): void => abort.abort()
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
    try {
      const count = await consumeLoop(consumer, topic, args, ctx, abort.signal)
      ctx.io.stderr.write(`consumed ${count} record(s)\n`)
      return 0
    } finally {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      await consumer.close().catch(() => {})
    }
  })
}

/** The high watermarks now, through the consumer itself: seek to 'end' and read the positions. */
async function endOffsets(consumer: Consumer, tps: TopicPartition[]): Promise<bigint[]> {
  for (const tp of tps) consumer.seek({ ...tp, offset: 'end' })
  return await Promise.all(tps.map(async (tp) => await consumer.position(tp)))
}

/** Prints records until done; returns how many were printed. */
export async function consumeLoop(
  consumer: Consumer,
  topic: string,
  args: ConsumeArgs,
  ctx: { json: boolean; io: CliIo },
  signal: AbortSignal,
): Promise<number> {
  const tps = await consumer.assign([{ topic, partition: args.partition }])
  const endAt = args.follow ? [] : await endOffsets(consumer, tps)
  const start = startOffset(args)
  for (const tp of tps) consumer.seek({ ...tp, offset: start })
  // partition -> end offset still to reach; absent once reached (only without --follow).
  const remaining = new Map<number, bigint>()
  if (!args.follow) {
    const positions = await Promise.all(tps.map(async (tp) => await consumer.position(tp)))
    tps.forEach((tp, i) => {
      const end = endAt[i]!
      if (positions[i]! < end) remaining.set(tp.partition, end)
    })
    consumer.pause(tps.filter((tp) => !remaining.has(tp.partition)))
    if (remaining.size === 0) return 0
  }
  const format: ConsumeFormat = { json: ctx.json, printKey: args.printKey, printOffset: args.printOffset }
  let count = 0
  try {
    for await (const m of consumer.messages({ signal })) {
      if (!args.follow) {
        const end = remaining.get(m.partition)
        if (end === undefined) continue
        // Offsets may skip (compaction), so a record past the end also finishes the partition.
        if (m.offset + 1n >= end) {
          remaining.delete(m.partition)
          consumer.pause([{ topic, partition: m.partition }])
        }
        if (m.offset >= end) {
          if (remaining.size === 0) break
          continue
        }
      }
      await write(ctx.io.stdout, `${formatMessage(m, format)}\n`)
      count++
      if (args.maxMessages !== undefined && count >= args.maxMessages) break
      if (!args.follow && remaining.size === 0) break
    }
  } catch (err) {
    if (!signal.aborted) throw err
  }
  return count
}
