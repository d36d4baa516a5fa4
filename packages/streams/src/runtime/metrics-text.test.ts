/** The Prometheus text of a StreamsApp's metrics: the standby families, one row per standby task and store. */
import { describe, expect, it } from 'vitest'
import { metricsText } from './metrics-text.js'
import type { StreamsAppMetrics } from './streams-app.js'

const base: StreamsAppMetrics = {
  state: 'running',
  tasks: [],
  processed: 0,
  skipped: 0,
  droppedLate: 0,
  outOfOrder: 0,
  commits: 0,
  failedCommits: 0,
  restore: {
    active: false,
    restoredRecords: 0,
    remainingRecords: 0,
    recordsPerSecond: 0,
    durationMs: 0,
    totalRestoredRecords: 0,
    restores: 0,
  },
  standbys: [],
}

describe('metrics text', () => {
  it('counts the standbys and gives each its lag, applied records and applied offset per store', () => {
    const text = metricsText('app', {
      ...base,
      standbys: [
        {
          taskId: '1_0',
          appliedRecords: 12,
          lag: 3,
          changelogs: [
            { store: 'counts', topic: 'app-counts-changelog', partition: 0, appliedOffset: 40, endOffset: 43, lag: 3 },
          ],
        },
      ],
    })
    expect(text).toContain('sluice_streams_standby_tasks{application="app"} 1\n')
    expect(text).toContain('sluice_streams_standby_records_lag{application="app",task="1_0"} 3\n')
    expect(text).toContain('sluice_streams_standby_applied_records_total{application="app",task="1_0"} 12\n')
    expect(text).toContain('sluice_streams_standby_applied_offset{application="app",task="1_0",store="counts"} 40\n')
    expect(metricsText('app', base)).toContain('sluice_streams_standby_tasks{application="app"} 0\n')
  })
})
