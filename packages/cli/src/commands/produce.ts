/**
 * `sluice produce <topic>`: one record per stdin line, streamed. Lines are grouped into chunks
 * handed to producer.send() without waiting for each acknowledgement; at most MAX_CHUNKS_IN_FLIGHT
 * chunks are outstanding, so a slow cluster stops the reading of stdin (back-pressure) and
 * memory stays bounded however large the input is. The summary goes to stderr so stdout can be
 * piped; the exit code is 1 when any record was not acknowledged.
 */
import type { Producer, ProducerRecord } from '@sluice/client'
import { readLines, splitKey } from '../line-reader.js'
import { formatError, type CliIo } from '../output.js'
import type { CommandContext, ProduceArgs } from '../command-types.js'
import { assertTopicExists, withClient } from './client.js'

const CHUNK_RECORDS = 1000
const CHUNK_CHARS = 1 << 20
const MAX_CHUNKS_IN_FLIGHT = 8

export interface ProduceSummary {
  sent: number
  acknowledged: number
  failed: number
  firstError?: unknown
}

export async function produce(ctx: CommandContext, topic: string, args: ProduceArgs): Promise<number> {
  return await withClient(ctx, async (client) => {
    await assertTopicExists(client, topic, args.partition)
    const producer = client.producer({ acks: args.acks, compression: args.compression, deliveryTimeoutMs: 60_000 })
    let summary: ProduceSummary
    try {
      summary = await produceLines(producer, topic, ctx.io.stdin, args)
    } finally {
      await producer.close().catch(() => {})
    }
    reportSummary(ctx.io, topic, summary)
    return summary.failed > 0 ? 1 : 0
  })
}

/** Reads lines and sends them; never throws for delivery failures, it counts them. */
export async function produceLines(
  producer: Pick<Producer, 'send'>,
  topic: string,
  input: AsyncIterable<Buffer | string>,
  args: Pick<ProduceArgs, 'keySeparator' | 'partition'>,
): Promise<ProduceSummary> {
  const summary: ProduceSummary = { sent: 0, acknowledged: 0, failed: 0 }
  const inFlight = new Set<Promise<void>>()
  let chunk: ProducerRecord[] = []
  let chunkChars = 0
  const flushChunk = async (): Promise<void> => {
    if (chunk.length === 0) return
    const records = chunk
    chunk = []
    chunkChars = 0
    summary.sent += records.length
    const p: Promise<void> = producer
      .send({ topic, records })
      .then(
        () => {
          summary.acknowledged += records.length
        },
        (err: unknown) => {
          // send() rejects with the first failure of the call; none of its records count as acked.
          summary.failed += records.length
          summary.firstError ??= err
        },
      )
      .finally(() => inFlight.delete(p))
    inFlight.add(p)
    while (inFlight.size >= MAX_CHUNKS_IN_FLIGHT) await Promise.race(inFlight)
  }
  for await (const line of readLines(input)) {
    const { key, value } = splitKey(line, args.keySeparator)
    chunk.push({ key, value, partition: args.partition })
    chunkChars += line.length
    if (chunk.length >= CHUNK_RECORDS || chunkChars >= CHUNK_CHARS) await flushChunk()
  }
  await flushChunk()
  await Promise.all(inFlight)
  return summary
}

function reportSummary(io: CliIo, topic: string, s: ProduceSummary): void {
  if (s.failed === 0) {
    io.stderr.write(`produced ${s.acknowledged} record(s) to ${topic}, 0 errors\n`)
    return
  }
  io.stderr.write(`produced ${s.acknowledged} of ${s.sent} record(s) to ${topic}; ${s.failed} not acknowledged\n`)
  io.stderr.write(formatError(s.firstError))
}
