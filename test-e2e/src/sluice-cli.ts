/**
 * Drives the built `sluice` command as a user would: one-shot commands with optional stdin, and
 * the long-running `sluice dev` whose stdout is collected so a test can wait for its banner.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { isPortFree, freePorts, waitFor } from '@sluice/testkit'

export const CLI_BIN = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url))

export function assertBuilt(): void {
  if (!existsSync(CLI_BIN)) throw new Error(`${CLI_BIN} is missing: run \`npx tsc -b\` at the repository root first`)
}

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Runs `sluice <args>` to completion (with a deadline), feeding `input` to stdin. */
export async function runSluice(
  args: readonly string[],
  options: { input?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI_BIN, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', ...options.env },
  })
  const out: Buffer[] = []
  const err: Buffer[] = []
  child.stdout.on('data', (c: Buffer) => out.push(c))
  child.stderr.on('data', (c: Buffer) => err.push(c))
  child.stdin.on('error', () => {}) // the command may exit before reading all input
  child.stdin.end(options.input ?? '')
  const timeoutMs = options.timeoutMs ?? 60_000
  let timer: NodeJS.Timeout | undefined
  const result = await new Promise<CliResult>((resolve, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(
        new Error(
          `sluice ${args.join(' ')} did not finish within ${timeoutMs} ms; stderr:\n${Buffer.concat(err).toString()}`,
        ),
      )
    }, timeoutMs)
    child.once('error', reject)
    child.once('close', (code, signal) =>
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    )
  })
  clearTimeout(timer)
  return result
}

export interface DevProcess {
  readonly child: ChildProcess
  output(): string
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

export function startDev(args: readonly string[]): DevProcess {
  return startSluice(['dev', ...args])
}

/** A long-running `sluice` command (dev, console, connect) with its output collected. */
export function startSluice(args: readonly string[], env: NodeJS.ProcessEnv = {}): DevProcess {
  const child = spawn(process.execPath, [CLI_BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', ...env },
  })
  const chunks: Buffer[] = []
  child.stdout!.on('data', (c: Buffer) => chunks.push(c))
  child.stderr!.on('data', (c: Buffer) => chunks.push(c))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }))
  })
  return { child, exited, output: () => Buffer.concat(chunks).toString('utf8') }
}

/** `count` consecutive free ports (sluice dev gives broker i the port base + i - 1). */
export async function consecutiveFreePorts(count: number): Promise<number[]> {
  return await waitFor(
    async () => {
      const [base] = await freePorts(1)
      if (base === undefined || base + count - 1 > 65535) return undefined
      const ports = Array.from({ length: count }, (_, i) => base + i)
      for (const p of ports) if (!(await isPortFree(p))) return undefined
      return ports
    },
    { timeoutMs: 10_000, description: `${count} consecutive free ports` },
  )
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
