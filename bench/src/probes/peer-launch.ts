/**
 * The parent's handle on a probe peer: a forked Node process (probe-peer-main.ts) for the real
 * probes, where every hop crosses processes, or the same peer in this process for a fast unit
 * test of the probe logic. Both answer the same questions.
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { registerChild } from '../children.js'
import type { PeerConfig, PeerReport } from './peer-config.js'
import { startPeer } from './start-peer.js'

export interface PeerHandle {
  readonly port: number
  readonly pid: number
  /** The peer's process.hrtime.bigint() now (for the shared-clock check). */
  clockNs(): Promise<bigint>
  report(): Promise<PeerReport>
  /** Measured messages the peer received since its last reset. */
  received(): Promise<number>
  reset(): Promise<void>
  close(): Promise<void>
}

export type PeerPlacement = 'process' | 'in-process'

const ANSWER_TIMEOUT_MS = 15_000

export async function launchPeer(config: PeerConfig, placement: PeerPlacement): Promise<PeerHandle> {
  if (placement === 'in-process') {
    const peer = await startPeer(config)
    return {
      port: peer.port,
      pid: process.pid,
      clockNs: async () => process.hrtime.bigint(),
      report: async () => peer.report(),
      received: async () => peer.received(),
      reset: async () => peer.reset(),
      close: () => peer.close(),
    }
  }
  const child = fork(fileURLToPath(new URL('./probe-peer-main.js', import.meta.url)), [JSON.stringify(config)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  registerChild(child)
  let nextId = 1
  const ask = <T>(type: string, pick: (m: Record<string, unknown>) => T): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = nextId++
      const timer = setTimeout(() => {
        child.off('message', onMessage)
        reject(new Error(`probe peer ${child.pid} did not answer ${type}`))
      }, ANSWER_TIMEOUT_MS)
      const onMessage = (m: Record<string, unknown>): void => {
        if (m.type !== type || m.id !== id) return
        clearTimeout(timer)
        child.off('message', onMessage)
        resolve(pick(m))
      }
      child.on('message', onMessage)
      child.send({ type, id })
    })
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('probe peer did not start')), ANSWER_TIMEOUT_MS)
    child.once('exit', (code) => reject(new Error(`probe peer exited with ${code} before starting`)))
    child.on('message', (m: Record<string, unknown>) => {
      if (m.type === 'ready') {
        clearTimeout(timer)
        resolve(Number(m.port))
      } else if (m.type === 'failed') {
        clearTimeout(timer)
        reject(new Error(`probe peer failed: ${String(m.error)}`))
      }
    })
  })
  return {
    port,
    pid: child.pid ?? 0,
    clockNs: () => ask('clock', (m) => BigInt(String(m.ns))),
    report: () => ask('report', (m) => m.report as PeerReport),
    received: () => ask('received', (m) => Number(m.received)),
    reset: () => ask('reset', () => undefined),
    close: async () => {
      if (child.exitCode !== null) return
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      child.send({ type: 'close' })
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000)
      await exited
      clearTimeout(timer)
    },
  }
}

/** Launches peers in order (a chain is built from its last process back), closing them all if one fails. */
export async function launchAll(
  configs: ReadonlyArray<(ports: number[]) => PeerConfig>,
  placement: PeerPlacement,
): Promise<PeerHandle[]> {
  const peers: PeerHandle[] = []
  try {
    for (const make of configs) peers.push(await launchPeer(make(peers.map((p) => p.port)), placement))
    return peers
  } catch (err) {
    await closeAll(peers)
    throw err
  }
}

export async function closeAll(peers: readonly PeerHandle[]): Promise<void> {
  await Promise.all(peers.map((p) => p.close().catch(() => {})))
}
