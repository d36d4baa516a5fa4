/**
 * One process of the round skeleton (`node dist/probes/round/round-main.js <config json>`,
 * forked by round-probe.ts): a broker, the producer or the consumer, answering the parent over
 * IPC (every answer carries the asking message's id):
 *   child -> parent  { type: 'ready', port? } | { type: 'failed', error }
 *   parent -> child  { type: 'follow', ports }           broker: start fetching from the others
 *                    { type: 'measure', window }         consumer: the window whose records count
 *                    { type: 'run', window }             producer: run the load -> { ack }
 *                    { type: 'mark' }                    start counting CPU from now
 *                    { type: 'report' }                  -> { cpuUs, elapsedMs, rssMb, received, latency }
 *                    { type: 'close' }                   exit (the trace is flushed at exit)
 * Windows travel as decimal strings of hrtime nanoseconds (one clock for every process).
 */
import { RoundBroker } from './round-broker.js'
import { RoundConsumer } from './round-consumer.js'
import { RoundProducer, type RoundLoadWindow } from './round-producer.js'

export type RoundRoleConfig =
  | { readonly role: 'broker'; readonly id: number; readonly dataDir: string }
  | { readonly role: 'consumer'; readonly ports: readonly number[]; readonly recordBytes: number }
  | {
      readonly role: 'producer'
      readonly ports: readonly number[]
      readonly ratePerSec: number
      readonly recordBytes: number
    }

export interface WireWindow {
  readonly t0Ns: string
  readonly warmEndNs: string
  readonly stopNs: string
}

interface Ask {
  readonly type: string
  readonly id: number
  readonly ports?: number[]
  readonly window?: WireWindow
}

const toWindow = (w: WireWindow): RoundLoadWindow => ({
  t0Ns: BigInt(w.t0Ns),
  warmEndNs: BigInt(w.warmEndNs),
  stopNs: BigInt(w.stopNs),
})

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as RoundRoleConfig
  let broker: RoundBroker | undefined
  let consumer: RoundConsumer | undefined
  let producer: RoundProducer | undefined
  let port: number | undefined
  if (config.role === 'broker') ({ broker, port } = await RoundBroker.start(config.id, config.dataDir))
  else if (config.role === 'consumer') consumer = await RoundConsumer.connect(config.ports, config.recordBytes)
  else producer = await RoundProducer.connect(config.ports)
  let cpu0 = process.cpuUsage()
  let t0 = performance.now()
  const answer = (m: Ask, extra: Record<string, unknown> = {}): void => {
    process.send?.({ type: m.type, id: m.id, ...extra })
  }
  process.on('message', (m: Ask) => {
    if (m.type === 'follow' && m.ports !== undefined) {
      broker?.follow(m.ports)
      answer(m)
    } else if (m.type === 'measure' && m.window !== undefined) {
      consumer?.measure(toWindow(m.window))
      answer(m)
    } else if (m.type === 'run' && m.window !== undefined && config.role === 'producer') {
      producer?.run(toWindow(m.window), config.ratePerSec, config.recordBytes).then(
        (ack) => answer(m, { ack }),
        (err: unknown) => answer(m, { error: String(err) }),
      )
    } else if (m.type === 'mark') {
      cpu0 = process.cpuUsage()
      t0 = performance.now()
      answer(m)
    } else if (m.type === 'report') {
      const u = process.cpuUsage(cpu0)
      answer(m, {
        cpuUs: u.user + u.system,
        elapsedMs: performance.now() - t0,
        rssMb: process.memoryUsage().rss / 1e6,
        received: consumer?.received ?? 0,
        latency: consumer?.latency(),
      })
    } else if (m.type === 'close') {
      broker?.close()
      consumer?.close()
      producer?.close()
      process.exit(0)
    }
  })
  process.send?.({ type: 'ready', ...(port === undefined ? {} : { port }) })
}

process.on('disconnect', () => process.exit(0))
main().catch((err: unknown) => {
  process.send?.({ type: 'failed', error: String((err as Error)?.stack ?? err) })
  process.exit(1)
})
