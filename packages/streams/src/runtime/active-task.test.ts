import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { StreamsBuilder } from '../dsl/streams-builder.js'
import { Serdes } from '../serdes/serdes.js'
import { ActiveTask, createActiveTask } from './active-task.js'
import { tpKey } from './record-sender.js'
import { STAMP_HEADER, stampOf } from './repartition-stamp.js'
import type { SinkRecord, StreamTask } from './task-contract.js'

describe('ActiveTask.lag', () => {
  it('sums, per partition, the last fetch high watermark less the next offset to process', () => {
    const tps = [
      { topic: 'in', partition: 0 },
      { topic: 'in2', partition: 0 },
    ]
    const t = new ActiveTask({ subtopology: 0, partition: 0 }, {} as StreamTask, tps, '/nonexistent', [])
    expect(t.lag()).toBe(0) // nothing fetched yet
    t.highWatermarks.set(tpKey('in', 0), 10n)
    expect(t.lag()).toBe(10) // fetched, nothing processed: offsets 0..9 wait
    t.processed.set(tpKey('in', 0), { tp: tps[0]!, offset: 6n })
    t.highWatermarks.set(tpKey('in2', 0), 5n)
    t.processed.set(tpKey('in2', 0), { tp: tps[1]!, offset: 4n })
    expect(t.lag()).toBe(3) // 7..9 of `in`, none of `in2`
  })
})

describe('createActiveTask: the repartition stamps of its writes', () => {
  it('a sub-topology without stores stamps its repartition writes; one with stores does not', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-active-task-test-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const builder = new StreamsBuilder()
    builder
      .stream('lines', { keySerde: Serdes.string(), valueSerde: Serdes.string() })
      .flatMapValues((line) => line.split(' '))
      .groupBy((_k, w) => w, { name: 'words', keySerde: Serdes.string(), valueSerde: Serdes.string() })
      .count({ name: 'counts', caching: false })
      .toStream()
      .repartition({ name: 'again', keySerde: Serdes.string(), valueSerde: Serdes.long() })
      .to('out', { keySerde: Serdes.string(), valueSerde: Serdes.long() })
    const plan = builder.build().plan('app')
    const sent: SinkRecord[] = []
    const deps = {
      plan,
      stateDir: dir,
      sender: { send: (r: SinkRecord) => sent.push(r) },
      clock: () => 0,
      onDeserializationError: 'fail' as const,
      partitionsOf: () => 1,
    }
    const record = (topic: string, offset: bigint, key: string | null, value: string) => ({
      topic,
      partition: 0,
      offset,
      key: key === null ? null : Buffer.from(key),
      value: Buffer.from(value),
      timestamp: 1,
      headers: [],
    })
    const split = await createActiveTask({ subtopology: 0, partition: 0 }, [{ topic: 'lines', partition: 0 }], deps)
    split.task.process(record('lines', 12n, null, 'x y'))
    const words = sent.splice(0)
    expect(words.map((r) => [r.topic, stampOf(r.headers)])).toEqual([
      ['app-words-repartition', { topic: 'lines', partition: 0, offset: 12n, index: 0 }],
      ['app-words-repartition', { topic: 'lines', partition: 0, offset: 12n, index: 1 }],
    ])
    expect(split.applied.forPartition('lines', 0)).toBeUndefined()

    const count = await createActiveTask(
      { subtopology: 1, partition: 0 },
      [{ topic: 'app-words-repartition', partition: 0 }],
      deps,
    )
    expect(count.applied.forPartition('app-words-repartition', 0)).toBeDefined()
    // Its input's stamp is not passed on: the count (a store) writes unstamped.
    count.task.process({ ...record('app-words-repartition', 0n, 'x', 'x'), headers: words[0]!.headers })
    const again = sent.filter((r) => r.topic === 'app-again-repartition')
    expect(again).toHaveLength(1)
    expect(again[0]!.headers.some((h) => h.key === STAMP_HEADER)).toBe(false)
    split.task.close()
    count.task.close()
  })
})
