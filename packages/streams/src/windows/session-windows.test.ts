import { describe, expect, it } from 'vitest'
import { SessionWindows } from './session-windows.js'

describe('SessionWindows', () => {
  it('merges a record within the gap of either end of a session, and only then', () => {
    const windows = SessionWindows.ofInactivityGapAndGrace(5, 0)
    const session = { start: 10, end: 20 }
    expect(windows.isWithinGap(session, 25)).toBe(true)
    expect(windows.isWithinGap(session, 5)).toBe(true)
    expect(windows.isWithinGap(session, 15)).toBe(true)
    expect(windows.isWithinGap(session, 26)).toBe(false)
    expect(windows.isWithinGap(session, 4)).toBe(false)
  })

  it('closes a session once stream time passes end + gap + grace, and keeps it gap + grace', () => {
    const windows = SessionWindows.ofInactivityGapAndGrace(5, 3)
    expect(windows.closeTimeMs({ start: 10, end: 20 })).toBe(29)
    expect(windows.retentionMs).toBe(8)
  })

  it('rejects a gap of 0 and a negative grace with StreamsError CONFIG', () => {
    expect(() => SessionWindows.ofInactivityGapWithNoGrace(0)).toThrow(
      expect.objectContaining({ name: 'StreamsError', code: 'CONFIG' }),
    )
    expect(() => SessionWindows.ofInactivityGapAndGrace(5, -1)).toThrow(
      expect.objectContaining({ name: 'StreamsError', code: 'CONFIG' }),
    )
  })
})
