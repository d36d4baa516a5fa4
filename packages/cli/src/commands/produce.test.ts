import { SluiceError } from '@sluice/protocol'
import type { ProducerRecord, RecordMetadata } from '@sluice/client'
import { describe, expect, it } from 'vitest'
import { produceLines } from './produce.js'

/** A producer whose sends complete only when the test says so. */
function fakeProducer() {
  const sends: Array<{ records: ProducerRecord[]; resolve: () => void; reject: (e: unknown) => void }> = []
  return {
    sends,
    send: async (req: { topic: string; records: ProducerRecord[] }): Promise<RecordMetadata[]> =>
      await new Promise<RecordMetadata[]>((resolve, reject) => {
        sends.push({ records: req.records, resolve: () => resolve([]), reject })
      }),
  }
}

async function* lines(n: number, counter: { pulled: number }): AsyncGenerator<string> {
  for (let i = 0; i < n; i++) {
    counter.pulled++
    yield `k${i}:v${i}\n`
  }
}

describe('produceLines', () => {
  it('sends every line once, split at the key separator, in order', async () => {
    const p = fakeProducer()
    const counter = { pulled: 0 }
    const done = produceLines(
      {
        send: async (r) => {
          const x = p.send(r)
          p.sends.at(-1)!.resolve()
          return await x
        },
      },
      'orders',
      lines(2500, counter),
      { keySeparator: ':' },
    )
    const summary = await done
    expect(summary).toEqual({ sent: 2500, acknowledged: 2500, failed: 0 })
    const all = p.sends.flatMap((s) => s.records)
    expect(all).toHaveLength(2500)
    expect(all[0]).toEqual({ key: 'k0', value: 'v0', partition: undefined })
    expect(all[2499]).toEqual({ key: 'k2499', value: 'v2499', partition: undefined })
  })

  it('stops reading input while too many sends are unacknowledged (back-pressure)', async () => {
    const p = fakeProducer()
    const counter = { pulled: 0 }
    const done = produceLines(p, 't', lines(100_000, counter), { partition: 3 })
    // Wait until the reader is blocked: 8 chunks of 1000 records in flight.
    for (let i = 0; i < 1000 && p.sends.length < 8; i++) await new Promise((resolve) => setImmediate(resolve))
    expect(p.sends).toHaveLength(8)
    const pulledWhileBlocked = counter.pulled
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
    expect(counter.pulled).toBe(pulledWhileBlocked)
    expect(pulledWhileBlocked).toBeLessThanOrEqual(8 * 1000 + 1)
    expect(p.sends[0]!.records[0]!.partition).toBe(3)
    // Releasing sends lets the rest through.
    let released = 0
    while (released < 100) {
      const next = p.sends[released]
      if (next === undefined) {
        await new Promise((resolve) => setImmediate(resolve))
        continue
      }
      next.resolve()
      released++
    }
    expect(await done).toEqual({ sent: 100_000, acknowledged: 100_000, failed: 0 })
  })

  it('counts the records of failed sends and keeps the first error', async () => {
    let call = 0
    const err = new SluiceError('NOT_ENOUGH_REPLICAS', 'isr too small')
    const summary = await produceLines(
      {
        send: async (r) => {
          call++
          if (call === 2) throw err
          return r.records.map(() => ({ topic: 't', partition: 0, offset: 0n, timestamp: 0n }))
        },
      },
      't',
      lines(2500, { pulled: 0 }),
      {},
    )
    expect(summary).toEqual({ sent: 2500, acknowledged: 1500, failed: 1000, firstError: err })
  })
})
