import { describe, expect, it } from 'vitest'
import { dataHandlers } from './data-handlers.js'

describe('dataHandlers', () => {
  it('lists each data-path API once, with versions the issue asks for and the codec defines', () => {
    const ranges = Object.fromEntries(dataHandlers.map((h) => [h.codec.name, [h.minVersion, h.maxVersion]]))
    expect(ranges).toEqual({
      Metadata: [1, 12],
      Produce: [3, 9],
      Fetch: [4, 15],
      ListOffsets: [1, 7],
      OffsetForLeaderEpoch: [2, 4],
      DeleteRecords: [0, 2],
    })
    expect(new Set(dataHandlers.map((h) => h.codec.apiKey)).size).toBe(dataHandlers.length)
    for (const h of dataHandlers) {
      expect(h.minVersion).toBeGreaterThanOrEqual(h.codec.minVersion)
      expect(h.maxVersion).toBeLessThanOrEqual(h.codec.maxVersion)
    }
  })
})
