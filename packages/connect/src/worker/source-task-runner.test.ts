import type { Logger, Producer } from '@sluice/client'
import { describe, expect, it, vi } from 'vitest'
import type { SourceTask } from '../api/connector.js'
import { parseErrorHandlingConfig } from '../errors-handling/error-handling-config.js'
import { RetryWithToleranceOperator } from '../errors-handling/retry-with-tolerance.js'
import type { RecordPipeline } from './record-pipeline.js'
import { SourceTaskRunner } from './source-task-runner.js'

const silent: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => silent }

/** A runner over a task whose start() finishes only when `started()` is called; polls find nothing. */
function runner(): { runner: SourceTaskRunner; states: string[]; started: () => void; polls: () => number } {
  let release!: () => void
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  let polls = 0
  const task: SourceTask = {
    start: () => gate,
    poll: async () => {
      polls++
      await new Promise((resolve) => setTimeout(resolve, 5))
      return []
    },
    stop: () => {},
  }
  const states: string[] = []
  const r = new SourceTaskRunner({
    connector: 'c',
    taskId: 0,
    task,
    config: {},
    producer: {} as Producer,
    pipeline: {} as RecordPipeline,
    logger: silent,
    offsetOf: async () => undefined,
    storeOffsets: async () => {},
    onState: (s) => states.push(s),
    errors: new RetryWithToleranceOperator(parseErrorHandlingConfig({}, 'source'), {
      connector: 'c',
      taskId: 0,
      logger: silent,
    }),
    ensureTopic: async () => {},
  })
  return { runner: r, states, started: release, polls: () => polls }
}

describe('SourceTaskRunner', () => {
  it('stays PAUSED when paused while its task is still starting (a restart under a paused connector)', async () => {
    const { runner: r, states, started, polls } = runner()
    r.start()
    r.pause()
    started()
    // The state it reports once its task has started, then: it must not poll while paused.
    await vi.waitFor(() => expect(states.length).toBe(2))
    expect(states).toEqual(['PAUSED', 'PAUSED'])
    expect(polls()).toBe(0)
    r.resume()
    await vi.waitFor(() => expect(polls()).toBeGreaterThan(0))
    expect(states.at(-1)).toBe('RUNNING')
    await r.stop()
  })

  it('reports RUNNING once its task started when nothing paused it', async () => {
    const { runner: r, states, started } = runner()
    r.start()
    started()
    await vi.waitFor(() => expect(states).toEqual(['RUNNING']))
    await r.stop()
  })
})
