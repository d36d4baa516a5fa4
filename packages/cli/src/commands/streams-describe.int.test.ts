/**
 * `sluice streams describe` against a real cluster (testkit: one metadata service, one broker)
 * with two running StreamsApp instances of a count with a repartition (two sub-topologies,
 * three partitions each) and one standby per task: every task is active on one instance and
 * standby on the other, its partitions are those of its sub-topology's topic, and once the
 * input is processed and committed every lag is 0, as the table and the JSON both say.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { connect, type Logger } from '@sluice/client'
import { Serdes, StreamsApp, StreamsBuilder } from '@sluice/streams'
import { startCluster } from '@sluice/testkit'
import { describe, expect, it, onTestFinished } from 'vitest'
import { handlers } from '../handlers.js'
import { runCli } from '../program.js'
import { testIo } from '../test-io.js'

const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => quiet }

async function cli(bootstrap: string[], argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = testIo()
  const code = await runCli(['--bootstrap', bootstrap.join(','), ...argv], io, handlers)
  return { code, out: io.out(), err: io.err() }
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (
    !(await Promise.resolve()
      .then(check)
      .catch(() => false))
  ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

interface DescribeJson {
  applicationId: string
  state: string
  instances: Array<{ instanceId: string; activeTasks: string[]; standbyTasks: string[] }>
  tasks: Array<{
    taskId: string
    active: string | null
    standbys: string[]
    partitions: Array<{
      topic: string
      partition: number
      committed: string | null
      logEnd: string
      lag: string | null
    }>
    lag: string
  }>
  totalLag: string
}

describe('sluice streams describe', () => {
  it("shows a running application's tasks, their instances and their partitions' lag", async () => {
    const cluster = await startCluster({
      brokers: 1,
      metadataOptions: {
        groupCoordinator: { minSessionTimeoutMs: 100, initialRebalanceDelayMs: 100, sweepIntervalMs: 20 },
      },
    })
    onTestFinished(() => cluster.stop())
    const client = await connect({ bootstrap: cluster.bootstrap })
    onTestFinished(() => client.close())
    const id = randomUUID().slice(0, 8)
    const app = `wc-${id}`
    const input = `words-${id}`
    await client.admin().createTopics([{ name: input, numPartitions: 3, replicationFactor: 1 }])

    const start = async (): Promise<{ app: StreamsApp; instanceId: string }> => {
      const builder = new StreamsBuilder()
      builder
        .stream(input, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
        .groupBy((_k, word) => word, { name: 'by-word', keySerde: Serdes.string(), valueSerde: Serdes.string() })
        .count({ name: 'counts' })
      const stateDir = await mkdtemp(join(tmpdir(), 'sluice-cli-streams-'))
      const instance = new StreamsApp(builder.build().plan(app), {
        applicationId: app,
        client,
        stateDir,
        numStandbyReplicas: 1,
        commitIntervalMs: 100,
        sessionTimeoutMs: 3000,
        heartbeatIntervalMs: 100,
        logger: quiet,
      })
      onTestFinished(async () => {
        await instance.close().catch(() => {})
        await rm(stateDir, { recursive: true, force: true })
      })
      await instance.start()
      return { app: instance, instanceId: (await readFile(join(stateDir, 'instance-id'), 'utf8')).trim() }
    }
    const a = await start()
    const b = await start()
    await until(
      'three tasks on each instance',
      () => a.app.metrics().tasks.length === 3 && b.app.metrics().tasks.length === 3,
    )
    const producer = client.producer({ lingerMs: 1 })
    const words = Array.from({ length: 60 }, (_, i) => ({ key: `k${i}`, value: `w${i % 7}` }))
    await producer.send({ topic: input, records: words })
    await producer.close()

    const repartition = `${app}-by-word-repartition`
    let view: DescribeJson | undefined
    await until('everything processed and committed (lag 0)', async () => {
      const r = await cli(cluster.bootstrap, ['--json', 'streams', 'describe', app])
      if (r.code !== 0) return false
      view = JSON.parse(r.out) as DescribeJson
      return (
        view.totalLag === '0' &&
        view.tasks.length === 6 &&
        view.tasks.every((t) => t.partitions.every((p) => p.committed !== null))
      )
    })
    const v = view!
    expect(v.applicationId).toBe(app)
    expect(v.state).toBe('Stable')
    expect(v.instances.map((i) => i.instanceId).sort()).toEqual([a.instanceId, b.instanceId].sort())
    expect(v.tasks.map((t) => t.taskId)).toEqual(['0_0', '0_1', '0_2', '1_0', '1_1', '1_2'])
    for (const t of v.tasks) {
      const [sub, p] = t.taskId.split('_').map(Number) as [number, number]
      expect(t.partitions.map((x) => [x.topic, x.partition])).toEqual([[sub === 0 ? input : repartition, p]])
      // Active on one instance; a stateful task's standby on the other (a stateless task has none).
      expect([a.instanceId, b.instanceId]).toContain(t.active)
      expect(t.standbys).toEqual(sub === 1 ? [t.active === a.instanceId ? b.instanceId : a.instanceId] : [])
      for (const x of t.partitions) expect(x.lag).toBe('0')
    }
    // The instances' own view agrees: each runs as active exactly the tasks the describe names.
    for (const inst of [a, b]) {
      const mine = v.tasks.filter((t) => t.active === inst.instanceId).map((t) => t.taskId)
      expect(
        inst.app
          .metrics()
          .tasks.map((t) => t.taskId)
          .sort(),
      ).toEqual(mine)
    }
    const words0 = v.tasks[0]!.partitions[0]!
    const counts0 = v.tasks[3]!
    expect(BigInt(words0.logEnd)).toBeGreaterThan(0n)

    const human = await cli(cluster.bootstrap, ['streams', 'describe', app])
    expect(human.code).toBe(0)
    expect(human.out).toContain(`application  ${app}`)
    expect(human.out).toMatch(
      new RegExp(
        `0_0\\s+${v.tasks[0]!.active!.slice(0, 8)}\\s+-?\\s+${input}\\s+0\\s+${words0.committed}\\s+${words0.logEnd}\\s+0`,
      ),
    )
    expect(human.out).toMatch(
      new RegExp(`1_0\\s+${counts0.active!.slice(0, 8)}\\s+${counts0.standbys[0]!.slice(0, 8)}\\s+`),
    )
    expect(human.out).toContain('total lag    0')

    const missing = await cli(cluster.bootstrap, ['streams', 'describe', `nope-${id}`])
    expect(missing.code).not.toBe(0)
    expect(missing.err).toMatch(/GROUP_ID_NOT_FOUND|does not exist/)
  }, 90_000)
})
