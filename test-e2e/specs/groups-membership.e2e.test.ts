/**
 * Consumer groups across real processes: a spawned cluster (metadata service + 2 brokers) and
 * group members that are separate node processes (groups-member.mjs, printing JSON events).
 * - kill -9 a member: its partitions move to the others within the session timeout;
 * - a member stuck in its callback (no poll) leaves after maxPollIntervalMs, its partitions move;
 * - a zombie member (SIGSTOP past its session, then SIGCONT) cannot commit for an old generation;
 * - the metadata service restarts: the group rejoins and resumes from its committed offsets.
 * The coordinator runs with its defaults (min session timeout 6 s, initial rebalance delay 3 s).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { randomUUID } from 'node:crypto'
import { connect, type SluiceClient } from '@sluice/client'
import { spawnCluster, spawnMetadata, waitFor, type SpawnedCluster, type SpawnedProcess } from '@sluice/testkit'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { assertBuilt, runSluice } from '../src/sluice-cli.js'

const MEMBER_SCRIPT = fileURLToPath(new URL('./groups-member.mjs', import.meta.url))
const CLIENT_DIST = fileURLToPath(new URL('../../packages/client/dist/index.js', import.meta.url))
const SESSION_MS = 6000

interface MemberEvent {
  event: string
  partitions?: string[]
  partition?: number
  offset?: string
  value?: string | null
  ok?: boolean
  code?: string
}

interface MemberProcess {
  readonly name: string
  readonly child: ChildProcess
  readonly events: MemberEvent[]
  /** The partitions its listener callbacks say it owns now. */
  owned(): Set<string>
  values(): string[]
  output(): string
}

let cluster: SpawnedCluster
let client: SluiceClient
let restartedMetadata: SpawnedProcess | undefined
const everyone: MemberProcess[] = []

function startMember(name: string, env: Record<string, string>): MemberProcess {
  const child = spawn(process.execPath, [MEMBER_SCRIPT], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      BOOTSTRAP: cluster.bootstrap.join(','),
      SESSION_MS: String(SESSION_MS),
      HEARTBEAT_MS: '500',
      CLIENT_ID: name,
      ...env,
    },
  })
  const events: MemberEvent[] = []
  const lines: string[] = []
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line)
    try {
      events.push(JSON.parse(line) as MemberEvent)
    } catch {
      /* not an event */
    }
  })
  createInterface({ input: child.stderr! }).on('line', (line) => {
    lines.push(`stderr: ${line}`)
  })
  const m: MemberProcess = {
    name,
    child,
    events,
    owned: () => {
      const now = new Set<string>()
      for (const e of events) {
        if (e.event === 'assigned') for (const p of e.partitions ?? []) now.add(p)
        if (e.event === 'revoked' || e.event === 'lost') for (const p of e.partitions ?? []) now.delete(p)
      }
      return now
    },
    values: () => events.filter((e) => e.event === 'message').map((e) => e.value ?? ''),
    output: () => lines.slice(-40).join('\n'),
  }
  everyone.push(m)
  return m
}

function kill(m: MemberProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill(signal)
}

async function newTopic(partitions: number): Promise<string> {
  const name = `groups-e2e-${randomUUID()}`
  await client.admin().createTopics([{ name, numPartitions: partitions, replicationFactor: 2 }])
  await waitFor(async () => (await client.admin().describeTopics([name]))[0]!.partitions.every((p) => p.leader >= 0), {
    description: `leaders of ${name}`,
  })
  return name
}

async function produce(topic: string, values: string[]): Promise<void> {
  const producer = client.producer({ lingerMs: 2 })
  await producer.send({ topic, records: values.map((value) => ({ key: value, value })) })
  await producer.close()
}

/** The group as the coordinator describes it: member client ids and every assigned partition. */
async function groupView(group: string): Promise<{ state: string; clients: string[]; partitions: string[] }> {
  const [d] = await client.admin().describeGroups([group])
  return {
    state: d!.state,
    clients: d!.members.map((m) => m.clientId).sort(),
    partitions: d!.members.flatMap((m) => m.assignment.map((tp) => `${tp.topic}:${tp.partition}`)).sort(),
  }
}

const all = (topic: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${topic}:${i}`).sort()
const range = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}-${i}`)

async function stableWith(group: string, clients: string[], partitions: string[], timeoutMs: number): Promise<void> {
  await waitFor(
    async () => {
      const v = await groupView(group)
      return (
        v.state === 'Stable' &&
        JSON.stringify(v.clients) === JSON.stringify([...clients].sort()) &&
        JSON.stringify(v.partitions) === JSON.stringify(partitions)
      )
    },
    {
      timeoutMs,
      description: `group ${group} stable with ${clients.join(', ')} owning ${partitions.length} partitions`,
    },
  ).catch(async (err: Error) => {
    throw new Error(
      `${err.message}\nlast view: ${JSON.stringify(await groupView(group).catch((e: Error) => e.message))}\n` +
        everyone.map((m) => `--- ${m.name}\n${m.output()}`).join('\n'),
    )
  })
}

async function processedBy(members: MemberProcess[], values: string[], timeoutMs = 30_000): Promise<void> {
  await waitFor(
    () => {
      const seen = new Set(members.flatMap((m) => m.values()))
      return values.every((v) => seen.has(v))
    },
    { timeoutMs, description: `${values.length} records processed` },
  )
}

beforeAll(async () => {
  if (!existsSync(CLIENT_DIST))
    throw new Error(`${CLIENT_DIST} is missing: run \`npx tsc -b\` at the repository root first`)
  cluster = await spawnCluster({ brokers: 2 })
  client = await connect({
    bootstrap: cluster.bootstrap,
    retry: { retries: 20, initialBackoffMs: 100, maxBackoffMs: 1000 },
  })
})

afterAll(async () => {
  for (const m of everyone) kill(m)
  await client?.close().catch(() => {})
  await restartedMetadata?.stop().catch(() => {})
  await cluster?.stop()
})

describe('consumer groups across processes', () => {
  it('kill -9 a member: its partitions move to the others within the session timeout', async () => {
    const topic = await newTopic(6)
    const group = `kill-${randomUUID()}`
    const members = ['m1', 'm2', 'm3'].map((name) => startMember(name, { GROUP: group, TOPIC: topic }))
    onTestFinished(() => {
      for (const m of members) kill(m)
    })
    await stableWith(group, ['m1', 'm2', 'm3'], all(topic, 6), 60_000)
    const before = range('a', 300)
    await produce(topic, before)
    await processedBy(members, before)
    const [victim, ...rest] = members as [MemberProcess, ...MemberProcess[]]
    expect(victim.owned().size).toBe(2)
    kill(victim)
    // Detection takes the session timeout; the rebalance that follows is quick.
    await stableWith(group, ['m2', 'm3'], all(topic, 6), SESSION_MS * 3)
    const after = range('b', 300)
    await produce(topic, after)
    await processedBy(rest, after)
    for (const tp of victim.owned())
      expect(
        rest.some((m) => m.owned().has(tp)),
        `${tp} moved`,
      ).toBe(true)
  })

  it('a member stuck in its callback leaves after maxPollIntervalMs; another processes its records', async () => {
    const topic = await newTopic(2)
    const group = `stuck-${randomUUID()}`
    const stuck = startMember('stuck', { GROUP: group, TOPIC: topic, MODE: 'stuck', MAX_POLL_MS: '3000' })
    const healthy = startMember('healthy', { GROUP: group, TOPIC: topic })
    onTestFinished(() => {
      kill(stuck)
      kill(healthy)
    })
    await stableWith(group, ['healthy', 'stuck'], all(topic, 2), 60_000)
    const values = range('s', 50)
    await produce(topic, values)
    await waitFor(() => stuck.events.some((e) => e.event === 'stuck'), { description: 'the stuck member to get stuck' })
    await stableWith(group, ['healthy'], all(topic, 2), 30_000)
    // Everything, including the record the stuck member never finished, is processed by the other.
    await processedBy([healthy], values)
    expect(stuck.child.exitCode).toBe(null) // still alive: it left on its own
  })

  it('a zombie member from an old generation cannot commit', async () => {
    const topic = await newTopic(2)
    const group = `zombie-${randomUUID()}`
    const zombie = startMember('zombie', { GROUP: group, TOPIC: topic, ZOMBIE_COMMIT: '1' })
    const other = startMember('other', { GROUP: group, TOPIC: topic })
    onTestFinished(() => {
      kill(zombie)
      kill(other)
    })
    await stableWith(group, ['other', 'zombie'], all(topic, 2), 60_000)
    const values = range('z', 100)
    await produce(topic, values)
    await processedBy([zombie, other], values)
    await waitFor(
      async () => (await client.admin().fetchOffsets(group)).reduce((n, o) => n + Number(o.offset), 0) === 100,
      { description: 'all 100 offsets committed' },
    )
    expect(zombie.owned().size).toBe(1)
    kill(zombie, 'SIGSTOP')
    await stableWith(group, ['other'], all(topic, 2), SESSION_MS * 3)
    const committed = await client.admin().fetchOffsets(group)
    kill(zombie, 'SIGCONT') // it commits offset 0 for the partition it still believes it owns
    await waitFor(() => zombie.events.find((e) => e.event === 'commit'), { description: "the zombie's commit attempt" })
    const attempt = zombie.events.find((e) => e.event === 'commit')!
    expect(attempt.ok, JSON.stringify(attempt)).toBe(false)
    expect(['UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION', 'REBALANCE_IN_PROGRESS']).toContain(attempt.code)
    expect(await client.admin().fetchOffsets(group)).toEqual(committed)
  })

  it('the group resumes from its committed offsets after the metadata service restarts', async () => {
    const topic = await newTopic(4)
    const group = `restart-${randomUUID()}`
    const members = ['r1', 'r2'].map((name) => startMember(name, { GROUP: group, TOPIC: topic }))
    onTestFinished(() => {
      for (const m of members) kill(m)
    })
    await stableWith(group, ['r1', 'r2'], all(topic, 4), 60_000)
    const first = range('first', 200)
    await produce(topic, first)
    await processedBy(members, first)
    await waitFor(
      async () => (await client.admin().fetchOffsets(group)).reduce((n, o) => n + Number(o.offset), 0) === 200,
      { description: 'all 200 offsets committed' },
    )
    const port = cluster.metadata.port
    cluster.metadata.kill('SIGKILL')
    await cluster.metadata.exited
    restartedMetadata = await spawnMetadata({ dataDir: path.join(cluster.dataDir, 'metadata'), port })
    const second = range('second', 200)
    await produce(topic, second)
    await processedBy(members, second, 60_000)
    // Nothing committed before the restart was processed again.
    const processed = members.flatMap((m) => m.values()).filter((v) => v.startsWith('first-'))
    expect(processed.length).toBe(first.length)
    await waitFor(
      async () => (await client.admin().fetchOffsets(group)).reduce((n, o) => n + Number(o.offset), 0) === 400,
      { description: 'all 400 offsets committed after the restart', timeoutMs: 30_000 },
    )
  })

  it('sluice groups list / describe / reset-offsets / delete', async () => {
    assertBuilt()
    const sluice = async (args: string[]) =>
      await runSluice(['--bootstrap', cluster.bootstrap.join(','), 'groups', ...args])
    const topic = await newTopic(2)
    const group = `cli-${randomUUID()}`
    const m = startMember('cli-member', { GROUP: group, TOPIC: topic })
    onTestFinished(() => {
      kill(m)
    })
    await stableWith(group, ['cli-member'], all(topic, 2), 60_000)
    const values = range('c', 100)
    await produce(topic, values)
    await processedBy([m], values)
    await waitFor(
      async () => (await client.admin().fetchOffsets(group)).reduce((n, o) => n + Number(o.offset), 0) === 100,
      { description: 'all 100 offsets committed' },
    )

    const listed = await sluice(['list', '--json'])
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout)).toContainEqual({ groupId: group, protocolType: 'consumer', state: 'Stable' })
    const described = await sluice(['describe', group])
    expect(described.code, described.stderr).toBe(0)
    expect(described.stdout).toMatch(/state\s+Stable/)
    expect(described.stdout).toContain('cli-member')
    expect(described.stdout).toMatch(/total lag\s+0/)

    const refused = await sluice(['reset-offsets', group, '--topic', topic, '--to-earliest', '--execute'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('NON_EMPTY_GROUP')

    kill(m, 'SIGTERM') // a clean close leaves the group
    await waitFor(async () => (await groupView(group)).state === 'Empty', { description: 'the group to be empty' })
    const dry = await sluice(['reset-offsets', group, '--topic', topic, '--to-earliest'])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toContain('dry run')
    expect((await client.admin().fetchOffsets(group)).reduce((n, o) => n + Number(o.offset), 0)).toBe(100)
    const done = await sluice(['reset-offsets', group, '--topic', topic, '--to-earliest', '--execute'])
    expect(done.code, done.stderr).toBe(0)
    const after = JSON.parse((await sluice(['describe', group, '--json'])).stdout) as {
      state: string
      totalLag: string
    }
    expect(after).toMatchObject({ state: 'Empty', totalLag: '100' })
    const deleted = await sluice(['delete', group])
    expect(deleted.code, deleted.stderr).toBe(0)
    const missing = await sluice(['describe', group])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('GROUP_ID_NOT_FOUND')
  })
})
