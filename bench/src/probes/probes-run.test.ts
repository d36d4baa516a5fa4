/**
 * The probes end to end with tiny counts and their peers in this process (the real runs fork
 * them from bench/dist; here the logic is what is tested: framing, stamps, pacing, results).
 */
import { describe, expect, it } from 'vitest'
import { probeChains } from './chain-probe.js'
import { probeFileIo } from './file-io-probe.js'
import { probeGrpc } from './grpc-probe.js'
import { probeTcp } from './tcp-probe.js'

const paces = [
  { ratePerSec: 1000, warmup: 5, count: 20 },
  { ratePerSec: 10_000, warmup: 5, count: 40 },
]

describe('floor probes (in-process peers, tiny counts)', () => {
  it('measures framed TCP and gRPC legs with positive one-way times', async () => {
    const tcp = await probeTcp(paces, [100], 'in-process')
    expect(tcp.results.map((r) => `${r.leg}@${r.ratePerSec}`)).toEqual([
      'one-way request@1000',
      'one-way answer@1000',
      'round trip@1000',
      'peer turnaround@1000',
      'one-way request@10000',
      'one-way answer@10000',
      'round trip@10000',
      'peer turnaround@10000',
    ])
    for (const r of tcp.results) expect(r.count).toBe(r.ratePerSec === 1000 ? 20 : 40)
    expect(tcp.minOneWayRequestUs).toBeGreaterThan(0)
    const grpc = await probeGrpc('fetch', paces.slice(0, 1), [1024], 'in-process')
    const rt = grpc.find((r) => r.leg === 'round trip')!
    const req = grpc.find((r) => r.leg === 'one-way request')!
    expect(rt.count).toBe(20)
    expect(req.minMs!).toBeGreaterThan(0)
    expect(rt.p50Ms!).toBeGreaterThanOrEqual(req.p50Ms!)
  })

  it('relays through a chain and times page-cache writes', async () => {
    const chain = await probeChains(paces.slice(0, 1), 'in-process', [3])
    expect(chain.map((r) => `${r.variant} ${r.count}`)).toEqual([
      'framed TCP, 3 processes 20',
      'grpc-js bidi, 3 processes 20',
    ])
    const file = await probeFileIo(paces.slice(0, 1), [100])
    expect(file.map((r) => `${r.probe} ${r.variant} ${r.count}`)).toEqual([
      'file-write FileHandle (thread pool) 20',
      'file-read FileHandle (thread pool) 20',
      'file-write writeSync/readSync 20',
      'file-read writeSync/readSync 20',
    ])
  })
})
