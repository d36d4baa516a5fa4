/**
 * How much a process wake-up costs on this machine, measured before the scenarios and printed
 * with the machine line, because it bounds every latency figure below it.
 *
 * Found while explaining scenario 6 (BENCHMARKS.md): on the development VM a Node process that
 * sleeps a few milliseconds pays ~0.2–0.4 ms of CPU when it wakes, and a TCP round trip between
 * two processes that idle between messages takes several times as long as between two busy ones.
 * A request chain that crosses five processes (producer, leader, follower, leader, consumer) pays
 * it at every hop. Two measurements, each a bounded loop of about a second:
 * - timer wake-up: CPU per `setTimeout` wake-up of this process, sleeping 0 (busy) or 5 ms;
 * - TCP round trip: 200-byte ping-pong with a child echo process (workers/echo-worker.ts), back
 *   to back and with 5 ms of idleness between round trips: wall time and CPU on each side.
 */
import { fork } from 'node:child_process'
import net from 'node:net'
import { fileURLToPath } from 'node:url'
import { registerChild } from './children.js'

export interface WakeupProbe {
  /** CPU µs per timer wake-up after sleeping `gapMs`. */
  timer: Array<{ gapMs: number; cpuUsPerWakeup: number }>
  /** Per round trip: wall µs, and CPU µs of the client and of the echo process. */
  tcp: Array<{ gapMs: number; wallUs: number; clientCpuUs: number; serverCpuUs: number }>
}

const PROBE_MS = 1000
const GAPS_MS = [0, 5]
const cpuUs = (u: NodeJS.CpuUsage): number => u.user + u.system
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

async function timerWakeups(gapMs: number): Promise<{ gapMs: number; cpuUsPerWakeup: number }> {
  const start = performance.now()
  const cpu0 = process.cpuUsage()
  let n = 0
  while (performance.now() - start < PROBE_MS) {
    await (gapMs === 0 ? new Promise<void>((resolve) => setImmediate(resolve)) : sleep(gapMs))
    n++
  }
  return { gapMs, cpuUsPerWakeup: Math.round(cpuUs(process.cpuUsage(cpu0)) / n) }
}

async function tcpRoundTrips(): Promise<WakeupProbe['tcp']> {
  const child = fork(fileURLToPath(new URL('./workers/echo-worker.js', import.meta.url)), [], {
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  })
  registerChild(child)
  const ask = <T>(message: string, key: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('echo worker did not answer')), 10_000)
      const onMessage = (m: Record<string, unknown>): void => {
        if (!(key in m)) return
        clearTimeout(timer)
        child.off('message', onMessage)
        resolve(m[key] as T)
      }
      child.on('message', onMessage)
      if (message !== '') child.send(message)
    })
  const port = await ask<number>('', 'port')
  const socket = net.connect(port, '127.0.0.1')
  socket.setNoDelay(true)
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve)
      socket.once('error', reject)
    })
    const payload = Buffer.alloc(200)
    const roundTrip = (): Promise<void> =>
      new Promise((resolve) => {
        socket.once('data', () => resolve())
        socket.write(payload)
      })
    for (let i = 0; i < 200; i++) await roundTrip() // warm both ends
    const out: WakeupProbe['tcp'] = []
    for (const gapMs of GAPS_MS) {
      const server0 = await ask<NodeJS.CpuUsage>('cpu', 'cpu')
      const cpu0 = process.cpuUsage()
      const start = performance.now()
      let wallMs = 0
      let n = 0
      while (performance.now() - start < PROBE_MS) {
        const t = performance.now()
        await roundTrip()
        wallMs += performance.now() - t
        n++
        if (gapMs > 0) await sleep(gapMs)
      }
      const client = cpuUs(process.cpuUsage(cpu0))
      const server = cpuUs(await ask<NodeJS.CpuUsage>('cpu', 'cpu')) - cpuUs(server0)
      out.push({
        gapMs,
        wallUs: Math.round((wallMs * 1000) / n),
        clientCpuUs: Math.round(client / n),
        serverCpuUs: Math.round(server / n),
      })
    }
    return out
  } finally {
    socket.destroy()
    child.kill()
  }
}

export async function probeWakeups(): Promise<WakeupProbe> {
  const timer = []
  for (const gapMs of GAPS_MS) timer.push(await timerWakeups(gapMs))
  return { timer, tcp: await tcpRoundTrips() }
}

export function describeWakeups(p: WakeupProbe): string {
  const timer = p.timer
    .map((t) => `${t.cpuUsPerWakeup} µs CPU per wake-up after ${t.gapMs === 0 ? 'none (busy)' : `${t.gapMs} ms`}`)
    .join(', ')
  const tcp = p.tcp
    .map(
      (t) =>
        `${t.gapMs === 0 ? 'back to back' : `${t.gapMs} ms apart`} ${t.wallUs} µs (CPU ${t.clientCpuUs} + ${t.serverCpuUs} µs)`,
    )
    .join(', ')
  return `process wake-up: ${timer}; TCP round trip between two node processes: ${tcp}`
}
