import { mkdtemp, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { RoundBroker } from './round-broker.js'
import { RoundConsumer } from './round-consumer.js'
import { RoundProducer } from './round-producer.js'
import { ROUND_PARTITIONS } from './round-topology.js'
import { decodeFetch, decodeProduce, encodeFetch, encodeProduce } from './round-wire.js'

describe('round skeleton', () => {
  const cleanup: Array<() => Promise<void> | void> = []
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c()
  })

  it('round-trips its messages', () => {
    const data = Buffer.alloc(200, 3)
    const p = decodeProduce(encodeProduce(9, [{ partition: 4, count: 2, data }]).subarray(4))
    expect(p.corr).toBe(9)
    expect(p.parts).toEqual([{ partition: 4, count: 2, data }])
    const f = decodeFetch(encodeFetch(-1, [{ partition: 1, offset: 2 ** 40 }]).subarray(4))
    expect(f).toEqual({ replica: -1, parts: [{ partition: 1, offset: 2 ** 40 }] })
  })

  it('acknowledges and delivers every record once all three replicas hold it', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'round-test-'))
    cleanup.push(() => rm(dir, { recursive: true, force: true }))
    const started = await Promise.all([0, 1, 2].map((id) => RoundBroker.start(id, dir)))
    for (const { broker } of started) cleanup.push(() => broker.close())
    const ports = started.map((s) => s.port)
    for (const { broker } of started) broker.follow(ports)
    const consumer = await RoundConsumer.connect(ports, 100)
    cleanup.push(() => consumer.close())
    const producer = await RoundProducer.connect(ports)
    cleanup.push(() => producer.close())

    const t0Ns = process.hrtime.bigint() + 20_000_000n
    const window = { t0Ns, warmEndNs: t0Ns + 50_000_000n, stopNs: t0Ns + 300_000_000n }
    consumer.measure(window)
    const ack = await producer.run(window, 2000, 100)
    const total = 600
    const deadline = Date.now() + 10_000
    while (consumer.received < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
    expect(consumer.received).toBe(total)
    expect(ack.count).toBe(500)
    expect(consumer.latency().count).toBe(500)
    // Every replica wrote every record to its own files: 3 copies of 600 x 100 bytes.
    let bytes = 0
    for (let b = 0; b < 3; b++)
      for (let p = 0; p < ROUND_PARTITIONS; p++) bytes += (await stat(path.join(dir, `broker-${b}-p${p}.log`))).size
    expect(bytes).toBe(3 * total * 100)
  })
})
