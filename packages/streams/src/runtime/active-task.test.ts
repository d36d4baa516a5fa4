import { describe, expect, it } from 'vitest'
import { ActiveTask } from './active-task.js'
import { tpKey } from './record-sender.js'
import type { StreamTask } from './task-contract.js'

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
