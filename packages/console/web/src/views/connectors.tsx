/**
 * Connectors (/connectors): every connector of the Kafka Connect cluster the console was given,
 * with its type, state and tasks' states, and pause / resume / restart. Without a Connect URL
 * the server answers 404 and the page says how to configure one.
 */
import type { ConnectorsExpanded } from '../api/types.js'
import { type Column, DataTable } from '../components/data-table.js'
import { Loaded, StateBadge } from '../components/states.js'
import { href } from '../router.js'
import { useSession } from '../session.js'
import { useApi } from '../use-api.js'
import { ConnectorActions } from './connector-actions.js'

interface Row {
  readonly name: string
  readonly type: string
  readonly state: string | undefined
  readonly tasks: ReadonlyArray<{ id: number; state: string }>
  readonly worker: string
}

export function rowsOf(e: ConnectorsExpanded): Row[] {
  return Object.entries(e)
    .map(([name, v]) => ({
      name,
      type: v.status?.type ?? v.info?.type ?? '—',
      state: v.status?.connector.state,
      tasks: v.status?.tasks ?? [],
      worker: v.status?.connector.worker_id ?? '—',
    }))
    .sort((a, b) => a.name.localeCompare(b.name))
}

export function ConnectorsView() {
  const session = useSession()
  const list = useApi<ConnectorsExpanded>('/api/connect/connectors?expand=status&expand=info', { pollMs: 5000 })
  const columns: Column<Row>[] = [
    { title: 'Connector', render: (r) => <a href={href.connector(r.name)}>{r.name}</a> },
    { title: 'Type', render: (r) => r.type },
    { title: 'State', render: (r) => <StateBadge state={r.state} /> },
    {
      title: 'Tasks',
      render: (r) =>
        r.tasks.length === 0 ? (
          <span class="muted">none</span>
        ) : (
          r.tasks.map((t) => (
            <span key={t.id} class="task" title={`task ${t.id}`}>
              {t.id}
              <StateBadge state={t.state} />
            </span>
          ))
        ),
    },
    { title: 'Worker', render: (r) => <code>{r.worker}</code> },
    { title: '', render: (r) => <ConnectorActions name={r.name} state={r.state} onDone={list.reload} /> },
  ]
  return (
    <section>
      <h1>Connectors</h1>
      {!session.connect && (
        <div class="notice">
          No Kafka Connect cluster is configured. Start the console with <code>--connect-url</code> to manage connectors
          here.
        </div>
      )}
      <Loaded state={list} what="Kafka Connect (start the console with a Connect URL)">
        {(e) => (
          <DataTable
            label="connectors"
            columns={columns}
            rows={rowsOf(e)}
            rowKey={(r) => r.name}
            empty="No connectors."
          />
        )}
      </Loaded>
    </section>
  )
}
