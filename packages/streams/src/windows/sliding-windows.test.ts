import { describe, expect, it } from 'vitest'
import { isStreamsError } from '../errors.js'
import { SlidingWindows } from './sliding-windows.js'

describe('SlidingWindows', () => {
  it('gives a record a left window ending at it and a right window starting just after it, both ends inclusive', () => {
    const windows = SlidingWindows.ofTimeDifferenceAndGrace(10, 5)
    expect(windows.leftWindowOf(30)).toEqual({ start: 20, end: 30 })
    expect(windows.rightWindowOf(30)).toEqual({ start: 31, end: 41 })
  })

  it('clamps windows that would start before 0 to [0, difference]', () => {
    const windows = SlidingWindows.ofTimeDifferenceWithNoGrace(10)
    expect(windows.leftWindowOf(3)).toEqual({ start: 0, end: 10 })
    expect(windows.leftWindowOf(10)).toEqual({ start: 0, end: 10 })
    expect(windows.leftWindowOf(11)).toEqual({ start: 1, end: 11 })
  })

  it('closes a window once stream time passes its inclusive end + grace', () => {
    const windows = SlidingWindows.ofTimeDifferenceAndGrace(10, 5)
    expect(windows.closeTimeMs({ start: 20, end: 30 })).toBe(36)
    expect(windows.retentionMs).toBe(15)
  })

  it('rejects a difference of 0 and a negative grace with StreamsError CONFIG', () => {
    for (const make of [
      () => SlidingWindows.ofTimeDifferenceWithNoGrace(0),
      () => SlidingWindows.ofTimeDifferenceAndGrace(10, -1),
      () => SlidingWindows.ofTimeDifferenceAndGrace(-3, 0),
    ]) {
      let caught: unknown
      try {
        make()
      } catch (e) {
        caught = e
      }
      expect(isStreamsError(caught, 'CONFIG'), String(caught)).toBe(true)
    }
  })
})
