import { describe, expect, it } from 'vitest'
import { isStreamsError } from '../errors.js'
import { Serdes } from '../serdes/serdes.js'
import { windowedSerde } from './windowed-serde.js'

describe('windowedSerde', () => {
  const serde = windowedSerde(Serdes.string())

  it('round-trips the key and both window bounds', () => {
    const windowed = { key: 'alice', window: { start: 60_000, end: 120_000 } }
    expect(serde.deserialize(serde.serialize(windowed, 't'), 't')).toEqual(windowed)
    const empty = { key: '', window: { start: 0, end: 1 } }
    expect(serde.deserialize(serde.serialize(empty, 't'), 't')).toEqual(empty)
  })

  it('throws StreamsError SERDE on bytes too short to hold a window', () => {
    let caught: unknown
    try {
      serde.deserialize(Buffer.alloc(15), 't')
    } catch (e) {
      caught = e
    }
    expect(isStreamsError(caught, 'SERDE')).toBe(true)
  })
})
