import { describe, expect, it } from 'vitest'
import { isStreamsError } from '../errors.js'
import { stringSerde } from './__fixtures__/serdes.js'
import { slidingRecordsSerde } from './sliding-records-serde.js'

describe('slidingRecordsSerde', () => {
  const serde = slidingRecordsSerde(stringSerde)

  it('round-trips lists of values, empty values and the empty list included', () => {
    for (const values of [[], ['a'], ['', 'héllo', 'x'.repeat(70_000)]]) {
      expect(serde.deserialize(serde.serialize(values, 't'), 't')).toEqual(values)
    }
  })

  it('throws StreamsError SERDE on truncated bytes', () => {
    const bytes = serde.serialize(['abc', 'def'], 't')
    for (const cut of [2, 6, bytes.length - 1]) {
      let caught: unknown
      try {
        serde.deserialize(bytes.subarray(0, cut), 't')
      } catch (e) {
        caught = e
      }
      expect(isStreamsError(caught, 'SERDE'), `cut at ${cut}`).toBe(true)
    }
  })
})
