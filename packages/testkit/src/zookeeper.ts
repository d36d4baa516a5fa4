/**
 * Starts and stops a real Apache ZooKeeper (Debian package `zookeeper` 3.8) for tests: one
 * standalone server or a 3-node ensemble on 127.0.0.1, each a JVM child process
 * (docs/zookeeper.md, "Running ZooKeeper locally").
 *
 * Layout under `dataDir` (a fresh temp dir unless given): `zk<N>/zoo.cfg`, `zk<N>/data/` (with
 * `myid` in an ensemble) and `zk<N>/zk.log` (the JVM's stdout+stderr, quoted when start fails).
 * Readiness: every server must report `Mode: standalone|leader|follower` to the four-letter word
 * `srvr`. (`ruok` is not enough: it answers `imok` while the server still loads its database, and
 * ZooKeeper 3.8 leaves client connections that arrive then hanging, unanswered; and in an
 * ensemble it answers before a quorum exists.) Every JVM
 * is registered with the testkit tracker: `stopAll()` stops it and a dying test process SIGKILLs
 * it on exit. A failed start kills whatever it had started. Ports: the client port(s) come from
 * `port` (0 = free ports chosen by binding 127.0.0.1:0), quorum and election ports are always
 * free ones; a small race with other processes grabbing them remains, as for `freePorts`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { freePorts } from './ports.js'
import { track, trackChild } from './tracker.js'

/** Where Debian puts the jar; SLUICE_ZOOKEEPER_JAR points elsewhere (a tarball install's lib/zookeeper-*.jar). */
export const ZOOKEEPER_JAR = process.env.SLUICE_ZOOKEEPER_JAR ?? '/usr/share/java/zookeeper.jar'
const CLASSPATH = `${ZOOKEEPER_JAR}:/usr/share/java/slf4j-simple.jar`
export const ZOOKEEPER_INSTALL_HINT =
  'install it with: apt-get install -y --no-install-recommends zookeeper ' +
  '(Debian package 3.8; see docs/zookeeper.md, "Running ZooKeeper locally")'

/** Whether the ZooKeeper jar this harness runs is on the machine. */
export function zookeeperInstalled(): boolean {
  return existsSync(ZOOKEEPER_JAR)
}

export interface StartZooKeeperOptions {
  /** Parent directory for the servers' files; a fresh temp dir (removed on stop) if absent. */
  readonly dataDir?: string
  /** Client port of server 1 (then +1, +2 in an ensemble); 0 or absent = free ports. */
  readonly port?: number
  readonly ensemble?: 1 | 3
  /** Default 2000 (so the minimum session timeout is 4000 ms). */
  readonly tickTimeMs?: number
  /** Deadline for every server to be ready. Default 60 s. */
  readonly readyTimeoutMs?: number
  readonly heapMb?: number
  /** Run each JVM in its own process group, so a terminal's Ctrl-C does not reach it (`sluice dev` stops it last). */
  readonly ownProcessGroup?: boolean
}

export interface ZooKeeperHandle {
  /** `127.0.0.1:p1[,127.0.0.1:p2,...]`, without a chroot. */
  readonly connectString: string
  readonly ports: readonly number[]
  /** Current pid per server (undefined while a server is down). */
  readonly pids: ReadonlyArray<number | undefined>
  readonly dataDir: string
  /** SIGTERM every server, SIGKILL after 5 s; removes `dataDir` if the harness created it. */
  stop(): Promise<void>
  /** SIGKILL server `index` (0-based) and wait for it to exit. */
  kill(index: number): Promise<void>
  /** Starts server `index` again with its config and data and waits until it is ready. */
  restart(index: number): Promise<void>
  /** The server's `Mode:` from `srvr` (standalone, leader, follower), undefined if not serving. */
  mode(index: number): Promise<string | undefined>
}

interface Server {
  readonly dir: string
  readonly clientPort: number
  child?: ChildProcess
  exited?: Promise<void>
  untrack?: () => void
}

export async function startZooKeeper(options: StartZooKeeperOptions = {}): Promise<ZooKeeperHandle> {
  if (!zookeeperInstalled())
    throw new Error(`ZooKeeper is not installed (${ZOOKEEPER_JAR} is missing); ${ZOOKEEPER_INSTALL_HINT}`)
  const count = options.ensemble ?? 1
  const ownDir = options.dataDir === undefined
  const base = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'sluice-zk-')))
  const fixed = options.port !== undefined && options.port !== 0
  const picked = await freePorts(fixed ? 2 * count : 3 * count)
  const clientPorts = fixed ? Array.from({ length: count }, (_, i) => options.port! + i) : picked.splice(0, count)
  const peerPorts = picked
  const servers: Server[] = clientPorts.map((clientPort, i) => ({ dir: join(base, `zk${i + 1}`), clientPort }))
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000
  const mainClass =
    count === 1
      ? 'org.apache.zookeeper.server.ZooKeeperServerMain'
      : 'org.apache.zookeeper.server.quorum.QuorumPeerMain'
  const quorumLines =
    count === 1
      ? []
      : [
          'initLimit=10',
          'syncLimit=5',
          ...servers.map((_, i) => `server.${i + 1}=127.0.0.1:${peerPorts[2 * i]!}:${peerPorts[2 * i + 1]!}`),
        ]
  for (const [i, s] of servers.entries()) {
    await mkdir(join(s.dir, 'data'), { recursive: true })
    if (count > 1) await writeFile(join(s.dir, 'data', 'myid'), `${i + 1}\n`)
    await writeFile(
      join(s.dir, 'zoo.cfg'),
      `${[
        `tickTime=${options.tickTimeMs ?? 2000}`,
        `dataDir=${join(s.dir, 'data')}`,
        `clientPort=${s.clientPort}`,
        'clientPortAddress=127.0.0.1',
        'maxClientCnxns=0',
        'admin.enableServer=false',
        '4lw.commands.whitelist=ruok,srvr,stat,mntr',
        ...quorumLines,
      ].join('\n')}\n`,
    )
  }

  const launch = (s: Server, index: number): void => {
    // Output goes to a file, not a pipe: nobody has to drain it, and it outlives a crash.
    const fd = openSync(join(s.dir, 'zk.log'), 'a')
    const child = spawn(
      'java',
      [`-Xmx${options.heapMb ?? 256}m`, '-cp', CLASSPATH, mainClass, join(s.dir, 'zoo.cfg')],
      { stdio: ['ignore', fd, fd], detached: options.ownProcessGroup ?? false },
    )
    closeSync(fd)
    const untrackChild = trackChild(child)
    s.child = child
    s.exited = new Promise<void>((resolve) => {
      child.once('exit', () => {
        untrackChild()
        resolve()
      })
      child.once('error', () => {
        untrackChild()
        resolve()
      })
    })
    s.untrack = track({
      description: `zookeeper ${index + 1} (pid ${child.pid ?? '?'}, port ${s.clientPort})`,
      stop: async () => {
        await halt(s, 'SIGTERM')
      },
    })
  }

  const waitReady = async (s: Server, index: number, deadline: number): Promise<void> => {
    for (;;) {
      const child = s.child
      if (child === undefined || child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`zookeeper ${index + 1} exited before it was ready; log tail:\n${logTail(s)}`)
      }
      const ok = /^Mode: (standalone|leader|follower)$/m.test(await fourLetterWord(s.clientPort, 'srvr'))
      if (ok) return
      if (Date.now() > deadline)
        throw new Error(
          `zookeeper ${index + 1} (port ${s.clientPort}) not ready within ${readyTimeoutMs} ms; log tail:\n${logTail(s)}`,
        )
      await delay(100)
    }
  }

  const stop = async (): Promise<void> => {
    await Promise.all(
      servers.map(async (s) => {
        await halt(s, 'SIGTERM')
      }),
    )
    if (ownDir) await rm(base, { recursive: true, force: true })
  }

  try {
    servers.forEach(launch)
    const deadline = Date.now() + readyTimeoutMs
    await Promise.all(
      servers.map(async (s, i) => {
        await waitReady(s, i, deadline)
      }),
    )
  } catch (e) {
    await stop()
    throw e
  }

  const at = (index: number): Server => {
    const s = servers[index]
    if (s === undefined) throw new Error(`no zookeeper server ${index} (there are ${servers.length})`)
    return s
  }
  return {
    connectString: clientPorts.map((p) => `127.0.0.1:${p}`).join(','),
    ports: clientPorts,
    get pids() {
      return servers.map((s) =>
        s.child !== undefined && s.child.exitCode === null && s.child.signalCode === null ? s.child.pid : undefined,
      )
    },
    dataDir: base,
    stop,
    kill: async (index) => {
      await halt(at(index), 'SIGKILL')
    },
    restart: async (index) => {
      const s = at(index)
      await halt(s, 'SIGTERM')
      launch(s, index)
      try {
        await waitReady(s, index, Date.now() + readyTimeoutMs)
      } catch (e) {
        await halt(s, 'SIGKILL')
        throw e
      }
    },
    mode: async (index) => /^Mode: (\w+)$/m.exec(await fourLetterWord(at(index).clientPort, 'srvr'))?.[1],
  }
}

/** Signals the server's JVM and waits for it to exit (SIGKILL after 5 s if SIGTERM was not enough). */
async function halt(s: Server, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  const child = s.child
  if (child === undefined || s.exited === undefined) return
  if (child.exitCode === null && child.signalCode === null) {
    child.kill(signal)
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
    }, 5_000)
    await s.exited
    clearTimeout(timer)
  }
  s.untrack?.()
  s.child = undefined
}

function logTail(s: Server): string {
  try {
    return readFileSync(join(s.dir, 'zk.log'), 'utf8').split('\n').slice(-30).join('\n')
  } catch {
    return '(no log)'
  }
}

/** Sends a four-letter word and returns the whole answer ('' if the server is not reachable). */
export async function fourLetterWord(port: number, word: string, timeoutMs = 2_000): Promise<string> {
  return await new Promise((resolve) => {
    const chunks: Buffer[] = []
    const socket = net.connect({ host: '127.0.0.1', port })
    const done = (): void => {
      clearTimeout(timer)
      socket.destroy()
      resolve(Buffer.concat(chunks).toString('utf8'))
    }
    const timer = setTimeout(done, timeoutMs)
    socket.on('connect', () => {
      socket.write(word)
    })
    socket.on('data', (c) => chunks.push(c))
    socket.on('end', done)
    socket.on('error', done)
  })
}

export interface ZooKeeperProxy {
  /** `127.0.0.1:<proxy port>`: give this to clients instead of the server's address. */
  readonly connectString: string
  /** Drops every proxied connection and refuses new ones: a network partition for its clients. */
  cut(): void
  /** Accepts connections again. */
  restore(): void
  close(): Promise<void>
}

/**
 * A TCP proxy in front of one ZooKeeper server, to partition the clients that use it from the
 * server (which keeps running, so it expires their sessions on time) and heal it again.
 */
export async function startZooKeeperProxy(targetPort: number): Promise<ZooKeeperProxy> {
  const pairs = new Set<net.Socket>()
  let refusing = false
  const server = net.createServer((down) => {
    if (refusing) {
      down.destroy()
      return
    }
    const up = net.connect({ host: '127.0.0.1', port: targetPort })
    pairs.add(down).add(up)
    const drop = (): void => {
      down.destroy()
      up.destroy()
      pairs.delete(down)
      pairs.delete(up)
    }
    down.on('error', drop).on('close', drop)
    up.on('error', drop).on('close', drop)
    down.pipe(up)
    up.pipe(down)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve())
  })
  const cutAll = (): void => {
    for (const s of pairs) s.destroy()
    pairs.clear()
  }
  const untrack = track({
    description: `zookeeper proxy to port ${targetPort}`,
    stop: async () => {
      await close()
    },
  })
  const close = async (): Promise<void> => {
    untrack()
    refusing = true
    cutAll()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return {
    connectString: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut: () => {
      refusing = true
      cutAll()
    },
    restore: () => {
      refusing = false
    },
    close,
  }
}
