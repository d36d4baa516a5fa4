import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { writeCheckpoint } from '../state/checkpoint.js'
import type { Admin } from '@sluice/client'
import { instanceIdOf, localTaskState, OnDiskLags, tasksOnDisk, UNKNOWN_LAG } from './local-task-state.js'
import type { TopologyPlan } from './task-contract.js'

describe('local task state (what a streams instance reports at a join)', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })
  const tmp = (): string => {
    const d = mkdtempSync(join(os.tmpdir(), 'local-task-state-'))
    dirs.push(d)
    return d
  }

  it('keeps one instance id per state directory', () => {
    const a = tmp()
    const id = instanceIdOf(a)
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    expect(instanceIdOf(a)).toBe(id)
    expect(instanceIdOf(tmp())).not.toBe(id)
  })

  it('reports checkpointed task directories as state held, except the active ones', () => {
    const dir = tmp()
    for (const task of ['0_1', '1_0', '0_2']) {
      mkdirSync(join(dir, task))
      writeCheckpoint(join(dir, task), new Map([['store', 5n]]))
    }
    mkdirSync(join(dir, '0_3')) // no checkpoint: nothing to keep
    mkdirSync(join(dir, '1_1'))
    writeFileSync(join(dir, '1_1', '.checkpoint'), 'garbage') // corrupt: restored from scratch
    mkdirSync(join(dir, 'not-a-task'))
    // Without changelog ends the lag cannot be told: state, but behind any measured copy.
    expect(tasksOnDisk(dir, new Set(['0_2']))).toEqual([
      { task: { subtopology: 0, partition: 1 }, lag: UNKNOWN_LAG },
      { task: { subtopology: 1, partition: 0 }, lag: UNKNOWN_LAG },
    ])
    const info = localTaskState('me', dir, [{ key: '0_2', id: { subtopology: 0, partition: 2 } }])
    expect(info.activeTasks).toEqual([{ subtopology: 0, partition: 2 }])
    expect(info.standbyTasks.map((t) => t.task.partition)).toEqual([1, 0])
    expect(tasksOnDisk(join(dir, 'missing'), new Set())).toEqual([])
  })

  it('reports standbys with their measured lag, and on-disk tasks with the changelog end less the checkpoint', async () => {
    const dir = tmp()
    for (const [task, offset] of [
      ['1_0', 40n],
      ['1_1', 10n],
      ['1_2', 7n],
    ] as const) {
      mkdirSync(join(dir, task))
      writeCheckpoint(join(dir, task), new Map([['counts', offset]]))
    }
    const plan = {
      applicationId: 'app',
      subtopologies: [
        { id: 0, stores: [] },
        { id: 1, stores: [{ name: 'counts', logging: true, persistent: true }] },
      ],
    } as unknown as TopologyPlan
    const asked: string[] = []
    const admin = {
      listOffsets: async (tps: Array<{ topic: string; partition: number }>) => {
        asked.push(...tps.map((tp) => `${tp.topic}/${tp.partition}`))
        return tps.map((tp) => ({ ...tp, offset: 50n }))
      },
    } as unknown as Admin
    const lags = new OnDiskLags(plan)
    // 1_2 is a standby here: its lag is its own, and its changelog end is not read for the disk.
    await lags.refresh(admin, dir, new Set(['1_2']))
    expect(asked.sort()).toEqual(['app-counts-changelog/0', 'app-counts-changelog/1'])
    const info = localTaskState('me', dir, [], '', {
      standbys: [{ key: '1_2', id: { subtopology: 1, partition: 2 }, lag: 3 }],
      onDiskLag: lags.lagOf,
    })
    expect(info.standbyTasks).toEqual([
      { task: { subtopology: 1, partition: 2 }, lag: 3 },
      { task: { subtopology: 1, partition: 0 }, lag: 10 },
      { task: { subtopology: 1, partition: 1 }, lag: 40 },
    ])
    // A standby that is active again (suspended, say) is reported as active only.
    const again = localTaskState('me', dir, [{ key: '1_2', id: { subtopology: 1, partition: 2 } }], '', {
      standbys: [{ key: '1_2', id: { subtopology: 1, partition: 2 }, lag: 3 }],
      onDiskLag: lags.lagOf,
    })
    expect(again.standbyTasks.map((t) => t.task.partition)).toEqual([0, 1])
  })
})
