import { describe, expect, it } from 'vitest'
import { HOPS, type HopStats } from '../anatomy/anatomy-join.js'
import { HOP_FLOORS, floorRows, formatFloorTable, probeRateFor } from './hop-floors.js'
import { chainVariant, type ProbeResult } from './probe-result.js'

const stats = (hop: string, p50Ms: number, p99Ms: number): HopStats => ({ hop, count: 100, p50Ms, p99Ms })

const result = (over: Partial<ProbeResult>): ProbeResult => ({
  probe: 'grpc-produce',
  variant: 'grpc-js bidi',
  leg: 'one-way request',
  ratePerSec: 200,
  bytes: 100,
  count: 400,
  p50Ms: 0.4,
  p99Ms: 2,
  minMs: 0.2,
  maxMs: 3,
  ...over,
})

describe('hop floors', () => {
  it('maps only hops the anatomy has, the same hops in every profile', () => {
    const names = new Set(HOPS.map((h) => h.name))
    const grpc = [...HOP_FLOORS.get('grpc')!.keys()]
    for (const hop of grpc) expect(names.has(hop), hop).toBe(true)
    expect([...HOP_FLOORS.get('kafka-tcp')!.keys()]).toEqual(grpc)
  })

  it('meets each hop with the floor of the data path it crossed', () => {
    const tcp = HOP_FLOORS.get('kafka-tcp')!
    const grpc = HOP_FLOORS.get('grpc')!
    const hop = 'network: answer to A sent -> A received it'
    expect(tcp.get(hop)).toMatchObject({ probe: 'tcp', leg: 'one-way answer' })
    expect(grpc.get(hop)).toMatchObject({ probe: 'grpc-fetch', leg: 'one-way answer' })
    expect(tcp.get('leader: received -> appended')).toMatchObject({ variant: 'writeSync/readSync' })
    expect(grpc.get('leader: received -> appended')).toMatchObject({ variant: 'FileHandle (thread pool)' })
    expect(tcp.get('end to end: enqueue -> consumer delivered')).toMatchObject({ variant: chainVariant('tcp', 5) })
  })

  it('compares 200 records/s with the 200/s probes and 10,000 records/s with the 1,000/s ones', () => {
    expect(probeRateFor(200)).toBe(200)
    expect(probeRateFor(10_000)).toBe(1000)
  })

  it('sets each hop beside its floor with the ratio, and says when a hop has no probe', () => {
    const results = [
      result({}),
      result({ ratePerSec: 1000, bytes: 1024, p50Ms: 0.5, p99Ms: 4 }),
      result({ probe: 'file-write', variant: 'FileHandle (thread pool)', leg: 'operation', p50Ms: 0.1, p99Ms: 0.5 }),
      result({ probe: 'chain', variant: chainVariant('grpc', 5), leg: 'one-way', p50Ms: 2, p99Ms: 8 }),
    ]
    const rows = floorRows(
      [
        stats('network: request sent -> leader received', 0.56, 5.21),
        stats('leader: received -> appended', 0.54, 6.35),
        stats('leader: next fetch of B -> HW advanced', 0.03, 0.17),
        stats('end to end: enqueue -> producer acked', 2.8, 9),
        stats('network: produce answered -> producer acked', 0.5, 5),
      ],
      200,
      results,
      'grpc',
    )
    expect(rows[0]).toMatchObject({ floorP50Ms: 0.4, ratioP50: 1.4, ratioP99: 2.6 })
    expect(rows[0]!.floor).toContain('100 B @200/s')
    expect(rows[1]).toMatchObject({ floorP50Ms: 0.1, ratioP50: 5.4 })
    expect(rows[2]).toMatchObject({ floor: undefined, ratioP50: undefined })
    expect(rows[3]).toMatchObject({ ratioP50: 1.4, ratioP99: 1.1 })
    // Mapped, but the probes did not measure the produce answer: no invented figure.
    expect(rows[4]).toMatchObject({ floor: undefined, floorP50Ms: undefined, ratioP50: undefined })

    const at10k = floorRows([stats('network: request sent -> leader received', 0.59, 4.89)], 10_000, results, 'grpc')
    expect(at10k[0]).toMatchObject({ floorP50Ms: 0.5, ratioP50: 1.2 })
    expect(at10k[0]!.floor).toContain('1024 B @1000/s')

    const table = formatFloorTable('title', rows)
    const lines = table.split('\n')
    expect(lines[0]).toBe('title')
    expect(lines[2]).toMatch(/^network: request sent -> leader received .* 1\.4x +2\.6x +≤1\.5$/)
    expect(lines[3]).not.toContain('≤1.5')
    expect(lines[4]).toContain('(in one process: no probe)')
    expect(lines[6]).toContain('(not measured)')
  })

  it('says when a hop is well below its floor', () => {
    const rows = floorRows(
      [stats('network: request sent -> leader received', 0.3, 1)],
      200,
      [result({ p50Ms: 17, p99Ms: 100 })],
      'grpc',
    )
    expect(rows[0]!.ratioP50).toBe(0)
    expect(formatFloorTable('t', rows).split('\n')[2]).toMatch(/below its floor: probe noisy$/)
  })

  it('gives a saturated floor no ratio', () => {
    const rows = floorRows(
      [stats('network: request sent -> leader received', 0.56, 5.21)],
      200,
      [result({ saturated: true, p50Ms: 400 })],
      'grpc',
    )
    expect(rows[0]!.floor).toContain('(saturated)')
    expect(rows[0]!.ratioP50).toBeUndefined()
  })
})
