import { describe, expect, it } from 'vitest'
import type { CommitOffset, ConsumerMessage, Logger } from '@sluice/client'
import { ActiveTask } from './active-task.js'
import { AppliedPositions } from './applied-positions.js'
import { decodeCommitVouch, encodeChangelogBounds, restoreBoundOf } from './changelog-bounds.js'
import { processBatch, type BatchContext } from './process-batch.js'
import { encodeStamp, RepartitionStamper, STAMP_HEADER } from './repartition-stamp.js'
import type { SinkRecord, SourceRecord, StreamTask, TaskMetrics } from './task-contract.js'

const REP = 'app-words-repartition'
const ctx: BatchContext = {
  policy: 'fail',
  logger: { warn: () => {} } as unknown as Logger,
  punctuationDue: () => false,
  punctuate: () => {},
}

function stamped(offset: bigint, index: number, partition = 0, topic = 'lines'): { key: string; value: Buffer }[] {
  return [{ key: STAMP_HEADER, value: encodeStamp({ topic, partition, offset, index }) }]
}

/** A downstream task that counts the keys it processes (what the word count's count does). */
function countingTask(counts: Map<string, number>): StreamTask {
  const metrics: TaskMetrics = { processed: 0, droppedLate: 0, outOfOrder: 0, skipped: 0 }
  return {
    metrics,
    process: (r: SourceRecord) => {
      const k = r.key!.toString()
      counts.set(k, (counts.get(k) ?? 0) + 1)
      metrics.processed++
    },
  } as unknown as StreamTask
}

function downstream(counts: Map<string, number>): ActiveTask {
  return new ActiveTask(
    { subtopology: 1, partition: 0 },
    countingTask(counts),
    [{ topic: REP, partition: 0 }],
    '/nonexistent',
    [],
    new Set([REP]),
  )
}

/** The repartition partition as a log: what the upstream wrote, in order. */
class RepartitionLog {
  readonly records: ConsumerMessage[] = []
  write(r: SinkRecord): void {
    this.records.push({
      offset: BigInt(this.records.length),
      key: r.key,
      value: r.value,
      headers: [...r.headers] as ConsumerMessage['headers'],
      timestamp: 0n,
    } as ConsumerMessage)
  }
  batch(from: number, to = this.records.length) {
    return { topic: REP, partition: 0, messages: this.records.slice(from, to), highWatermark: BigInt(to) }
  }
}

/** The upstream's flatMap over its input: one record per word, each to the one repartition partition. */
function runUpstream(lines: string[], from: number, to: number, log: RepartitionLog): void {
  const stamper = new RepartitionStamper({ send: (r) => log.write(r) }, new Set([REP]), true)
  for (let offset = from; offset < to; offset++) {
    for (const w of lines[offset]!.split(' ')) {
      const source = { topic: 'lines', partition: 3, offset: BigInt(offset) }
      stamper.send({ topic: REP, key: Buffer.from(w), value: null, timestamp: 0, headers: [], source })
    }
  }
}

function direct(lines: string[]): Map<string, number> {
  const m = new Map<string, number>()
  for (const l of lines) for (const w of l.split(' ')) m.set(w, (m.get(w) ?? 0) + 1)
  return m
}

const LINES = Array.from({ length: 40 }, (_, i) => `w${i % 7} w${i % 3} w${i % 5}`)

describe('the skip rule over repartition stamps', () => {
  it('skips a position at or below the highest applied per source partition; unstamped records always pass', () => {
    const p = new AppliedPositions(new Set([REP])).forPartition(REP, 0)!
    expect(p.check([])).toBeUndefined()
    const a = p.check(stamped(5n, 1))!
    expect(a.duplicate).toBe(false)
    p.advance(a.stamp)
    expect(p.check(stamped(5n, 1))!.duplicate).toBe(true)
    expect(p.check(stamped(5n, 0))!.duplicate).toBe(true)
    expect(p.check(stamped(4n, 9))!.duplicate).toBe(true)
    expect(p.check(stamped(5n, 2))!.duplicate).toBe(false)
    expect(p.check(stamped(6n, 0))!.duplicate).toBe(false)
    // Another source partition, or another source topic, has positions of its own.
    expect(p.check(stamped(1n, 0, 1))!.duplicate).toBe(false)
    expect(p.check(stamped(1n, 0, 0, 'other'))!.duplicate).toBe(false)
    // Only repartition topics are read for stamps (a user topic's header is not ours).
    expect(new AppliedPositions(new Set([REP])).forPartition('lines', 0)).toBeUndefined()
  })

  it('an upstream killed before its commit and run again from it: the downstream counts every word once', () => {
    const log = new RepartitionLog()
    // The first attempt processes lines 0..29, commits after 12, and is killed: 13..29 run again.
    runUpstream(LINES, 0, 30, log)
    runUpstream(LINES, 13, LINES.length, log)
    const counts = new Map<string, number>()
    const t = downstream(counts)
    for (let at = 0; at < log.records.length; at += 7) processBatch(t, log.batch(at, at + 7), ctx)
    expect(counts).toEqual(direct(LINES))
    expect(t.task.metrics.duplicatesSkipped).toBe((30 - 13) * 3)
    // Every record counts as processed, skipped or not: the commit passes them all.
    expect(t.offsetsToCommit()).toEqual([{ topic: REP, partition: 0, offset: BigInt(log.records.length) }])
  })

  it('a downstream killed too: positions committed with its offset are resumed, so its re-run stays exact', () => {
    const log = new RepartitionLog()
    runUpstream(LINES, 0, 25, log)
    runUpstream(LINES, 10, LINES.length, log)
    const counts = new Map<string, number>()
    const first = downstream(counts)
    // The downstream processes the first 80 records and commits (its state and positions), then
    // processes 20 more and dies: its successor starts from the commit's state and positions.
    processBatch(first, log.batch(0, 80), ctx)
    const atCommit = new Map(counts)
    const metadata = encodeChangelogBounds(new Map(), -1, first.applied.snapshot(REP, 0))
    const commit: CommitOffset = { topic: REP, partition: 0, offset: 80n, metadata }
    processBatch(first, log.batch(80, 100), ctx)
    const restored = new Map(atCommit)
    const second = downstream(restored)
    second.applied.resume([commit])
    processBatch(second, log.batch(80), ctx)
    expect(restored).toEqual(direct(LINES))
    // Without the positions, the records after the commit that repeat ones before it count twice.
    const forgetful = new Map(atCommit)
    const third = downstream(forgetful)
    processBatch(third, log.batch(80), ctx)
    expect(forgetful).not.toEqual(direct(LINES))
  })

  it('positions ride in the v3 commit metadata; v2 and other metadata carry none', () => {
    const applied = new Map([
      ['lines\u00003', { offset: 2n ** 60n, index: 2 }],
      ['lines\u000011', { offset: 0n, index: 0 }],
      ['a.b\u0000c\u00000', { offset: 7n, index: 0 }],
      ['__proto__\u00001', { offset: 8n, index: 0 }],
    ])
    const m = encodeChangelogBounds(new Map([['app-counts-changelog\u00000', 9n]]), 1234, applied)
    expect(m.startsWith('sluice.task.v3 ')).toBe(true)
    expect(decodeCommitVouch(m)).toEqual({
      bounds: new Map([['app-counts-changelog\u00000', 9n]]),
      streamTimeMs: 1234,
      applied,
    })
    expect(restoreBoundOf([{ topic: REP, partition: 0, offset: 5n, metadata: m }])).toEqual({
      kind: 'bounded',
      ends: new Map([['app-counts-changelog\u00000', 9n]]),
    })
    expect(decodeCommitVouch(encodeChangelogBounds(new Map(), 5))?.applied).toBeUndefined()
    expect(decodeCommitVouch('sluice.task.v2 {"changelogs":{},"streamTimeMs":3}')).toEqual({
      bounds: new Map(),
      streamTimeMs: 3,
    })
    for (const bad of [
      '{"changelogs":{},"streamTimeMs":3,"applied":[]}',
      '{"changelogs":{},"streamTimeMs":3,"applied":{"t":{"0":"5"}}}',
      '{"changelogs":{},"streamTimeMs":3,"applied":{"t":{"x":"5.0"}}}',
      '{"changelogs":{},"streamTimeMs":3,"applied":{"t":"5.0"}}',
    ])
      expect(decodeCommitVouch(`sluice.task.v3 ${bad}`)).toBeUndefined()
    const p = new AppliedPositions(new Set([REP]))
    p.resume([
      { topic: REP, partition: 0, offset: -1n, metadata: m },
      { topic: REP, partition: 1, offset: 4n, metadata: 'not ours' },
    ])
    expect(p.snapshot(REP, 0).size).toBe(0)
    p.resume([{ topic: REP, partition: 0, offset: 4n, metadata: m }])
    expect(p.snapshot(REP, 0)).toEqual(applied)
  })
})
