/**
 * A cluster of real processes wired through TCP proxies so a test can break it on purpose: one
 * metadata service and N brokers (default 3), each broker reaching the metadata service through
 * its own proxy (`<b>->md`, handed to it as its metadata endpoint) and each peer broker through a
 * per-pair proxy (`<b>-><peer>`, given to the broker as a replica connect override, in front of
 * the peer's replication address: its Kafka listener under the default 'kafka' replica fetch
 * transport, its gRPC port under 'grpc'). The test's
 * clients reach brokers and the metadata service directly: faults cut the cluster's internal
 * links, not the observer.
 *
 * Faults: kill -9, SIGSTOP/SIGCONT (a zombie that wakes up later), isolate (all proxies of one
 * broker to 'hold' or 'drop'), heal, restart with the same data dir and port. Every action is
 * written to the timeline (`onEvent`, default stdout) with the time since start.
 *
 * Ports: brokers get fixed ports (gRPC and Kafka) chosen up front (so proxies exist before the brokers and a
 * restarted broker comes back where its peers and clients expect it). Process output goes to
 * `<dataDir>/logs/<name>.log`; SLUICE_E2E_KEEP=1 keeps the data dir for a post-mortem.
 * close() always leaves nothing running: stopped processes are continued, then killed.
 */
import { createWriteStream, type WriteStream } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { connect, type Admin, type SluiceClient, type TopicDescription } from '@sluice/client'
import { freePorts, spawnBroker, spawnMetadata, waitFor, withTimeout, type SpawnedProcess } from '@sluice/testkit'
import { brokerArgs, metadataArgs, type ClusterTimeouts } from './server-flags.js'
import { startTcpProxy, type ProxyMode, type TcpProxy } from './tcp-proxy.js'

export type BrokerState = 'running' | 'paused' | 'dead'
export type ProcessRef = number | 'metadata'

export interface FaultClusterOptions extends Partial<ClusterTimeouts> {
  /** Default 3; ids are 1..N. */
  readonly brokers?: number
  /** Default: console.log. */
  readonly onEvent?: (line: string) => void
  /** More flags for broker `id` (e.g. `--data-dirs`), after the harness's own. */
  readonly extraBrokerArgs?: (id: number) => string[]
  /** Every output line of every process (also written to `<dataDir>/logs/<name>.log`). */
  readonly onOutputLine?: (name: string, line: string) => void
  /** What followers fetch over (the brokers' replicaFetchTransport; default their default, 'kafka'). */
  readonly replicaFetchTransport?: 'kafka' | 'grpc'
}

export interface FaultCluster {
  readonly dataDir: string
  readonly brokerIds: readonly number[]
  /** Direct broker endpoints, for the test's clients. */
  readonly bootstrap: string[]
  /** A client of the test (direct connections), for admin calls, producers and consumers. */
  readonly client: SluiceClient
  readonly admin: Admin
  brokerDataDir(id: number): string
  state(id: number): BrokerState
  pid(id: number): number | undefined
  /** The proxy `from` uses to reach `to`. */
  proxy(from: number, to: ProcessRef): TcpProxy
  kill(id: number): Promise<void>
  pause(id: number): void
  resume(id: number): void
  /** Cuts every link of the broker (to the metadata service and both ways to each peer). */
  isolate(id: number, mode?: Exclude<ProxyMode, 'pass'>): void
  /** Every proxy back to 'pass', every paused broker continued. Dead brokers stay dead. */
  heal(): void
  /** Stops the broker (SIGTERM, or SIGKILL) if it runs and starts it again on its data dir and port. */
  restart(id: number, options?: { signal?: 'SIGTERM' | 'SIGKILL' }): Promise<void>
  /** Starts a dead broker again. */
  start(id: number): Promise<void>
  describe(topic: string): Promise<TopicDescription>
  leaderOf(topic: string, partition: number): Promise<number>
  /** Waits until the partition has a leader other than `from`, and returns it. */
  waitForNewLeader(topic: string, partition: number, from: number, timeoutMs?: number): Promise<number>
  /** Waits until every partition has a leader and a full ISR (all replicas back and caught up). */
  waitForHealthy(topic: string, timeoutMs?: number): Promise<TopicDescription>
  /** Problems if some follower did not reach its leader through the per-pair proxy (the wiring is not in effect). */
  wiringProblems(description: TopicDescription): string[]
  /** `p0 L1 e2 isr[1,2,3] | p1 ...`, for the timeline. */
  summary(topic: string): Promise<string>
  log(line: string): void
  /** The last `lines` lines of a process's output (default 60), each cut to 400 characters. */
  outputTail(ref: ProcessRef, lines?: number): string
  close(): Promise<void>
}

interface BrokerSlot {
  readonly id: number
  readonly port: number
  readonly kafkaPort: number
  readonly dataDir: string
  process: SpawnedProcess | undefined
  state: BrokerState
}

export async function startFaultCluster(options: FaultClusterOptions = {}): Promise<FaultCluster> {
  const count = options.brokers ?? 3
  const timeouts: ClusterTimeouts = {
    sessionTimeoutMs: options.sessionTimeoutMs ?? 3000,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 500,
    replicaLagMaxMs: options.replicaLagMaxMs ?? 3000,
  }
  const startedAt = Date.now()
  const onEvent =
    options.onEvent ??
    ((line: string) => {
      console.log(line)
    })
  const log = (line: string): void => onEvent(`[fault +${((Date.now() - startedAt) / 1000).toFixed(1)}s] ${line}`)
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sluice-e2e-faults-'))
  await mkdir(path.join(dataDir, 'logs'))
  const ids = Array.from({ length: count }, (_, i) => i + 1)
  const proxies = new Map<string, TcpProxy>()
  const transport = options.replicaFetchTransport ?? 'kafka'
  const logFiles = new Map<string, WriteStream>()
  const slots = new Map<number, BrokerSlot>()
  let metadata: SpawnedProcess | undefined
  let client: SluiceClient | undefined
  let closing = false

  const logFile = (name: string): WriteStream => {
    let f = logFiles.get(name)
    if (f === undefined) {
      f = createWriteStream(path.join(dataDir, 'logs', `${name}.log`), { flags: 'a' })
      f.on('error', () => {})
      logFiles.set(name, f)
    }
    return f
  }
  const onLine =
    (name: string) =>
    (line: string): void => {
      logFile(name).write(`${line}\n`)
      options.onOutputLine?.(name, line)
    }

  const closeAll = async (): Promise<void> => {
    closing = true
    if (client !== undefined) await withTimeout(client.close(), 5_000, 'the test client to close').catch(() => {})
    const procs = [...slots.values()].map((s) => s.process).filter((p) => p !== undefined)
    if (metadata !== undefined) procs.push(metadata)
    for (const p of procs) {
      if (p.exitInfo !== undefined) continue
      p.kill('SIGCONT') // a stopped process must run to die cleanly and release its ports
      p.kill('SIGKILL')
    }
    await Promise.all(procs.map(async (p) => await withTimeout(p.exited, 10_000, `${p.name} to exit`).catch(() => {})))
    await Promise.all([...proxies.values()].map(async (p) => await p.close()))
    await Promise.all(
      [...logFiles.values()].map(async (f) => await new Promise<void>((resolve) => f.end(() => resolve()))),
    )
    if (process.env.SLUICE_E2E_KEEP === '1') log(`kept ${dataDir}`)
    else await rm(dataDir, { recursive: true, force: true })
  }

  try {
    metadata = await spawnMetadata({
      dataDir: path.join(dataDir, 'metadata'),
      extraArgs: metadataArgs(timeouts),
      onLine: onLine('metadata'),
    })
    // Proxies first (their targets are looked up per connection), broker ports after: so no
    // proxy can be handed a port chosen for a broker.
    for (const id of ids)
      proxies.set(`${id}->md`, await startTcpProxy({ target: metadata.endpoint, name: `b${id}->md` }))
    for (const from of ids) {
      for (const to of ids) {
        if (from === to) continue
        proxies.set(
          `${from}->${to}`,
          await startTcpProxy({ target: () => `127.0.0.1:${replicationPort(to)}`, name: `b${from}->b${to}` }),
        )
      }
    }
    const ports = await freePorts(2 * count)
    for (const id of ids) {
      slots.set(id, {
        id,
        port: ports[id - 1]!,
        kafkaPort: ports[count + id - 1]!,
        dataDir: path.join(dataDir, `broker-${id}`),
        process: undefined,
        state: 'dead',
      })
    }
  } catch (err) {
    await closeAll()
    throw err
  }

  /** Where followers reach broker `id` for replication (0 before its slot exists: the proxy refuses). */
  const replicationPort = (id: number): number => {
    const s = slots.get(id)
    return s === undefined ? 0 : transport === 'kafka' ? s.kafkaPort : s.port
  }
  const slot = (id: number): BrokerSlot => {
    const s = slots.get(id)
    if (s === undefined) throw new RangeError(`no broker ${id} (brokers are ${ids.join(', ')})`)
    return s
  }
  const proxy = (from: number, to: ProcessRef): TcpProxy => {
    const p = proxies.get(`${from}->${to === 'metadata' ? 'md' : to}`)
    if (p === undefined) throw new RangeError(`no proxy from ${from} to ${to}`)
    return p
  }

  const launch = async (id: number): Promise<void> => {
    const s = slot(id)
    const peers = ids.filter((p) => p !== id).map((p) => ({ brokerId: p, endpoint: proxy(id, p).endpoint }))
    const args = [
      ...brokerArgs(timeouts, peers),
      ...(options.replicaFetchTransport !== undefined ? ['--replica-fetch-transport', transport] : []),
      ...(options.extraBrokerArgs?.(id) ?? []),
    ]
    // The port may linger briefly after a kill: retry a bind failure (bounded), report anything else.
    for (let attempt = 1; ; attempt++) {
      try {
        s.process = await spawnBroker({
          brokerId: id,
          dataDir: s.dataDir,
          port: s.port,
          kafkaPort: s.kafkaPort,
          metadataEndpoints: [proxy(id, 'metadata').endpoint],
          extraArgs: args,
          onLine: onLine(`broker-${id}`),
          listeningTimeoutMs: 60_000,
        })
        break
      } catch (err) {
        if (attempt >= 10 || !/EADDRINUSE|address already in use/i.test((err as Error).message)) {
          throw new Error(`broker ${id} did not start (attempt ${attempt})`, { cause: err })
        }
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt))
      }
    }
    const proc = s.process!
    if (closing) {
      // close() ran while this broker was starting: it must not outlive the cluster
      proc.kill('SIGKILL')
      throw new Error(`broker ${id} started after the cluster was closed`)
    }
    s.state = 'running'
    void proc.exited.then((info) => {
      if (s.process !== proc || closing) return
      s.state = 'dead'
      log(`broker-${id} (pid ${proc.pid}) exited: code ${String(info.code)}, signal ${String(info.signal)}`)
    })
    log(`broker-${id} running (pid ${proc.pid}, port ${s.port})`)
  }

  try {
    // allSettled, not all: a broker still starting when another failed must be known to be killed.
    const launched = await Promise.allSettled(ids.map(async (id) => await launch(id)))
    const failed = launched.find((r) => r.status === 'rejected')
    if (failed !== undefined) throw failed.reason
    const bootstrap = ids.map((id) => `127.0.0.1:${slot(id).port}`)
    client = await connect({
      bootstrap,
      clientId: 'fault-test',
      requestTimeoutMs: 5_000,
      retry: { retries: 30, initialBackoffMs: 50, maxBackoffMs: 500 },
    })
    await waitFor(
      async () => {
        const c = await client!.admin().describeCluster()
        return ids.every((id) => c.brokers.some((b) => b.brokerId === id))
      },
      { timeoutMs: 30_000, description: 'every broker to be registered' },
    )
  } catch (err) {
    await closeAll()
    throw err
  }
  const theClient = client
  const admin = theClient.admin()

  const describe = async (topic: string): Promise<TopicDescription> => {
    const [d] = await admin.describeTopics([topic])
    if (d === undefined) throw new Error(`topic ${topic} not described`)
    return d
  }

  const setModes = (id: number, mode: ProxyMode): void => {
    proxy(id, 'metadata').setMode(mode)
    for (const peer of ids) {
      if (peer === id) continue
      proxy(id, peer).setMode(mode)
      proxy(peer, id).setMode(mode)
    }
  }

  const stopBroker = async (id: number, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> => {
    const s = slot(id)
    const p = s.process
    if (p === undefined || p.exitInfo !== undefined) return
    if (s.state === 'paused') p.kill('SIGCONT')
    s.process = undefined // the exit is expected: not reported by the watcher in launch()
    if (signal === 'SIGKILL') {
      p.kill('SIGKILL')
      await withTimeout(p.exited, 10_000, `broker-${id} to die`)
    } else {
      await p.stop({ timeoutMs: 15_000 })
    }
    s.state = 'dead'
  }

  const cluster: FaultCluster = {
    dataDir,
    brokerIds: ids,
    bootstrap: ids.map((id) => `127.0.0.1:${slot(id).port}`),
    client: theClient,
    admin,
    brokerDataDir: (id) => slot(id).dataDir,
    state: (id) => slot(id).state,
    pid: (id) => slot(id).process?.pid,
    proxy,
    kill: async (id) => {
      log(`kill -9 broker-${id} (pid ${String(slot(id).process?.pid)})`)
      await stopBroker(id, 'SIGKILL')
    },
    pause: (id) => {
      const s = slot(id)
      if (s.state !== 'running') throw new Error(`broker ${id} is ${s.state}, cannot pause it`)
      s.process!.kill('SIGSTOP')
      s.state = 'paused'
      log(`SIGSTOP broker-${id} (pid ${s.process!.pid})`)
    },
    resume: (id) => {
      const s = slot(id)
      if (s.state !== 'paused') return
      s.process!.kill('SIGCONT')
      s.state = 'running'
      log(`SIGCONT broker-${id}`)
    },
    isolate: (id, mode = 'hold') => {
      slot(id)
      setModes(id, mode)
      log(`isolate broker-${id} (${mode}: metadata and peers)`)
    },
    heal: () => {
      for (const p of proxies.values()) p.heal()
      for (const id of ids) cluster.resume(id)
      log('heal: every link passes')
    },
    restart: async (id, restartOptions = {}) => {
      const signal = restartOptions.signal ?? 'SIGTERM'
      log(`restart broker-${id} (${signal})`)
      await stopBroker(id, signal)
      await launch(id)
    },
    start: async (id) => {
      if (slot(id).state !== 'dead') throw new Error(`broker ${id} is ${slot(id).state}`)
      log(`start broker-${id}`)
      await launch(id)
    },
    describe,
    leaderOf: async (topic, partition) => {
      const p = (await describe(topic)).partitions.find((x) => x.partition === partition)
      if (p === undefined) throw new Error(`${topic} has no partition ${partition}`)
      return p.leader
    },
    waitForNewLeader: async (topic, partition, from, timeoutMs = 30_000) => {
      const leader = await waitFor(
        async () => {
          const l = await cluster.leaderOf(topic, partition)
          return l >= 0 && l !== from ? l : undefined
        },
        { timeoutMs, description: `${topic}-${partition} to get a leader other than ${from}` },
      )
      log(`${topic}-${partition}: leader ${from} -> ${leader}`)
      return leader
    },
    waitForHealthy: async (topic, timeoutMs = 60_000) => {
      let last = ''
      try {
        return await waitFor(
          async () => {
            const d = await describe(topic)
            last = formatDescription(d)
            const healthy = d.partitions.every((p) => p.leader >= 0 && sameSet(p.isr, p.replicas))
            return healthy ? d : undefined
          },
          { timeoutMs, description: `${topic}: every partition led, with a full ISR` },
        )
      } catch (err) {
        throw new Error(`${(err as Error).message}; last seen: ${last}`, { cause: err })
      }
    },
    wiringProblems: (d) => {
      const problems: string[] = []
      for (const p of d.partitions) {
        for (const f of p.isr) {
          if (f === p.leader || p.leader < 0) continue
          if (proxy(f, p.leader).stats().accepted === 0)
            problems.push(
              `broker ${f} follows ${d.name}-${p.partition} but never connected to broker ${p.leader} through its proxy`,
            )
        }
      }
      return problems
    },
    summary: async (topic) => formatDescription(await describe(topic)),
    log,
    outputTail: (ref, lines = 60) => {
      const tail =
        ref === 'metadata' ? (metadata?.outputTail() ?? '') : (slot(ref).process?.outputTail() ?? '(not running)')
      return tail
        .split('\n')
        .slice(-lines)
        .map((l) => (l.length > 400 ? `${l.slice(0, 400)}...` : l))
        .join('\n')
    },
    close: async () => {
      log('closing the cluster')
      await closeAll()
    },
  }
  return cluster
}

/** Registers close() with the test's cleanup hook the moment the cluster exists (also on failure). */
export async function useFaultCluster(
  hook: (cleanup: () => Promise<void>) => unknown,
  options?: FaultClusterOptions,
): Promise<FaultCluster> {
  const cluster = await startFaultCluster(options)
  hook(async () => await cluster.close())
  return cluster
}

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x))
}

export function formatDescription(d: TopicDescription): string {
  return [...d.partitions]
    .sort((a, b) => a.partition - b.partition)
    .map((p) => `p${p.partition} L${p.leader} e${p.leaderEpoch} isr[${p.isr.join(',')}]`)
    .join(' | ')
}
