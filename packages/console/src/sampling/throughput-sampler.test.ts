import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { SluiceClient } from '@sluice/client'
import { afterEach, describe, expect, it } from 'vitest'
import { ThroughputSampler } from './throughput-sampler.js'

/** A broker's admin server stand-in: /metrics answers the counters the test sets. */
async function metricsServer(counters: { bytesIn: number; recordsIn: number }): Promise<Server> {
  const server = createServer((_req, res) => {
    res.end(
      [
        '# TYPE sluice_topic_bytes_in_total counter',
        `sluice_topic_bytes_in_total{topic="a"} ${counters.bytesIn / 2}`,
        `sluice_topic_bytes_in_total{topic="b"} ${counters.bytesIn / 2}`,
        `sluice_topic_records_in_total{topic="a"} ${counters.recordsIn}`,
        'sluice_topic_bytes_out_total{topic="a"} 0',
        '',
      ].join('\n'),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

function clientFor(ports: number[]): SluiceClient {
  const brokers = ports.map((adminPort, i) => ({
    brokerId: i + 1,
    host: '127.0.0.1',
    port: 1,
    rack: '',
    adminPort,
    kafkaHost: '',
    kafkaPort: 0,
  }))
  return {
    admin: () => ({
      describeCluster: async () => ({ clusterId: 'c', controllerId: 1, brokers, metadataEndpoints: [] }),
    }),
  } as unknown as SluiceClient
}

async function until(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

const closers: Array<() => void> = []
afterEach(() => {
  for (const c of closers.splice(0)) c()
})

describe('ThroughputSampler', () => {
  it('turns counter differences into per-second rates summed over brokers, and survives a restart', async () => {
    const one = { bytesIn: 0, recordsIn: 0 }
    const s1 = await metricsServer(one)
    closers.push(() => s1.close())
    // A broker whose admin port answers nothing: it adds nothing.
    const dead = await metricsServer(one)
    const deadPort = (dead.address() as AddressInfo).port
    dead.close()
    const sampler = new ThroughputSampler(clientFor([(s1.address() as AddressInfo).port, deadPort, 0]), 30)
    closers.push(() => sampler.close())
    expect(sampler.samples()).toEqual([])
    expect(sampler.sources()).toBeNull()
    await until('a first rate', () => {
      one.bytesIn += 1000
      one.recordsIn += 10
      return sampler.samples().length >= 2
    })
    // Three registered: one answered, one did not, one serves no admin port.
    expect(sampler.sources()).toEqual({ brokers: 3, scraped: 1 })
    const samples = sampler.samples()
    for (const s of samples) {
      expect(s.bytesOut).toBe(0)
      if (s.recordsIn > 0) expect(s.bytesIn / s.recordsIn).toBeCloseTo(100, 5)
    }
    expect(samples.some((s) => s.bytesIn > 0)).toBe(true)
    // A restarted broker's counters start again from zero: counted from zero, never negative.
    one.bytesIn = 50
    one.recordsIn = 1
    const before = sampler.samples().length
    await until('a sample after the restart', () => sampler.samples().length > before)
    expect(sampler.samples().every((s) => s.bytesIn >= 0 && s.recordsIn >= 0)).toBe(true)
    expect(sampler.sampling).toBe(true)
    sampler.close()
    expect(sampler.sampling).toBe(false)
  })
})
