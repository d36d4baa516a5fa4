import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { writeCheckpoint } from '../state/checkpoint.js'
import { instanceIdOf, localTaskState, tasksOnDisk } from './local-task-state.js'

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
    expect(tasksOnDisk(dir, new Set(['0_2']))).toEqual([
      { task: { subtopology: 0, partition: 1 }, lag: 0 },
      { task: { subtopology: 1, partition: 0 }, lag: 0 },
    ])
    const info = localTaskState('me', dir, [{ key: '0_2', id: { subtopology: 0, partition: 2 } }])
    expect(info.activeTasks).toEqual([{ subtopology: 0, partition: 2 }])
    expect(info.standbyTasks.map((t) => t.task.partition)).toEqual([1, 0])
    expect(tasksOnDisk(join(dir, 'missing'), new Set())).toEqual([])
  })
})
