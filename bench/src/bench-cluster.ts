/**
 * The cluster under test: one metadata service and N brokers as separate processes (testkit's
 * spawnCluster over the built dist/), logging at warn so log I/O stays out of the figures.
 *
 * With `profileDir` the brokers run under `node --cpu-prof` and write
 * CPU.<date>.<time>.<pid>.*.cpuprofile there when stopped (SIGTERM -> clean stop ->
 * process.exit, which writes the profile). testkit's spawn helpers cannot pass node flags and
 * Node 20 refuses --cpu-prof in NODE_OPTIONS, so those brokers are spawned here, from testkit's
 * serverMainPath('broker'), with the same flags spawnBroker uses.
 *
 * Topics are created through the SDK's admin client and awaited until every partition has a
 * leader *and* the leaders have created the partition directories on disk, so an idle
 * measurement starts after the broker finished its work, not while it is still doing it.
 */
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { connect, type SluiceClient } from '@sluice/client'
import {
  SERVER_NODE_FLAGS,
  serverMainPath,
  spawnCluster,
  spawnMetadata,
  waitFor,
  waitForBrokers,
} from '@sluice/testkit'
import { registerChild } from './children.js'

export interface BenchCluster {
  readonly dataDir: string
  readonly bootstrap: string[]
  /** The brokers' Kafka listeners (host:port), for the kafkajs workers. */
  readonly kafkaBootstrap: string[]
  readonly admin: SluiceClient
  /** broker-<id> -> pid, plus 'metadata'. */
  readonly pids: Map<string, number>
  /** broker-<id> -> admin HTTP port (/metrics), for request rates (request-rates.ts). */
  readonly adminPorts: Map<string, number>
  /** Creates a topic and waits until it is served; returns ms until leaders were elected and until every log existed. */
  createTopic(t: {
    name: string
    partitions: number
    replicationFactor: number
    configs?: Record<string, string>
  }): Promise<{ leadersMs: number; logsMs: number }>
  /**
   * Whether followers hold what leaders hold: bytes of .log segments summed over the leader
   * replicas, and over the follower replicas divided by (RF - 1).
   */
  replicationCheck(topic: string): Promise<{ leaderBytes: number; followerBytesPerReplica: number }>
  stop(): Promise<void>
}

interface Servers {
  dataDir: string
  bootstrap: string[]
  kafkaBootstrap: string[]
  pids: Map<string, number>
  adminPorts: Map<string, number>
  stop(): Promise<void>
}

const QUIET = ['--log-level', 'warn']

async function spawnServers(brokers: number, env: NodeJS.ProcessEnv | undefined): Promise<Servers> {
  const spawned = await spawnCluster({
    brokers,
    env,
    brokerArgs: QUIET,
    metadataArgs: QUIET,
    readyTimeoutMs: 60_000,
    adminPorts: true,
  })
  const pids = new Map<string, number>([['metadata', spawned.metadata.pid]])
  const adminPorts = new Map<string, number>()
  spawned.brokers.forEach((b, i) => {
    pids.set(`broker-${i + 1}`, b.pid)
    if (b.adminPort !== undefined) adminPorts.set(`broker-${i + 1}`, b.adminPort)
  })
  return {
    dataDir: spawned.dataDir,
    bootstrap: spawned.bootstrap,
    kafkaBootstrap: spawned.brokers.map((b) => b.kafkaEndpoint ?? ''),
    pids,
    adminPorts,
    stop: async () => await spawned.stop({ timeoutMs: 30_000 }),
  }
}

interface ProfiledBroker {
  pid: number
  endpoint: string
  kafkaEndpoint: string
  adminPort: number | undefined
  stop: () => Promise<void>
}

/** A broker under `node --cpu-prof`; resolves once it printed LISTENING <port>. */
async function spawnProfiledBroker(
  id: number,
  dataDir: string,
  metadataEndpoint: string,
  profileDir: string,
): Promise<ProfiledBroker> {
  await mkdir(dataDir, { recursive: true })
  const child = spawn(
    process.execPath,
    [
      ...SERVER_NODE_FLAGS,
      `--cpu-prof`,
      `--cpu-prof-dir=${profileDir}`,
      serverMainPath('broker'),
      '--broker-id',
      String(id),
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--metadata-endpoints',
      metadataEndpoint,
      // Ephemeral, as spawnBroker does: a fixed 9092 would collide with a running `sluice dev`.
      '--kafka-port',
      '0',
      '--admin-port',
      '0',
      ...QUIET,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  registerChild(child)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.stderr!.resume()
  let adminPort: number | undefined
  let kafkaPort = 0
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      // The admin port is printed before LISTENING.
      const admin = /^ADMIN_LISTENING (\d+)$/.exec(line.trim())
      if (admin !== null) adminPort = Number(admin[1])
      const kafkaListening = /^KAFKA_LISTENING (\d+)$/.exec(line.trim())
      if (kafkaListening !== null) kafkaPort = Number(kafkaListening[1])
      const m = /^LISTENING (\d+)$/.exec(line.trim())
      if (m !== null) resolve(Number(m[1]))
    })
    void exited.then(() => reject(new Error(`profiled broker ${id} exited before listening`)))
  })
  return {
    pid: child.pid!,
    endpoint: `127.0.0.1:${port}`,
    kafkaEndpoint: `127.0.0.1:${kafkaPort}`,
    adminPort,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
      await exited
      clearTimeout(timer)
    },
  }
}

async function spawnProfiledServers(brokers: number, profileDir: string): Promise<Servers> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sluice-bench-'))
  const metadata = await spawnMetadata({ dataDir: path.join(dataDir, 'metadata'), extraArgs: QUIET })
  const started: ProfiledBroker[] = []
  const stop = async (): Promise<void> => {
    await Promise.all(started.map(async (b) => await b.stop()))
    await metadata.stop({ timeoutMs: 30_000 })
    await rm(dataDir, { recursive: true, force: true })
  }
  try {
    for (let id = 1; id <= brokers; id++) {
      started.push(await spawnProfiledBroker(id, path.join(dataDir, `broker-${id}`), metadata.endpoint, profileDir))
    }
    const bootstrap = started.map((b) => b.endpoint)
    await waitForBrokers(
      bootstrap,
      started.map((_, i) => i + 1),
      { timeoutMs: 60_000 },
    )
    const pids = new Map<string, number>([['metadata', metadata.pid]])
    const adminPorts = new Map<string, number>()
    started.forEach((b, i) => {
      pids.set(`broker-${i + 1}`, b.pid)
      if (b.adminPort !== undefined) adminPorts.set(`broker-${i + 1}`, b.adminPort)
    })
    return { dataDir, bootstrap, kafkaBootstrap: started.map((b) => b.kafkaEndpoint), pids, adminPorts, stop }
  } catch (err) {
    await stop().catch(() => {})
    throw err
  }
}

export async function startBenchCluster(options: {
  brokers: number
  profileDir?: string
  /** Environment of the cluster's processes (default: this process's), e.g. SLUICE_TRACE_DIR. */
  env?: NodeJS.ProcessEnv
}): Promise<BenchCluster> {
  if (options.profileDir !== undefined && options.env !== undefined) throw new Error('profiling takes no env')
  const servers =
    options.profileDir === undefined
      ? await spawnServers(options.brokers, options.env)
      : await spawnProfiledServers(options.brokers, options.profileDir)
  const admin = await connect({ bootstrap: servers.bootstrap, clientId: 'bench-admin', requestTimeoutMs: 120_000 })
  const { pids, adminPorts } = servers

  const partitionDirs = async (brokerId: number, topic: string): Promise<string[]> => {
    const dir = path.join(servers.dataDir, `broker-${brokerId}`)
    const names = await readdir(dir).catch(() => [] as string[])
    return names
      .filter((n) => n.startsWith(`${topic}-`) && /^\d+$/.test(n.slice(topic.length + 1)))
      .map((n) => path.join(dir, n))
  }

  return {
    dataDir: servers.dataDir,
    bootstrap: servers.bootstrap,
    kafkaBootstrap: servers.kafkaBootstrap,
    admin,
    pids,
    adminPorts,
    async createTopic(t) {
      const started = performance.now()
      await admin
        .admin()
        .createTopics(
          [{ name: t.name, numPartitions: t.partitions, replicationFactor: t.replicationFactor, configs: t.configs }],
          { timeoutMs: 120_000 },
        )
      const leaders = await waitFor(
        async () => {
          const [d] = await admin.admin().describeTopics([t.name])
          if (d === undefined || d.partitions.length !== t.partitions) return false
          if (!d.partitions.every((p) => p.leader >= 0 && p.isr.length === t.replicationFactor)) return false
          return d.partitions.map((p) => p.replicas)
        },
        { timeoutMs: 300_000, description: `topic ${t.name} to have leaders` },
      )
      const leadersMs = performance.now() - started
      // Every replica's directory exists: the brokers have applied the partition states.
      const expected = new Map<number, number>()
      for (const replicas of leaders) for (const b of replicas) expected.set(b, (expected.get(b) ?? 0) + 1)
      await waitFor(
        async () => {
          for (const [b, n] of expected) if ((await partitionDirs(b, t.name)).length < n) return false
          return true
        },
        { timeoutMs: 600_000, description: `brokers to create the logs of ${t.name}` },
      )
      return { leadersMs, logsMs: performance.now() - started }
    },
    async replicationCheck(topic) {
      const [d] = await admin.admin().describeTopics([topic])
      let leaderBytes = 0
      let followerBytes = 0
      let rf = 1
      for (const p of d?.partitions ?? []) {
        rf = p.replicas.length
        for (const b of p.replicas) {
          const bytes = await logBytes(path.join(servers.dataDir, `broker-${b}`, `${topic}-${p.partition}`))
          if (b === p.leader) leaderBytes += bytes
          else followerBytes += bytes
        }
      }
      return { leaderBytes, followerBytesPerReplica: rf > 1 ? followerBytes / (rf - 1) : 0 }
    },
    async stop() {
      await admin.close().catch(() => {})
      await servers.stop()
    },
  }
}

async function logBytes(dir: string): Promise<number> {
  let sum = 0
  for (const f of await readdir(dir).catch(() => [] as string[])) {
    if (f.endsWith('.log')) sum += (await stat(path.join(dir, f)).catch(() => ({ size: 0 }))).size
  }
  return sum
}
