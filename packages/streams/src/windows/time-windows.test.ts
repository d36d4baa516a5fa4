import { describe, expect, it } from 'vitest'
import { isStreamsError } from '../errors.js'
import { TimeWindows } from './time-windows.js'

describe('TimeWindows', () => {
  it('puts a record in exactly one tumbling window, [start, start + size)', () => {
    const windows = TimeWindows.ofSizeWithNoGrace(60_000)
    expect(windows.windowsFor(0)).toEqual([{ start: 0, end: 60_000 }])
    expect(windows.windowsFor(59_999)).toEqual([{ start: 0, end: 60_000 }])
    // Exactly on a boundary: the end is exclusive, so the record opens the next window.
    expect(windows.windowsFor(60_000)).toEqual([{ start: 60_000, end: 120_000 }])
    expect(windows.windowsFor(125_000)).toEqual([{ start: 120_000, end: 180_000 }])
  })

  it('puts a record in every hopping window that contains it, oldest first', () => {
    const windows = TimeWindows.ofSizeAndGrace(10, 0).advanceBy(5)
    expect(windows.windowsFor(12)).toEqual([
      { start: 5, end: 15 },
      { start: 10, end: 20 },
    ])
    // On an advance boundary: the window ending there no longer holds it.
    expect(windows.windowsFor(15)).toEqual([
      { start: 10, end: 20 },
      { start: 15, end: 25 },
    ])
    const thirds = TimeWindows.ofSizeWithNoGrace(9).advanceBy(3)
    expect(thirds.windowsFor(10).map((w) => w.start)).toEqual([3, 6, 9])
  })

  it('never starts a window before 0, and puts a negative timestamp in none', () => {
    const windows = TimeWindows.ofSizeWithNoGrace(10).advanceBy(4)
    expect(windows.windowsFor(0)).toEqual([{ start: 0, end: 10 }])
    expect(windows.windowsFor(5)).toEqual([
      { start: 0, end: 10 },
      { start: 4, end: 14 },
    ])
    expect(windows.windowsFor(-1)).toEqual([])
  })

  it('closes a window at end + grace and keeps it size + grace by default', () => {
    const windows = TimeWindows.ofSizeAndGrace(60_000, 10_000)
    expect(windows.closeTimeMs({ start: 0, end: 60_000 })).toBe(70_000)
    expect(windows.retentionMs).toBe(70_000)
    expect(windows.advanceBy(30_000).retentionMs).toBe(70_000)
    expect(TimeWindows.ofSizeWithNoGrace(5).closeTimeMs({ start: 5, end: 10 })).toBe(10)
  })

  it('rejects bad sizes, graces and advances with StreamsError CONFIG', () => {
    const bad = [
      () => TimeWindows.ofSizeWithNoGrace(0),
      () => TimeWindows.ofSizeWithNoGrace(-5),
      () => TimeWindows.ofSizeWithNoGrace(1.5),
      () => TimeWindows.ofSizeAndGrace(10, -1),
      () => TimeWindows.ofSizeAndGrace(10, Number.NaN),
      () => TimeWindows.ofSizeWithNoGrace(10).advanceBy(0),
      () => TimeWindows.ofSizeWithNoGrace(10).advanceBy(11),
    ]
    for (const make of bad) {
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
