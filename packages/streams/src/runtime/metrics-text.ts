/**
 * A streams application's metrics in Prometheus' text exposition format, served at GET /metrics
 * by the app's HTTP endpoint (query-http-server.ts). Per task: records processed, skipped,
 * dropped late, out of order and duplicates skipped (counters: a rate is `rate()` over them), lag
 * and stream time; per instance: commits and the restore's progress; per standby task: its lag
 * and what it applied. Names follow Kafka Streams' metric names where there is one
 * (process-total, dropped-records-total, records-lag), in Prometheus style.
 */
import type { StreamsAppMetrics } from './streams-app.js'

export function metricsText(applicationId: string, m: StreamsAppMetrics): string {
  const lines: string[] = []
  const app = `application="${escapeLabel(applicationId)}"`
  const family = (name: string, type: 'counter' | 'gauge', help: string, rows: [string, number][]): void => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`)
    for (const [labels, v] of rows) lines.push(`${name}{${labels}} ${v}`)
  }
  const perTask = (f: (t: StreamsAppMetrics['tasks'][number]) => number): [string, number][] =>
    m.tasks.map((t) => [`${app},task="${t.taskId}"`, f(t)])
  family(
    'sluice_streams_task_process_total',
    'counter',
    'Records the task processed.',
    perTask((t) => t.processed),
  )
  family(
    'sluice_streams_task_skipped_records_total',
    'counter',
    'Records skipped (bad serde, no timestamp).',
    perTask((t) => t.skipped),
  )
  family(
    'sluice_streams_task_dropped_late_records_total',
    'counter',
    'Records dropped because their windows had closed.',
    perTask((t) => t.droppedLate),
  )
  family(
    'sluice_streams_task_out_of_order_records_total',
    'counter',
    'Records older than stream time, processed inside the grace.',
    perTask((t) => t.outOfOrder),
  )
  family(
    'sluice_streams_task_duplicates_skipped_total',
    'counter',
    'Repartition records written again by a re-run upstream, skipped (applied-positions.ts).',
    perTask((t) => t.duplicatesSkipped ?? 0),
  )
  family(
    'sluice_streams_task_records_lag',
    'gauge',
    'Records of the input partitions not processed yet (as of the last fetch).',
    perTask((t) => t.lag),
  )
  family(
    'sluice_streams_task_stream_time_ms',
    'gauge',
    'Largest record timestamp the task processed.',
    perTask((t) => t.streamTimeMs),
  )
  family(
    'sluice_streams_task_restored',
    'gauge',
    "1 once the task's stores are restored.",
    perTask((t) => (t.restored ? 1 : 0)),
  )
  family('sluice_streams_commits_total', 'counter', 'Commits of the input offsets.', [[app, m.commits]])
  family('sluice_streams_failed_commits_total', 'counter', 'Commits the group refused.', [[app, m.failedCommits]])
  family('sluice_streams_restore_remaining_records', 'gauge', 'Changelog records still to restore.', [
    [app, m.restore.remainingRecords],
  ])
  family('sluice_streams_restore_records_per_second', 'gauge', 'Rate of the running or last restore.', [
    [app, m.restore.recordsPerSecond],
  ])
  family('sluice_streams_restored_records_total', 'counter', 'Changelog records this instance restored.', [
    [app, m.restore.totalRestoredRecords],
  ])
  family('sluice_streams_standby_tasks', 'gauge', 'Standby tasks this instance keeps up to date.', [
    [app, m.standbys.length],
  ])
  family(
    'sluice_streams_standby_records_lag',
    'gauge',
    'Changelog records a standby task has not applied yet (what a failover to it would restore).',
    m.standbys.map((s) => [`${app},task="${s.taskId}"`, s.lag]),
  )
  family(
    'sluice_streams_standby_applied_records_total',
    'counter',
    'Changelog records a standby task applied since it was opened here.',
    m.standbys.map((s) => [`${app},task="${s.taskId}"`, s.appliedRecords]),
  )
  family(
    'sluice_streams_standby_applied_offset',
    'gauge',
    "The offset after the last changelog record a standby task's store applied.",
    m.standbys.flatMap((s) =>
      s.changelogs.map((c): [string, number] => [
        `${app},task="${s.taskId}",store="${escapeLabel(c.store)}"`,
        c.appliedOffset,
      ]),
    ),
  )
  return `${lines.join('\n')}\n`
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
}
