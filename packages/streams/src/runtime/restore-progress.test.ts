import { describe, expect, it } from 'vitest'
import type { Logger } from '@sluice/client'
import { RestoreProgress } from './restore-progress.js'

function recordingLogger(lines: Array<{ msg: string; obj: Record<string, unknown> }>): Logger {
  const keep = (obj: Record<string, unknown>, msg?: string): void => {
    lines.push({ msg: msg ?? '', obj })
  }
  const l: Logger = { debug: keep, info: keep, warn: keep, error: keep, child: () => l }
  return l
}

describe('RestoreProgress', () => {
  it('reports restored, remaining and records/s as numbers, and logs start, about every second, and the end', () => {
    let now = 1_000
    const lines: Array<{ msg: string; obj: Record<string, unknown> }> = []
    const p = new RestoreProgress(recordingLogger(lines), () => now)
    p.begin(1_000, 2, ['1_0', '1_1'])
    now += 500
    p.add(400)
    expect(p.snapshot()).toMatchObject({
      active: true,
      restoredRecords: 400,
      remainingRecords: 600,
      recordsPerSecond: 800,
    })
    now += 600
    p.add(500)
    // A compacted partition ended 100 records short of its planned end.
    p.finishedPartition(100)
    expect(p.snapshot().remainingRecords).toBe(0)
    now += 100
    p.end()
    expect(p.snapshot()).toMatchObject({
      active: false,
      restoredRecords: 900,
      remainingRecords: 0,
      durationMs: 1_200,
      recordsPerSecond: 750,
      totalRestoredRecords: 900,
      restores: 1,
    })
    expect(lines.map((l) => l.msg)).toEqual([
      'restoring state stores from changelogs',
      'restore progress',
      'restore done',
    ])
    expect(lines[1]!.obj).toMatchObject({ restoredRecords: 900, remainingRecords: 100 })
  })
})
