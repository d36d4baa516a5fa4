/**
 * `sluice dev`: a local cluster of one metadata service and N brokers as separate processes,
 * data under ./.sluice/dev, fixed ports (metadata 9091; brokers' gRPC 9192..., their Kafka
 * listeners 9092..., so a Kafka client's default 127.0.0.1:9092 just works), every child's pino
 * lines re-printed as one readable line prefixed by the process name. The children run in their
 * own process groups so a terminal's Ctrl-C reaches only this process, which then stops brokers
 * first and the metadata service last (SIGTERM, then SIGKILL after a deadline) and exits 0.
 *
 * `--metadata zookeeper`: the metadata service keeps its tree in a standalone Apache ZooKeeper
 * (testkit's startZooKeeper: a JVM in its own process group, data under <data dir>/zookeeper,
 * client port 2181 when free, else a free one) under the chroot /sluice/dev. ZooKeeper starts
 * first and stops last. Without ZooKeeper installed it exits 1 saying how to install it.
 */
import path from 'node:path'
import {
  isPortFree,
  spawnCluster,
  startZooKeeper,
  stopAll,
  zookeeperInstalled,
  type SpawnedCluster,
  type SpawnedProcess,
  type ZooKeeperHandle,
} from '@sluice/testkit'
import { startConsoleServer, type ConsoleServer } from '@sluice/console'
import { NAME_COLOURS, ansi, prettyLine } from '../log-pretty.js'
import { UsageError, type CliIo } from '../output.js'
import { DEFAULT_BOOTSTRAP } from '../parse.js'

export interface DevOptions {
  readonly brokers: number
  readonly dataDir: string
  /** gRPC port of broker 1 (broker i: port + i - 1). */
  readonly port: number
  /** Kafka listener port of broker 1 (broker i: kafkaPort + i - 1). */
  readonly kafkaPort: number
  readonly metadataPort: number
  readonly logLevel?: string
  /** Deadline for each child to stop after SIGTERM before it gets SIGKILL. */
  readonly stopTimeoutMs?: number
  /** Where the metadata tree lives: the metadata service's embedded store (default) or ZooKeeper. */
  readonly metadata?: 'embedded' | 'zookeeper'
  /** Start the web console (default true) on consolePort, or on a free port when that is taken. */
  readonly console?: boolean
  readonly consolePort?: number
}

export const DEV_ZOOKEEPER_CHROOT = '/sluice/dev'
export const ZOOKEEPER_MISSING_MESSAGE = [
  '`sluice dev --metadata zookeeper` needs Apache ZooKeeper 3.8 and a Java runtime, and ZooKeeper is not installed.',
  'On Debian/Ubuntu: sudo apt-get install -y --no-install-recommends zookeeper   (pulls in Java)',
  'Elsewhere: install a JDK (17+) and a ZooKeeper 3.8 release, and point SLUICE_ZOOKEEPER_JAR at its lib/zookeeper-3.8.*.jar.',
  'Or run `sluice dev` without --metadata to use the embedded metadata store.',
].join('\n')

export const DEV_DEFAULTS = {
  brokers: 3,
  dataDir: './.sluice/dev',
  port: 9192,
  kafkaPort: 9092,
  metadataPort: 9091,
  consolePort: 8080,
} as const

function useColour(io: CliIo): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true
  return io.isTTY
}

/** Runs until SIGINT/SIGTERM/SIGHUP; resolves with the exit code. */
export async function runDev(options: DevOptions, io: CliIo): Promise<number> {
  const dataDir = path.resolve(options.dataDir)
  const brokerPorts = Array.from({ length: options.brokers }, (_, i) => options.port + i)
  const kafkaPorts = Array.from({ length: options.brokers }, (_, i) => options.kafkaPort + i)
  const allPorts = [options.metadataPort, ...brokerPorts, ...kafkaPorts]
  if (new Set(allPorts).size !== allPorts.length || allPorts.some((p) => p > 65535)) {
    throw new UsageError(
      `ports overlap or exceed 65535: metadata ${options.metadataPort}, brokers ${brokerPorts.join(', ')}, Kafka listeners ${kafkaPorts.join(', ')}`,
    )
  }
  for (const port of allPorts) {
    if (!(await isPortFree(port))) {
      throw new UsageError(
        `port ${port} on 127.0.0.1 is in use (is another \`sluice dev\` running?); choose others with --port / --kafka-port / --metadata-port`,
      )
    }
  }

  const colour = useColour(io)
  const say = (text: string, tone?: string): void => {
    io.stdout.write(`${colour && tone !== undefined ? `${tone}${text}${ansi.reset}` : text}\n`)
  }
  let zk: ZooKeeperHandle | undefined
  const metadataArgs: string[] = []
  if (options.metadata === 'zookeeper') {
    if (!zookeeperInstalled()) {
      io.stderr.write(`${ZOOKEEPER_MISSING_MESSAGE}\n`)
      return 1
    }
    const zkPort = (await isPortFree(2181)) ? 2181 : 0
    say(`starting ZooKeeper (data in ${path.join(dataDir, 'zookeeper')})`)
    // The JVM is out of the terminal's process group; hold Ctrl-C until it is up, then stop it.
    let early: NodeJS.Signals | undefined
    const hold = (signal: NodeJS.Signals): void => {
      early = signal
    }
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, hold)
    try {
      zk = await startZooKeeper({
        dataDir: path.join(dataDir, 'zookeeper'),
        port: zkPort,
        ownProcessGroup: true,
        heapMb: 256,
      })
    } finally {
      for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(sig, hold)
    }
    if (early !== undefined) {
      say(`${early}: stopping ZooKeeper`)
      await zk.stop()
      return 0
    }
    say(`ZooKeeper ready on ${zk.connectString}; cluster tree under ${DEV_ZOOKEEPER_CHROOT}`)
    metadataArgs.push('--store', 'zookeeper', '--zk-connect', zk.connectString, '--zk-chroot', DEV_ZOOKEEPER_CHROOT)
  }
  try {
    return await runCluster(
      options,
      io,
      dataDir,
      { grpc: brokerPorts, kafka: kafkaPorts },
      colour,
      say,
      metadataArgs,
      zk,
    )
  } finally {
    if (zk !== undefined) {
      say('stopping ZooKeeper')
      await zk.stop()
    }
  }
}

async function runCluster(
  options: DevOptions,
  io: CliIo,
  dataDir: string,
  ports: { readonly grpc: number[]; readonly kafka: number[] },
  colour: boolean,
  say: (text: string, tone?: string) => void,
  metadataArgs: string[],
  zk: ZooKeeperHandle | undefined,
): Promise<number> {
  const brokerPorts = ports.grpc
  const names = ['metadata', ...brokerPorts.map((_, i) => `broker-${i + 1}`)]
  const nameWidth = Math.max(...names.map((n) => n.length))
  const colourOf = new Map(names.map((n, i) => [n, NAME_COLOURS[i % NAME_COLOURS.length]!]))

  let state: 'starting' | 'running' | 'stopping' = 'starting'
  let cluster: SpawnedCluster | undefined
  let signalled: (() => void) | undefined
  const stopRequested = new Promise<NodeJS.Signals>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      if (state === 'stopping') {
        say(`${signal} again: killing every child now`, ansi.red)
        for (const p of cluster === undefined ? [] : [cluster.metadata, ...cluster.brokers]) p.kill('SIGKILL')
        if (zk !== undefined)
          for (const pid of zk.pids)
            if (pid !== undefined)
              try {
                process.kill(pid, 'SIGKILL')
              } catch {}
        return
      }
      resolve(signal)
      signalled?.()
    }
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, onSignal)
  })

  const logArgs = options.logLevel === undefined ? [] : ['--log-level', options.logLevel]
  say(
    `starting a dev cluster: metadata on ${options.metadataPort}, ${options.brokers} broker(s) on ${brokerPorts.join(', ')} (Kafka ${ports.kafka.join(', ')}), data in ${dataDir}`,
  )
  const starting = spawnCluster({
    brokers: options.brokers,
    dataDir,
    metadataPort: options.metadataPort,
    brokerPorts,
    brokerKafkaPorts: ports.kafka,
    metadataArgs: [...logArgs, ...metadataArgs],
    brokerArgs: logArgs,
    ownProcessGroup: true,
    // Admin ports (metrics, health) registered with the metadata service: the console's live charts read them.
    adminPorts: true,
    listeningTimeoutMs: 60_000,
    readyTimeoutMs: 60_000,
    onLine: (name, line) => {
      io.stdout.write(`${prettyLine(line, { name, nameWidth, colour, nameColour: colourOf.get(name) })}\n`)
    },
  })
  const first = await Promise.race([
    starting.then(
      (c) => ({ kind: 'started' as const, cluster: c }),
      (err: unknown) => ({ kind: 'failed' as const, err }),
    ),
    stopRequested.then((signal) => ({ kind: 'signal' as const, signal })),
  ])
  if (first.kind === 'failed') {
    say('the dev cluster failed to start', ansi.red)
    throw first.err
  }
  if (first.kind === 'signal') {
    state = 'stopping'
    say(`${first.signal}: stopping while starting up`)
    await starting.then(
      async (c) => await c.stop({ timeoutMs: options.stopTimeoutMs }),
      async () => await stopAll(),
    )
    say('stopped')
    return 0
  }
  cluster = first.cluster
  state = 'running'
  watchChildren([cluster.metadata, ...cluster.brokers], () => state === 'running', say)
  const consoleServer = options.console === false ? undefined : await startDevConsole(cluster, options, say)
  printBanner(cluster, options, say, zk, consoleServer?.url)

  const signal = await stopRequested
  state = 'stopping'
  say(
    `${signal}: stopping ${consoleServer === undefined ? '' : 'the console, '}brokers, then the metadata service${zk === undefined ? '' : ', then ZooKeeper'} (Ctrl-C again to kill)`,
  )
  await consoleServer?.close()
  await cluster.stop({ timeoutMs: options.stopTimeoutMs ?? 15_000 })
  say('all processes stopped')
  return 0
}

/**
 * The web console beside the dev cluster, in this process: on consolePort (8080), or on a free
 * port when that one is taken (a second `sluice dev`, another tool). A console that cannot
 * start is reported and the cluster runs on without it.
 */
async function startDevConsole(
  cluster: SpawnedCluster,
  options: DevOptions,
  say: (text: string, tone?: string) => void,
): Promise<ConsoleServer | undefined> {
  const wanted = options.consolePort ?? DEV_DEFAULTS.consolePort
  const port = wanted === 0 || (await isPortFree(wanted)) ? wanted : 0
  try {
    return await startConsoleServer({ bootstrap: cluster.bootstrap, port })
  } catch (err) {
    say(`the web console did not start: ${(err as Error).message}`, ansi.red)
    return undefined
  }
}

/** Says loudly when a child exits while the cluster is supposed to be running. */
function watchChildren(
  children: SpawnedProcess[],
  running: () => boolean,
  say: (text: string, tone?: string) => void,
): void {
  for (const child of children) {
    void child.exited.then((info) => {
      if (!running()) return
      say(
        `!!! ${child.name} (pid ${child.pid}) exited unexpectedly: code ${String(info.code)}, signal ${String(info.signal)}`,
        ansi.red,
      )
      say(`!!! the rest of the cluster keeps running; restart \`sluice dev\` to bring ${child.name} back`, ansi.red)
    })
  }
}

function printBanner(
  cluster: SpawnedCluster,
  options: DevOptions,
  say: (text: string, tone?: string) => void,
  zk: ZooKeeperHandle | undefined,
  consoleUrl: string | undefined,
): void {
  const bootstrap = cluster.bootstrap.join(',')
  const flag = cluster.bootstrap[0] === DEFAULT_BOOTSTRAP ? '' : ` --bootstrap ${cluster.bootstrap[0]!}`
  const kafkaEndpoints = cluster.brokers.map((b) => b.kafkaEndpoint ?? '?')
  const lines = [
    '',
    `Sluice dev cluster ready: 1 metadata service, ${cluster.brokers.length} broker(s)`,
    `  bootstrap   ${bootstrap}   (gRPC: the sluice CLI and SDK)`,
    `  kafka       ${kafkaEndpoints.join(',')}   (Kafka clients: kcat, kafkajs, Java)`,
    `  metadata    ${cluster.metadata.endpoint}${zk === undefined ? '' : ` (tree in ZooKeeper ${zk.connectString}${DEV_ZOOKEEPER_CHROOT})`}`,
    ...(zk === undefined
      ? []
      : [
          `  zookeeper   pid ${zk.pids.join(',')}; look: /usr/share/zookeeper/bin/zkCli.sh -server ${zk.connectString} ls ${DEV_ZOOKEEPER_CHROOT}/brokers/ids`,
        ]),
    ...(consoleUrl === undefined ? [] : [`  console     ${consoleUrl}   (web console: open it in a browser)`]),
    `  pids        metadata=${cluster.metadata.pid} ${cluster.brokers.map((b) => `${b.name}=${b.pid}`).join(' ')}`,
    `  data dir    ${path.resolve(options.dataDir)}`,
    '',
    'Try, in another terminal:',
    `  pnpm sluice${flag} topics create orders --partitions 6`,
    `  seq 1 1000 | pnpm sluice${flag} produce orders`,
    `  pnpm sluice${flag} consume orders --from-beginning`,
    `  pnpm sluice${flag} topics describe orders`,
    `  kcat -b ${kafkaEndpoints[0]!} -L`,
    '',
    'Press Ctrl-C to stop.',
    '',
  ]
  for (const line of lines) say(line, line.startsWith('Sluice dev cluster ready') ? ansi.green : undefined)
}
