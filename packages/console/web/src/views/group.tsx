/**
 * A consumer group (/groups/:id): state, protocol and generation; members and what each owns;
 * committed offset, log end and lag per partition (from the server, refreshed every 2 s); the
 * group's total lag over time; and resetting offsets, dry run first.
 */
import { useState } from 'preact/hooks'
import { seg } from '../api/client.js'
import type { GroupDetail, GroupMember, LagHistory, PartitionLag } from '../api/types.js'
import { type Column, DataTable } from '../components/data-table.js'
import { Stat, zeroIsGood } from '../components/stat.js'
import { LineChart } from '../components/line-chart.js'
import { ErrorBox, Loaded, StateBadge } from '../components/states.js'
import { fmtInt } from '../format.js'
import { href } from '../router.js'
import { useSession } from '../session.js'
import { useApi } from '../use-api.js'
import { ResetOffsetsDialog } from './reset-offsets-dialog.js'

const memberColumns: Column<GroupMember>[] = [
  { title: 'Member', render: (m) => <code>{m.memberId}</code> },
  { title: 'Client', render: (m) => m.clientId },
  { title: 'Host', render: (m) => m.clientHost },
  {
    title: 'Assignment',
    render: (m) => <span class="mono">{m.assignment.map((a) => `${a.topic}-${a.partition}`).join(', ') || '—'}</span>,
  },
]

const lagColumns: Column<PartitionLag>[] = [
  { title: 'Topic', render: (r) => <a href={href.topic(r.topic)}>{r.topic}</a> },
  { title: 'Partition', num: true, render: (r) => r.partition },
  { title: 'Committed', num: true, render: (r) => fmtInt(r.committed) },
  { title: 'Log end', num: true, render: (r) => fmtInt(r.logEnd) },
  {
    title: 'Lag',
    num: true,
    render: (r) => <span class={Number(r.lag ?? 0) > 0 ? 'bad' : ''}>{fmtInt(r.lag)}</span>,
  },
  {
    title: 'Owner',
    render: (r) => (r.memberId === null ? <span class="muted">unassigned</span> : <code>{r.memberId}</code>),
  },
]

function LagChart(props: { id: string }) {
  const h = useApi<LagHistory>(`/api/groups/${seg(props.id)}/lag-history`, { pollMs: 2000 })
  if (h.data === undefined)
    return h.error !== undefined ? <ErrorBox error={h.error} retry={h.reload} what="lag history" /> : null
  return (
    <div class="charts" data-testid="lag-chart">
      <LineChart
        title="Total lag"
        times={h.data.samples.map((s) => s.t)}
        format={(v) => fmtInt(Math.round(v))}
        series={[{ name: 'lag', tone: 'chart-b', values: h.data.samples.map((s) => s.totalLag) }]}
      />
    </div>
  )
}

export function GroupView(props: { id: string }) {
  const session = useSession()
  const state = useApi<GroupDetail>(`/api/groups/${seg(props.id)}`, { pollMs: 2000 })
  const [resetting, setResetting] = useState(false)
  return (
    <section>
      <div class="crumbs">
        <a href="/groups">Consumer groups</a> /
      </div>
      <div class="title-row">
        <h1>{props.id}</h1>
        {/* Read-only consoles still plan resets (a dry run changes nothing); only Execute is gone. */}
        <button type="button" onClick={() => setResetting(true)}>
          {session.readOnly ? 'Plan an offset reset' : 'Reset offsets'}
        </button>
      </div>
      <Loaded state={state} what={`group ${props.id}`}>
        {(g) => (
          <>
            <div class="stats">
              <Stat label="State">
                <StateBadge state={g.state} />
              </Stat>
              <Stat label="Members">{fmtInt(g.members.length)}</Stat>
              <Stat label="Total lag" tone={zeroIsGood(g.totalLag)} testId="total-lag">
                {fmtInt(g.totalLag)}
              </Stat>
              <Stat label="Protocol" id>
                {g.protocol || g.protocolType || '—'}
              </Stat>
              <Stat label="Generation">{g.generationId}</Stat>
            </div>
            <h2>Lag per partition</h2>
            <DataTable
              label="lag per partition"
              columns={lagColumns}
              rows={g.offsets}
              rowKey={(r) => `${r.topic}:${r.partition}`}
              empty="No committed offsets and no assignment."
            />
            <h2>Lag over time</h2>
            <LagChart id={props.id} />
            <h2>Members</h2>
            <DataTable
              label="members"
              columns={memberColumns}
              rows={g.members}
              rowKey={(m) => m.memberId}
              empty="No active members."
            />
            {resetting && (
              <ResetOffsetsDialog
                group={g}
                onClose={() => setResetting(false)}
                onDone={() => {
                  setResetting(false)
                  state.reload()
                }}
              />
            )}
          </>
        )}
      </Loaded>
    </section>
  )
}
