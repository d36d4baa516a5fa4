/**
 * One streams application (/streams/:app), as `sluice streams describe` shows it: every task
 * with the instance running it actively, its standbys, its input partitions and their lag; the
 * instances with their tasks; and committed partitions no running task explains.
 */
import { seg } from '../api/client.js'
import type { StreamsAppDetail, StreamsInstance, StreamsPartition, StreamsTask } from '../api/types.js'
import { type Column, DataTable } from '../components/data-table.js'
import { Stat } from '../components/stat.js'
import { Loaded, StateBadge } from '../components/states.js'
import { fmtInt } from '../format.js'
import { useApi } from '../use-api.js'

const partitionList = (ps: readonly StreamsPartition[]) => (
  <span class="mono">{ps.map((p) => `${p.topic}-${p.partition}`).join(', ') || '—'}</span>
)

const taskColumns: Column<StreamsTask>[] = [
  { title: 'Task', render: (t) => <code>{t.taskId}</code> },
  { title: 'Input partitions', render: (t) => partitionList(t.partitions) },
  { title: 'Active', render: (t) => (t.active ? <code>{t.active}</code> : <span class="badge bad">unassigned</span>) },
  { title: 'Standby', render: (t) => <span class="mono">{t.standbys.join(', ') || '—'}</span> },
  { title: 'Lag', num: true, render: (t) => <span class={Number(t.lag) > 0 ? 'bad' : ''}>{fmtInt(t.lag)}</span> },
]

const instanceColumns: Column<StreamsInstance>[] = [
  { title: 'Instance', render: (i) => <code>{i.instanceId ?? '?'}</code> },
  { title: 'Host', render: (i) => i.clientHost },
  { title: 'Endpoint', render: (i) => i.endpoint ?? '—' },
  { title: 'Active tasks', render: (i) => <span class="mono">{i.activeTasks.join(', ') || '—'}</span> },
  { title: 'Standby tasks', render: (i) => <span class="mono">{i.standbyTasks.join(', ') || '—'}</span> },
]

const otherColumns: Column<StreamsPartition>[] = [
  { title: 'Topic', render: (p) => p.topic },
  { title: 'Partition', num: true, render: (p) => p.partition },
  { title: 'Committed', num: true, render: (p) => fmtInt(p.committed) },
  { title: 'Log end', num: true, render: (p) => fmtInt(p.logEnd) },
  { title: 'Lag', num: true, render: (p) => fmtInt(p.lag) },
]

export function StreamView(props: { app: string }) {
  const state = useApi<StreamsAppDetail>(`/api/streams/${seg(props.app)}`, { pollMs: 3000 })
  return (
    <section>
      <div class="crumbs">
        <a href="/streams">Streams</a> /
      </div>
      <h1>{props.app}</h1>
      <Loaded state={state} what={`streams application ${props.app}`}>
        {(a) => (
          <>
            <div class="stats">
              <Stat label="State">
                <StateBadge state={a.state} />
              </Stat>
              <Stat label="Instances">{fmtInt(a.instances.length)}</Stat>
              <Stat label="Tasks">{fmtInt(a.tasks.length)}</Stat>
              <Stat label="Total lag">{fmtInt(a.totalLag)}</Stat>
            </div>
            <h2>Tasks</h2>
            <DataTable label="tasks" columns={taskColumns} rows={a.tasks} rowKey={(t) => t.taskId} empty="No tasks." />
            <h2>Instances</h2>
            <DataTable
              label="instances"
              columns={instanceColumns}
              rows={a.instances}
              rowKey={(i) => i.memberId}
              empty="No instance is running."
            />
            {a.otherPartitions.length > 0 && (
              <>
                <h2>Committed partitions without a running task</h2>
                <DataTable
                  label="other partitions"
                  columns={otherColumns}
                  rows={a.otherPartitions}
                  rowKey={(p) => `${p.topic}:${p.partition}`}
                />
              </>
            )}
          </>
        )}
      </Loaded>
    </section>
  )
}
