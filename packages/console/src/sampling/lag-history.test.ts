import type { SluiceClient } from '@sluice/client'
import { describe, expect, it } from 'vitest'
import { LagHistory } from './lag-history.js'

/** A client whose group calls fail: only what the pages record is kept. */
const noCluster = {
  admin: () => ({
    describeGroups: async () => {
      throw new Error('no cluster in this test')
    },
  }),
} as unknown as SluiceClient

describe('LagHistory', () => {
  it('keeps a bounded ring per group and a bounded number of groups, the least recently asked dropped', () => {
    const h = new LagHistory(noCluster, { intervalMs: 60_000, capacity: 3, maxGroups: 2 })
    try {
      for (let i = 1n; i <= 5n; i++) h.record('a', i)
      expect(h.history('a').map((s) => s.totalLag)).toEqual([3n, 4n, 5n])
      h.record('b', 7n)
      h.history('a')
      h.record('c', 9n)
      // b was asked least recently of the three: gone; a and c stay.
      expect(h.history('b')).toEqual([])
      expect(h.history('c').map((s) => s.totalLag)).toEqual([9n])
      expect(h.history('a')).toEqual([])
    } finally {
      h.close()
    }
  })
})
