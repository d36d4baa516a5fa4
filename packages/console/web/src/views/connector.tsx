/**
 * One connector (/connectors/:name): state and tasks (GET …/status, with a failed task's
 * trace), actions, and its config as JSON (GET …/config), editable with PUT …/config (Connect validates it and answers with errors,
 * which are shown as they come).
 */
import { Fragment } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, seg } from '../api/client.js'
import type { ConnectorStatus } from '../api/types.js'
import { ErrorBox, Loaded, StateBadge } from '../components/states.js'
import { useSession } from '../session.js'
import { useAction, useApi } from '../use-api.js'
import { ConnectorActions } from './connector-actions.js'

function ConfigEditor(props: { name: string; config: Record<string, string>; onSaved: () => void }) {
  const session = useSession()
  const [text, setText] = useState(JSON.stringify(props.config, null, 2))
  const [saved, setSaved] = useState(false)
  const action = useAction()
  useEffect(() => setText(JSON.stringify(props.config, null, 2)), [JSON.stringify(props.config)])
  const save = async (e: Event): Promise<void> => {
    e.preventDefault()
    setSaved(false)
    const ok = await action.run(async () => {
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch (err) {
        throw new Error(`the config is not JSON: ${(err as Error).message}`)
      }
      await api(`/api/connect/connectors/${seg(props.name)}/config`, { method: 'PUT', body })
      return true
    })
    if (ok === true) {
      setSaved(true)
      props.onSaved()
    }
  }
  return (
    <form class="form" onSubmit={(e) => void save(e)}>
      <textarea
        aria-label="connector config"
        rows={14}
        value={text}
        readOnly={session.readOnly}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      {action.error !== undefined && <ErrorBox error={action.error} />}
      {saved && <div class="success">Config saved.</div>}
      {!session.readOnly && (
        <div class="actions">
          <button type="submit" class="primary" disabled={action.busy}>
            Save config
          </button>
        </div>
      )}
    </form>
  )
}

export function ConnectorView(props: { name: string }) {
  const base = `/api/connect/connectors/${seg(props.name)}`
  const config = useApi<Record<string, string>>(`${base}/config`)
  const statusState = useApi<ConnectorStatus>(`${base}/status`, { pollMs: 3000 })
  const status = statusState.data
  return (
    <section>
      <div class="crumbs">
        <a href="/connectors">Connectors</a> /
      </div>
      <div class="title-row">
        <h1>{props.name}</h1>
        <ConnectorActions name={props.name} state={status?.connector.state} onDone={statusState.reload} />
      </div>
      {status !== undefined && (
        <div class="card">
          <dl class="kv">
            <dt>State</dt>
            <dd>
              <StateBadge state={status.connector.state} />
            </dd>
            <dt>Worker</dt>
            <dd>
              <code>{status.connector.worker_id}</code>
            </dd>
            {status.tasks.map((t) => (
              <Fragment key={t.id}>
                <dt>Task {t.id}</dt>
                <dd>
                  <StateBadge state={t.state} /> <code>{t.worker_id}</code>
                  {t.trace !== undefined && <pre class="error">{t.trace}</pre>}
                </dd>
              </Fragment>
            ))}
          </dl>
          {status.connector.trace !== undefined && <pre class="error">{status.connector.trace}</pre>}
        </div>
      )}
      {statusState.error !== undefined && config.error === undefined && (
        <ErrorBox error={statusState.error} retry={statusState.reload} />
      )}
      <h2>Config</h2>
      <Loaded state={config} what="Kafka Connect">
        {(c) => <ConfigEditor name={props.name} config={c} onSaved={config.reload} />}
      </Loaded>
    </section>
  )
}
