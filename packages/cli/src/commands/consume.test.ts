import type { Consumer, ConsumerMessage, SeekOffset, TopicPartition } from '@sluice/client'
import { describe, expect, it } from 'vitest'
import { testIo } from '../test-io.js'
import type { ConsumeArgs } from '../command-types.js'
import { consumeLoop, formatMessage, startOffset } from './consume.js'

function msg(partition: number, offset: bigint, key: string | null, value: string | null): ConsumerMessage {
  return {
    topic: 't',
    partition,
    offset,
    timestamp: 1000n,
    key: key === null ? null : Buffer.from(key),
    value: value === null ? null : Buffer.from(value),
    headers: [],
  }
}

/**
 * A consumer over fixed in-memory logs that delivers round-robin across unpaused partitions and,
 * like the real one, never ends by itself: once caught up it waits (here: until aborted).
 */
function fakeConsumer(logs: Map<number, ConsumerMessage[]>): Consumer & { fetchedBeyond: number[] } {
  const pos = new Map<number, bigint>()
  const paused = new Set<number>()
  const fetchedBeyond: number[] = []
  const c = {
    fetchedBeyond,
    assign: async (items: Array<{ topic: string; partition?: number }>): Promise<TopicPartition[]> => {
      const p = items[0]!.partition
      return [...logs.keys()].filter((x) => p === undefined || x === p).map((partition) => ({ topic: 't', partition }))
    },
    assignment: () => [],
    seek: (t: TopicPartition & { offset: SeekOffset }) => {
      const log = logs.get(t.partition)!
      const end = log.length === 0 ? 0n : log.at(-1)!.offset + 1n
      pos.set(
        t.partition,
        t.offset === 'beginning' ? 0n : t.offset === 'end' ? end : typeof t.offset === 'bigint' ? t.offset : 0n,
      )
    },
    pause: (tps: TopicPartition[]) => {
      for (const tp of tps) paused.add(tp.partition)
    },
    resume: () => {},
    position: async (tp: TopicPartition) => pos.get(tp.partition)!,
    messages: async function* (options?: { signal?: AbortSignal }): AsyncIterableIterator<ConsumerMessage> {
      for (;;) {
        let delivered = false
        for (const [p, log] of logs) {
          if (paused.has(p)) continue
          const m = log.find((x) => x.offset >= pos.get(p)!)
          if (m === undefined) continue
          pos.set(p, m.offset + 1n)
          delivered = true
          yield m
        }
        if (!delivered) {
          await new Promise<void>((_resolve, reject) => {
            if (options?.signal?.aborted === true) {
              reject(new Error('aborted'))
              return
            }
            options?.signal?.addEventListener('abort', () => reject(new Error('aborted')))
          })
        }
      }
    },
    run: () => {
      throw new Error('unused')
    },
    close: async () => {},
    [Symbol.asyncIterator]: () => {
      throw new Error('unused')
    },
  }
  return c as unknown as Consumer & { fetchedBeyond: number[] }
}

const base: ConsumeArgs = { fromBeginning: true, follow: false, printKey: false, printOffset: false }

function logsOf(counts: number[]): Map<number, ConsumerMessage[]> {
  return new Map(
    counts.map((n, p) => [p, Array.from({ length: n }, (_, i) => msg(p, BigInt(i), `k${p}-${i}`, `v${p}-${i}`))]),
  )
}

describe('consumeLoop', () => {
  it('stops at the end offsets seen at start, printing every record once', async () => {
    const logs = logsOf([3, 0, 2])
    const io = testIo()
    const n = await consumeLoop(fakeConsumer(logs), 't', base, { json: false, io }, new AbortController().signal)
    expect(n).toBe(5)
    expect(
      io
        .out()
        .split('\n')
        .filter((l) => l !== '')
        .sort(),
    ).toEqual(['v0-0', 'v0-1', 'v0-2', 'v2-0', 'v2-1'])
  })

  it('ignores records appended after the start (end offsets are fixed at start)', async () => {
    const logs = logsOf([2])
    const consumer = fakeConsumer(logs)
    const messages = consumer.messages.bind(consumer)
    // Two more records arrive once consumption has begun.
    consumer.messages = (options) => {
      logs.get(0)!.push(msg(0, 2n, 'k', 'late-2'), msg(0, 3n, 'k', 'late-3'))
      return messages(options)
    }
    const io = testIo()
    const n = await consumeLoop(consumer, 't', base, { json: false, io }, new AbortController().signal)
    expect(n).toBe(2)
    expect(io.out()).toBe('v0-0\nv0-1\n')
  })

  it('returns at once when every partition is already at its end', async () => {
    const n = await consumeLoop(
      fakeConsumer(logsOf([0, 0])),
      't',
      base,
      { json: false, io: testIo() },
      new AbortController().signal,
    )
    expect(n).toBe(0)
  })

  it('honours --max-messages, --partition and --offset', async () => {
    const io = testIo()
    const n = await consumeLoop(
      fakeConsumer(logsOf([5, 5])),
      't',
      { ...base, fromBeginning: false, partition: 1, offset: 2n, maxMessages: 2, printOffset: true, printKey: true },
      { json: false, io },
      new AbortController().signal,
    )
    expect(n).toBe(2)
    expect(io.out()).toBe('1:2\tk1-2\tv1-2\n1:3\tk1-3\tv1-3\n')
  })

  it('with --follow keeps waiting until aborted, then returns what it printed', async () => {
    const io = testIo()
    const abort = new AbortController()
    const running = consumeLoop(
      fakeConsumer(logsOf([2])),
      't',
      { ...base, follow: true },
      { json: false, io },
      abort.signal,
    )
    for (let i = 0; i < 100 && io.out() !== 'v0-0\nv0-1\n'; i++) await new Promise((resolve) => setImmediate(resolve))
    expect(io.out()).toBe('v0-0\nv0-1\n')
    abort.abort()
    expect(await running).toBe(2)
  })
})

describe('formatMessage and startOffset', () => {
  it('formats JSON with bigints as strings and null keys', () => {
    expect(
      JSON.parse(
        formatMessage(msg(3, 12345678901234567n, null, 'v'), { json: true, printKey: false, printOffset: false }),
      ),
    ).toEqual({
      topic: 't',
      partition: 3,
      offset: '12345678901234567',
      timestamp: '1000',
      key: null,
      value: 'v',
      headers: {},
    })
    expect(formatMessage(msg(0, 1n, null, null), { json: false, printKey: true, printOffset: false })).toBe(
      'null\tnull',
    )
  })

  it('starts at the beginning without --follow and at the end with it, unless told', () => {
    expect(startOffset({ ...base, fromBeginning: false })).toBe('beginning')
    expect(startOffset({ ...base, fromBeginning: false, follow: true })).toBe('end')
    expect(startOffset({ ...base, follow: true })).toBe('beginning')
    expect(startOffset({ ...base, offset: 7n })).toBe(7n)
    expect(startOffset({ ...base, fromTimestamp: 5n })).toEqual({ timestamp: 5n })
  })
})
