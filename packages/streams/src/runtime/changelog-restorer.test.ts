/**
 * Where a restore starts, over a fake changelog (no cluster): a standby promoted here (its
 * changelogPositions set) continues from what it applied, whatever its store kind; with an
 * uncommitted tail past the commit bound it restores from the log start like any task and the
 * tail is corrected. The restore after a crash on a cluster is in
 * test-int/specs/streams-runtime.int.test.ts, a failover to a standby in streams-standby.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ChangelogRecord } from '../state/store-types.js'
import type { ConsumerBatch, Logger, SluiceClient } from '@sluice/client'
import { newProbe, wordCountPlan } from './__fixtures__/index.js'
import { createActiveTask } from './active-task.js'
import { restoreTasks } from './changelog-restorer.js'
import { RestoreProgress } from './restore-progress.js'

const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => quiet }
const CHANGELOG = 'app-counts-changelog'
const KEY = `${CHANGELOG}\u00000`

/** A client over one changelog partition held in memory: a seek delivers the log from there. */
function fakeLog(log: Array<[string, string | null]>) {
  const reads: bigint[] = []
  const deliver = (each: (p: { batch: ConsumerBatch }) => void, from: bigint): void => {
    reads.push(from)
    setTimeout(() => {
      const messages = log.slice(Number(from)).map(([k, v], i) => ({
        offset: from + BigInt(i),
        key: Buffer.from(k),
        value: v === null ? null : Buffer.from(v),
        timestamp: 1n,
      }))
      if (messages.length > 0)
        each({
          batch: { topic: CHANGELOG, partition: 0, highWatermark: BigInt(log.length), messages } as ConsumerBatch,
        })
    }, 0)
  }
  const client = {
    consumer: () => {
      let each: ((p: { batch: ConsumerBatch }) => void) | undefined
      let pending: bigint | undefined
      return {
        assign: async () => [],
        seek: (t: { offset: bigint }) => {
          pending = t.offset
          if (each !== undefined) deliver(each, t.offset)
        },
        run: (o: { eachBatch: (p: { batch: ConsumerBatch }) => void }) => {
          each = o.eachBatch
          if (pending !== undefined) deliver(each, pending)
          return { done: new Promise(() => {}), stop: async () => {} }
        },
        position: async () => BigInt(log.length),
        pause: () => {},
        close: async () => {},
      }
    },
  } as unknown as SluiceClient
  const admin = {
    listOffsets: async (tps: Array<{ topic: string; partition: number }>, spec: 'earliest' | 'latest') =>
      tps.map((tp) => ({ ...tp, offset: spec === 'earliest' ? 0n : BigInt(log.length) })),
  }
  return { client, admin: admin as never, reads }
}

describe('changelog restorer: where a restore starts', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })

  async function task() {
    const dir = mkdtempSync(join(os.tmpdir(), 'restorer-'))
    dirs.push(dir)
    const probe = newProbe()
    const plan = wordCountPlan({ applicationId: 'app', input: 'in', output: 'out', probe })
    const t = await createActiveTask(
      { subtopology: 1, partition: 0 },
      [{ topic: 'app-words-repartition', partition: 0 }],
      {
        plan,
        stateDir: dir,
        sender: { send: () => {} },
        clock: Date.now,
        onDeserializationError: 'fail',
        partitionsOf: () => 1,
      },
    )
    return { t, store: probe.stores.get('1_0')! }
  }

  const log: Array<[string, string | null]> = [
    ['a', '1'],
    ['b', '1'],
    ['a', '2'],
    ['c', '1'],
    ['a', '3'],
  ]

  it('continues a promoted standby from the position it applied, in memory too', async () => {
    const { t, store } = await task()
    // What its standby had applied: the first three records.
    store.restoreBatch(log.slice(0, 3).map(([k, v]) => ({ key: Buffer.from(k), value: Buffer.from(v!), timestamp: 1 })))
    t.changelogPositions.set(KEY, 3n)
    const { client, admin, reads } = fakeLog(log)
    const progress = new RestoreProgress(quiet)
    await restoreTasks([t], {
      client,
      admin,
      logger: quiet,
      progress,
      boundOf: () => ({ kind: 'unbounded' }),
      compensate: async () => {},
    })
    expect(reads).toEqual([3n])
    expect(progress.snapshot().restoredRecords).toBe(2)
    expect(store.entries()).toEqual(
      new Map([
        ['a', 3],
        ['b', 1],
        ['c', 1],
      ]),
    )
    expect(t.changelogPositions.get(KEY)).toBe(5n)
  })

  it('restores a promoted standby from the log start when the changelog has a tail past the commit', async () => {
    const { t, store } = await task()
    // The standby applied everything, the tail (offsets 3 and 4) included.
    store.restoreBatch(log.map(([k, v]) => ({ key: Buffer.from(k), value: Buffer.from(v!), timestamp: 1 })))
    t.changelogPositions.set(KEY, 5n)
    const { client, admin, reads } = fakeLog(log)
    const corrections: ChangelogRecord[] = []
    await restoreTasks([t], {
      client,
      admin,
      logger: quiet,
      progress: new RestoreProgress(quiet),
      boundOf: () => ({ kind: 'bounded', ends: new Map([[KEY, 3n]]) }),
      compensate: async (_tp, records) => {
        corrections.push(...records)
      },
    })
    // The tail's keys read first (from 3), then the log from its start up to the bound.
    expect(reads).toEqual([3n, 0n])
    expect(store.entries()).toEqual(
      new Map([
        ['a', 2],
        ['b', 1],
      ]),
    )
    expect(corrections.map((c) => [c.key.toString(), c.value?.toString() ?? null]).sort()).toEqual([
      ['a', '2'],
      ['c', null],
    ])
  })
})
