/**
 * StandbyTasks over a fake client (no cluster): a standby applies the changelog batches it is
 * fed and knows its lag, is promoted with its applied positions, checkpoints a persistent store
 * at close and starts there when opened again, and drops (without failing) a store that cannot
 * apply its changelog. The cluster test is test-int/specs/streams-standby.int.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ConsumerBatch, Logger, SluiceClient } from '@sluice/client'
import { readCheckpoint } from '../state/checkpoint.js'
import { newProbe, wordCountPlan } from './__fixtures__/index.js'
import { StandbyTasks } from './standby-tasks.js'

const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => quiet }
const CHANGELOG = 'app-counts-changelog'

/** A client whose one consumer records assign/seek and hands its eachBatch to the test. */
function fakeClient(ends: { earliest: bigint; latest: bigint }) {
  const state = {
    assigned: [] as string[],
    seeks: [] as string[],
    feed: undefined as ((batch: ConsumerBatch) => void) | undefined,
    closed: 0,
  }
  const consumer = {
    assign: async (items: Array<{ topic: string; partition?: number }>) => {
      state.assigned = items.map((i) => `${i.topic}/${i.partition}`)
      return items
    },
    seek: (t: { topic: string; partition: number; offset: unknown }) => {
      state.seeks.push(`${t.topic}/${t.partition}@${String(t.offset)}`)
    },
    run: (o: { eachBatch: (p: { batch: ConsumerBatch }) => void }) => {
      state.feed = (batch) => o.eachBatch({ batch })
      return { done: new Promise(() => {}), stop: async () => {} }
    },
    close: async () => {
      state.closed++
    },
  }
  const client = {
    consumer: () => consumer,
    admin: () => ({
      listOffsets: async (tps: Array<{ topic: string; partition: number }>, spec: 'earliest' | 'latest') =>
        tps.map((tp) => ({ ...tp, offset: ends[spec] })),
    }),
  } as unknown as SluiceClient
  return { client, state }
}

function batch(from: number, entries: Array<[string, string | null]>, highWatermark: number): ConsumerBatch {
  return {
    topic: CHANGELOG,
    partition: 0,
    highWatermark: BigInt(highWatermark),
    messages: entries.map(([k, v], i) => ({
      offset: BigInt(from + i),
      key: Buffer.from(k),
      value: v === null ? null : Buffer.from(v),
      timestamp: 1n,
    })),
  } as unknown as ConsumerBatch
}

describe('standby tasks', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })

  function setup(persistent: boolean, ends = { earliest: 0n, latest: 5n }, stateDir?: string) {
    const dir = stateDir ?? mkdtempSync(join(os.tmpdir(), 'standby-tasks-'))
    if (stateDir === undefined) dirs.push(dir)
    const probe = newProbe()
    const plan = wordCountPlan({ applicationId: 'app', input: 'in', output: 'out', persistent, probe })
    const { client, state } = fakeClient(ends)
    const standbys = new StandbyTasks({
      client: () => client,
      log: quiet,
      checkpointIntervalMs: 60_000,
      factory: () => ({
        plan,
        stateDir: dir,
        sender: { send: () => {} },
        clock: Date.now,
        onDeserializationError: 'fail',
        partitionsOf: () => 1,
      }),
    })
    const task = {
      id: { subtopology: 1, partition: 0 },
      key: '1_0',
      partitions: [{ topic: 'app-words-repartition', partition: 0 }],
    }
    return { dir, probe, standbys, state, task }
  }

  it('applies its changelog, reports its lag, and is promoted at the position it applied', async () => {
    const { probe, standbys, state, task } = setup(false)
    await standbys.sync([task])
    expect(state.assigned).toEqual([`${CHANGELOG}/0`])
    expect(state.seeks).toEqual([`${CHANGELOG}/0@beginning`])
    expect(standbys.metrics()).toMatchObject([{ taskId: '1_0', lag: 5, appliedRecords: 0 }])

    state.feed!(
      batch(
        0,
        [
          ['a', '1'],
          ['b', '1'],
          ['a', '2'],
        ],
        6,
      ),
    )
    expect(probe.stores.get('1_0')!.entries()).toEqual(
      new Map([
        ['a', 2],
        ['b', 1],
      ]),
    )
    expect(standbys.lags()).toEqual([{ key: '1_0', id: task.id, lag: 3 }])
    expect(standbys.metrics()[0]!.changelogs).toEqual([
      { store: 'counts', topic: CHANGELOG, partition: 0, appliedOffset: 3, endOffset: 6, lag: 3 },
    ])
    // A batch overlapping what was applied (a seek back) applies only what is new.
    state.feed!(
      batch(
        2,
        [
          ['a', '2'],
          ['b', null],
        ],
        6,
      ),
    )
    expect(probe.stores.get('1_0')!.entries()).toEqual(new Map([['a', 2]]))
    expect(standbys.metrics()[0]!.appliedRecords).toBe(4)

    // Other partitions than its own: not promoted (and closed, so an active can open the directory).
    expect(standbys.promote('1_0', [{ topic: 'other', partition: 0 }])).toBeUndefined()
    expect(standbys.size).toBe(0)
    await standbys.sync([task])
    state.feed!(batch(0, [['c', '7']], 1))
    const promoted = standbys.promote('1_0', task.partitions)
    expect(promoted?.changelogPositions.get(`${CHANGELOG}\u00000`)).toBe(1n)
    expect(promoted?.restored).toBe(false)
    expect(standbys.size).toBe(0)
    // Nothing more is applied to it once promoted.
    state.feed!(batch(1, [['c', '8']], 2))
    expect(probe.stores.get('1_0')!.get('c')).toBe(7)
    await standbys.closeAll()
    expect(state.closed).toBeGreaterThan(0)
  })

  it('checkpoints a persistent store at close and starts from the checkpoint when opened again', async () => {
    const first = setup(true)
    await first.standbys.sync([first.task])
    first.state.feed!(
      batch(
        0,
        [
          ['a', '1'],
          ['b', '4'],
        ],
        2,
      ),
    )
    await first.standbys.sync([])
    expect(readCheckpoint(join(first.dir, '1_0')).offsets).toEqual(new Map([['counts', 2n]]))

    const again = setup(true, { earliest: 0n, latest: 9n }, first.dir)
    await again.standbys.sync([again.task])
    expect(again.state.seeks).toEqual([`${CHANGELOG}/0@2`])
    expect(again.standbys.metrics()).toMatchObject([{ lag: 7 }])
    expect(again.probe.stores.get('1_0')!.get('b')).toBe(4)
    await again.standbys.closeAll()
  })

  it('reads from the log start when its checkpoint is past the changelog end', async () => {
    const first = setup(true)
    await first.standbys.sync([first.task])
    first.state.feed!(batch(0, [['a', '1']], 8))
    first.state.feed!(batch(7, [['b', '1']], 8))
    await first.standbys.closeAll()
    const again = setup(true, { earliest: 0n, latest: 3n }, first.dir)
    await again.standbys.sync([again.task])
    expect(again.state.seeks).toEqual([`${CHANGELOG}/0@8`, `${CHANGELOG}/0@0`])
    expect(again.standbys.metrics()[0]!.changelogs[0]).toMatchObject({ appliedOffset: 0, endOffset: 3 })
    await again.standbys.closeAll()
  })

  it('drops a standby whose store cannot apply its changelog, and goes on', async () => {
    const { probe, standbys, state, task } = setup(false)
    await standbys.sync([task])
    probe.stores.get('1_0')!.restoreBatch = () => {
      throw new Error('disk full')
    }
    expect(() => state.feed!(batch(0, [['a', '1']], 1))).not.toThrow()
    expect(standbys.size).toBe(0)
    await standbys.closeAll()
  })
})
