/**
 * Runs a Sluice server (`node packages/<x>/dist/main.js ...`) as a child process and waits for
 * the `LISTENING <port>` line it prints on stdout once it serves requests. If the process exits
 * (or the deadline passes) first, start fails with the tail of its stderr and stdout, which is
 * where a config error or crash explains itself. Output is always drained (a full pipe would
 * block the child); callers see it line by line through `onLine`, and the last lines are kept.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { track, trackChild } from './tracker.js'

export interface ExitInfo {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export interface SpawnProcessOptions {
  /** Shown in errors and passed to `onLine`, e.g. `broker-1`. */
  readonly name: string
  readonly script: string
  readonly args: readonly string[]
  /** `node` flags before the script (e.g. SERVER_NODE_FLAGS). */
  readonly nodeFlags?: readonly string[]
  readonly env?: NodeJS.ProcessEnv
  readonly cwd?: string
  /** Host part of `endpoint`. Default 127.0.0.1. */
  readonly host?: string
  /** Default 60 s. */
  readonly listeningTimeoutMs?: number
  /** Every output line of the child (pino JSON on stdout, anything on stderr). */
  readonly onLine?: (line: string, stream: 'stdout' | 'stderr') => void
  /**
   * Put the child in its own process group, so a terminal's Ctrl-C reaches only the parent,
   * which then stops children in order. Default false (children die with the terminal's group).
   */
  readonly ownProcessGroup?: boolean
}

export interface SpawnedProcess {
  readonly name: string
  readonly pid: number
  readonly port: number
  readonly endpoint: string
  /** The admin HTTP port from an `ADMIN_LISTENING <port>` line (servers started with --admin-port). */
  readonly adminPort: number | undefined
  /** The Kafka listener's port from a `KAFKA_LISTENING <port>` line (brokers started with --kafka-port). */
  readonly kafkaPort: number | undefined
  /** host:kafkaPort, when the process printed a Kafka port. */
  readonly kafkaEndpoint: string | undefined
  readonly child: ChildProcess
  /** Resolves when the process has exited, however that happened; never rejects. */
  readonly exited: Promise<ExitInfo>
  readonly exitInfo: ExitInfo | undefined
  kill(signal?: NodeJS.Signals): void
  /** SIGTERM, then SIGKILL if it has not exited within `timeoutMs` (default 15 s). */
  stop(options?: { timeoutMs?: number }): Promise<ExitInfo>
  /** The last lines the process wrote (stderr and stdout interleaved). */
  outputTail(): string
}

const TAIL_LINES = 60

export async function spawnProcess(options: SpawnProcessOptions): Promise<SpawnedProcess> {
  if (!existsSync(options.script)) {
    throw new Error(`${options.script} does not exist: build first (npx tsc -b at the repository root)`)
  }
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), options.script, ...options.args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.ownProcessGroup ?? false,
  })
  const untrackChild = trackChild(child)
  const tail: string[] = []
  let exitInfo: ExitInfo | undefined
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal }
      untrackChild()
      resolve(exitInfo)
    })
    // A failed spawn emits 'error' and never 'exit'.
    child.once('error', (err) => {
      tail.push(`spawn failed: ${err.message}`)
      exitInfo ??= { code: null, signal: null }
      untrackChild()
      resolve(exitInfo)
    })
  })
  // Both streams have ended once 'close' fires: only then is the tail complete.
  const closed = new Promise<void>((resolve) => {
    child.once('close', () => resolve())
    child.once('error', () => resolve())
  })

  let adminPort: number | undefined
  let kafkaPort: number | undefined
  let onListening: ((port: number) => void) | undefined
  const listening = new Promise<number>((resolve) => {
    onListening = resolve
  })
  const watch = (stream: NodeJS.ReadableStream, which: 'stdout' | 'stderr'): void => {
    const rl = createInterface({ input: stream, crlfDelay: Infinity })
    rl.on('line', (line) => {
      tail.push(line)
      if (tail.length > TAIL_LINES) tail.shift()
      if (which === 'stdout') {
        const m = /^LISTENING (\d+)\s*$/.exec(line)
        if (m !== null) onListening?.(Number(m[1]))
        // Servers print it before LISTENING, so it is known when spawnProcess resolves.
        const admin = /^ADMIN_LISTENING (\d+)\s*$/.exec(line)
        if (admin !== null) adminPort = Number(admin[1])
        // Brokers print it right before LISTENING, so it is known when spawnProcess resolves too.
        const kafkaListening = /^KAFKA_LISTENING (\d+)\s*$/.exec(line)
        if (kafkaListening !== null) kafkaPort = Number(kafkaListening[1])
      }
      options.onLine?.(line, which)
    })
  }
  watch(child.stdout!, 'stdout')
  watch(child.stderr!, 'stderr')

  const kill = (signal: NodeJS.Signals = 'SIGTERM'): void => {
    if (exitInfo === undefined) {
      try {
        child.kill(signal)
      } catch {
        /* exited meanwhile */
      }
    }
  }
  const outputTail = (): string => tail.join('\n')
  const stop = async (stopOptions: { timeoutMs?: number } = {}): Promise<ExitInfo> => {
    if (exitInfo !== undefined) return exitInfo
    kill('SIGTERM')
    let timer: NodeJS.Timeout | undefined
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        kill('SIGKILL')
        resolve()
      }, stopOptions.timeoutMs ?? 15_000)
    })
    await Promise.race([exited, killed])
    clearTimeout(timer)
    return await exited
  }

  const untrack = track({
    description: `process ${options.name} (pid ${child.pid ?? '?'})`,
    stop: async () => await stop(),
  })
  void exited.then(untrack)

  const timeoutMs = options.listeningTimeoutMs ?? 60_000
  let timer: NodeJS.Timeout | undefined
  const outcome = await Promise.race([
    listening.then((port) => ({ kind: 'listening' as const, port })),
    exited.then((info) => ({ kind: 'exited' as const, info })),
    new Promise<{ kind: 'timeout' }>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs)
    }),
  ])
  clearTimeout(timer)
  if (outcome.kind !== 'listening') {
    if (outcome.kind === 'timeout') await stop({ timeoutMs: 5_000 })
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2_000).unref())])
    const how =
      outcome.kind === 'timeout'
        ? `did not print LISTENING <port> within ${timeoutMs} ms`
        : `exited (code ${String(exitInfo?.code)}, signal ${String(exitInfo?.signal)}) before listening`
    throw new Error(`${options.name} ${how}; last output:\n${outputTail()}`)
  }
  const host = options.host ?? '127.0.0.1'
  return {
    name: options.name,
    pid: child.pid!,
    port: outcome.port,
    endpoint: `${host}:${outcome.port}`,
    get adminPort() {
      return adminPort
    },
    get kafkaPort() {
      return kafkaPort
    },
    get kafkaEndpoint() {
      return kafkaPort === undefined ? undefined : `${host}:${kafkaPort}`
    },
    child,
    exited,
    get exitInfo() {
      return exitInfo
    },
    kill,
    stop,
    outputTail,
  }
}
