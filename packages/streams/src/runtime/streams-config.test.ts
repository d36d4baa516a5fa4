import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { StreamsError } from '../errors.js'
import { wordCountPlan } from './__fixtures__/word-count-plan.js'
import { StreamsApp } from './streams-app.js'
import { resolveStreamsConfig, type StreamsConfig } from './streams-config.js'

function problemsOf(c: unknown): string[] {
  try {
    resolveStreamsConfig(c as StreamsConfig)
  } catch (err) {
    expect(err).toBeInstanceOf(StreamsError)
    expect((err as StreamsError).code).toBe('CONFIG')
    return ((err as StreamsError).details.problems as string[] | undefined) ?? [(err as Error).message]
  }
  return []
}

describe('resolveStreamsConfig', () => {
  it('fills the defaults: a state dir per application under the temp dir, a 30 s commit interval, fail on bad records', () => {
    const c = resolveStreamsConfig({ applicationId: 'wc', bootstrap: ['127.0.0.1:9092'] })
    expect(c.stateDir).toBe(join(tmpdir(), 'sluice-streams', 'wc'))
    expect(c.commitIntervalMs).toBe(30_000)
    expect(c.numStandbyReplicas).toBe(0)
    expect(c.processingGuarantee).toBe('at-least-once')
    expect(c.deserializationErrors).toBe('fail')
  })

  it('reports every problem at once', () => {
    const problems = problemsOf({
      applicationId: 'bad id!',
      commitIntervalMs: 0,
      numStandbyReplicas: -1,
      processingGuarantee: 'exactly-once',
      deserializationErrors: 'ignore',
    })
    expect(problems).toHaveLength(6)
    expect(problems.join('\n')).toMatch(/applicationId/)
    expect(problems.join('\n')).toMatch(/exactly one of bootstrap and client/)
    expect(problems.join('\n')).toMatch(/exactly-once needs transactions/)
    expect(problemsOf(null)).toHaveLength(1)
  })

  it('takes an applicationServer only as host:port', () => {
    const base = { applicationId: 'a', bootstrap: ['127.0.0.1:1'] }
    expect(problemsOf({ ...base, applicationServer: 'app-1.local:7070' })).toEqual([])
    for (const bad of ['app-1.local', ':7070', 'a b:1', 7070])
      expect(problemsOf({ ...base, applicationServer: bad })).toEqual([
        `applicationServer must be host:port, got ${JSON.stringify(bad)}`,
      ])
  })
})

describe('StreamsApp construction', () => {
  const plan = wordCountPlan({ applicationId: 'wc', input: 'in', output: 'out' })

  it('refuses a plan made for another application id', () => {
    expect(() => new StreamsApp(plan, { applicationId: 'other', bootstrap: ['127.0.0.1:1'] })).toThrow(
      /plan is for application wc/,
    )
  })

  it('takes a plan with global tables (start() loads them: test-int/specs/streams-global-tables.int.test.ts)', async () => {
    const withGlobal = { ...plan, globalStores: [{ topic: 'g', store: plan.subtopologies[1]!.stores[0]! }] }
    const app = new StreamsApp(withGlobal, { applicationId: 'wc', bootstrap: ['127.0.0.1:1'] })
    expect(app.state).toBe('created')
    await app.close()
  })

  it('takes a plan source and closes without having started', async () => {
    const app = new StreamsApp({ plan: () => plan }, { applicationId: 'wc', bootstrap: ['127.0.0.1:1'] })
    expect(app.state).toBe('created')
    await app.close()
    expect(app.state).toBe('closed')
    expect(await app.stopped()).toBeUndefined()
  })
})
