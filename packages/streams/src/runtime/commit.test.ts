import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { CommitOffset, GroupConsumer, Producer, RecordMetadata } from '@sluice/client'
import { StreamsError } from '../errors.js'
import type { StateStore } from '../state/store-types.js'
import { ActiveTask } from './active-task.js'
import { CHECKPOINT_FILE, readCheckpoint } from '../state/checkpoint.js'
import { decodeChangelogBounds, decodeCommitVouch, encodeChangelogBounds } from './changelog-bounds.js'
import { commitTasks } from './commit.js'
import { ProducerRecordSender, tpKey } from './record-sender.js'
import type { StreamTask } from './task-contract.js'

const dirs: string[] = []
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
})

/** A producer whose sends settle when the test says, recording what happened in `steps`. */
function fakeProducer(steps: string[], fail = false): Producer {
  let next = 0n
  return {
    send: async ({ topic, records }) => {
      await new Promise((resolve) => setTimeout(resolve, 5))
      if (fail) throw new Error('NOT_ENOUGH_REPLICAS')
      steps.push(`acked ${topic}`)
      return records.map((r): RecordMetadata => ({ topic, partition: r.partition ?? 0, offset: next++, timestamp: 0n }))
    },
    flush: async () => {
      steps.push('producer flush')
    },
    close: async () => {},
  }
}

function fakeConsumer(steps: string[], dir: string): { consumer: GroupConsumer; commits: CommitOffset[][] } {
  const commits: CommitOffset[][] = []
  const consumer = {
    commit: async (offsets: CommitOffset[]) => {
      steps.push(`commit (checkpoint ${existsSync(join(dir, CHECKPOINT_FILE)) ? 'written' : 'missing'})`)
      commits.push(offsets)
    },
  } as unknown as GroupConsumer
  return { consumer, commits }
}

async function taskWith(steps: string[], sender: ProducerRecordSender): Promise<ActiveTask> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-commit-test-'))
  dirs.push(dir)
  const store = { name: 'counts', persistent: true } as StateStore
  const task = {
    flush: () => {
      steps.push('task flush')
      // What a store's cache would write when it empties: a changelog record.
      sender.send({
        topic: 'app-counts-changelog',
        partition: 0,
        key: Buffer.from('k'),
        value: null,
        timestamp: 0,
        headers: [],
      })
    },
  } as unknown as StreamTask
  const t = new ActiveTask({ subtopology: 1, partition: 0 }, task, [{ topic: 'in', partition: 0 }], dir, [
    {
      spec: { name: 'counts', kind: 'key-value', persistent: true, logging: true, caching: true },
      store,
      changelog: { topic: 'app-counts-changelog', partition: 0 },
      key: tpKey('app-counts-changelog', 0),
    },
  ])
  t.restored = true
  t.processed.set(tpKey('in', 0), { tp: { topic: 'in', partition: 0 }, offset: 41n })
  return t
}

describe('commitTasks: the at-least-once commit path', () => {
  it('flushes the tasks, waits for every ack, writes the checkpoint, then commits processed + 1', async () => {
    const steps: string[] = []
    const sender = new ProducerRecordSender(fakeProducer(steps), (t) => t.endsWith('-changelog'))
    sender.send({ topic: 'out', key: null, value: Buffer.from('v'), timestamp: 0, headers: [] })
    const t = await taskWith(steps, sender)
    const { consumer, commits } = fakeConsumer(steps, t.dir)
    const r = await commitTasks([t], { sender, consumer })
    expect(steps).toEqual([
      'task flush',
      'producer flush',
      'acked out',
      'acked app-counts-changelog',
      'commit (checkpoint written)',
    ])
    // Each offset carries the changelog end it vouches for (changelog-bounds.ts).
    expect(commits).toEqual([
      [
        {
          topic: 'in',
          partition: 0,
          offset: 42n,
          metadata: encodeChangelogBounds(new Map([['app-counts-changelog\u00000', 2n]])),
        },
      ],
    ])
    expect(decodeChangelogBounds(commits[0]![0]!.metadata)).toEqual(new Map([['app-counts-changelog\u00000', 2n]]))
    expect(r.offsets).toHaveLength(1)
    // The changelog record got offset 1: the store holds everything before offset 2.
    expect(readCheckpoint(t.dir).offsets).toEqual(new Map([['counts', 2n]]))
    // No new input, but the flush wrote to the changelog again (as a punctuation would): the same
    // input offset is committed again, carrying the new changelog end.
    steps.length = 0
    await commitTasks([t], { sender, consumer })
    expect(commits).toHaveLength(2)
    expect(commits[1]!.map((o) => [o.offset, decodeChangelogBounds(o.metadata)])).toEqual([
      [42n, new Map([['app-counts-changelog\u00000', 3n]])],
    ])
  })

  it("carries a repartition partition's applied positions in that partition's offset only", async () => {
    const steps: string[] = []
    const sender = new ProducerRecordSender(fakeProducer(steps), (t) => t.endsWith('-changelog'))
    const base = await taskWith(steps, sender)
    const t = new ActiveTask(
      base.id,
      base.task,
      [...base.partitions, { topic: 'app-words-repartition', partition: 0 }],
      base.dir,
      base.logged,
      new Set(['app-words-repartition']),
    )
    t.restored = true
    t.processed.set(tpKey('in', 0), { tp: { topic: 'in', partition: 0 }, offset: 41n })
    t.processed.set(tpKey('app-words-repartition', 0), {
      tp: { topic: 'app-words-repartition', partition: 0 },
      offset: 9n,
    })
    t.applied.forPartition('app-words-repartition', 0)!.advance({ topic: 'lines', partition: 4, offset: 77n, index: 1 })
    const { consumer, commits } = fakeConsumer(steps, t.dir)
    await commitTasks([t], { sender, consumer })
    const vouches = commits[0]!.map((o) => [o.topic, decodeCommitVouch(o.metadata)?.applied])
    expect(vouches).toEqual([
      ['in', undefined],
      ['app-words-repartition', new Map([['lines\u00004', { offset: 77n, index: 1 }]])],
    ])
    // Both carry the same changelog bounds.
    const [a, b] = commits[0]!.map((o) => decodeChangelogBounds(o.metadata))
    expect(a).toEqual(new Map([['app-counts-changelog\u00000', 1n]]))
    expect(b).toEqual(a)
  })

  it('commits nothing when a record was not acknowledged (the input is processed again)', async () => {
    const steps: string[] = []
    const sender = new ProducerRecordSender(fakeProducer(steps, true), () => false)
    const t = await taskWith(steps, sender)
    const { consumer, commits } = fakeConsumer(steps, t.dir)
    const err = await commitTasks([t], { sender, consumer }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(StreamsError)
    expect((err as StreamsError).code).toBe('RUNTIME')
    expect((err as StreamsError).message).toContain('NOT_ENOUGH_REPLICAS')
    expect(commits).toEqual([])
    expect(existsSync(join(t.dir, CHECKPOINT_FILE))).toBe(false)
  })

  it('skips a task that is not restored yet', async () => {
    const steps: string[] = []
    const sender = new ProducerRecordSender(fakeProducer(steps), () => false)
    const t = await taskWith(steps, sender)
    t.restored = false
    const { consumer, commits } = fakeConsumer(steps, t.dir)
    await commitTasks([t], { sender, consumer })
    expect(commits).toEqual([])
    expect(steps).not.toContain('task flush')
  })
})
