/**
 * A Sluice Connect worker as a real process (`sluice connect` from the built CLI) for the
 * console's connectors pages: REST on a free port (read from its first stdout line), a temp dir
 * for its config and the files its connectors read; stop() kills it and removes the dir.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { waitFor } from '@sluice/testkit'

const CLI = fileURLToPath(new URL('../../../packages/cli/dist/bin.js', import.meta.url))

export interface ConnectWorker {
  readonly url: string
  readonly dir: string
  stop(): Promise<void>
}

export async function startConnectWorker(bootstrap: readonly string[], groupId: string): Promise<ConnectWorker> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-console-connect-'))
  const config = path.join(dir, 'worker.properties')
  await writeFile(config, ['offset.flush.interval.ms=200', 'key.converter=string', 'value.converter=string'].join('\n'))
  const child: ChildProcess = spawn(
    process.execPath,
    [CLI, '--bootstrap', bootstrap.join(','), '--json', 'connect', '--group-id', groupId, '--rest-port', '0'].concat([
      '--worker-config',
      config,
      '--log-level',
      'warn',
    ]),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGKILL')
      await exited
    }
    await rm(dir, { recursive: true, force: true })
  }
  const lines: string[] = []
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l))
  createInterface({ input: child.stderr! }).on('line', (l) => lines.push(`stderr: ${l}`))
  try {
    const first = await waitFor(
      () => lines.find((l) => l.startsWith('{"url"')) ?? (child.exitCode !== null ? 'exited' : undefined),
      { timeoutMs: 60_000, description: 'the connect worker printed its URL' },
    )
    if (first === 'exited') throw new Error(`the connect worker exited:\n${lines.join('\n')}`)
    return { url: (JSON.parse(first) as { url: string }).url, dir, stop }
  } catch (err) {
    await stop()
    throw err
  }
}
