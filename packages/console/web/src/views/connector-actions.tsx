/**
 * Pause, resume and restart (with its tasks) of one connector, through the console's proxy of
 * the Kafka Connect REST API. Hidden in read-only mode; the server refuses them there too.
 */
import { api, seg } from '../api/client.js'
import { ErrorBox } from '../components/states.js'
import { useSession } from '../session.js'
import { useAction } from '../use-api.js'

export function ConnectorActions(props: { name: string; state: string | undefined; onDone: () => void }) {
  const session = useSession()
  const action = useAction()
  if (session.readOnly) return null
  const base = `/api/connect/connectors/${seg(props.name)}`
  const run = async (path: string, method: 'PUT' | 'POST'): Promise<void> => {
    await action.run(async () => await api(path, { method }))
    props.onDone()
  }
  const paused = props.state?.toUpperCase() === 'PAUSED'
  return (
    <span class="toolbar" style={{ margin: 0 }}>
      {paused ? (
        <button type="button" disabled={action.busy} onClick={() => void run(`${base}/resume`, 'PUT')}>
          Resume
        </button>
      ) : (
        <button type="button" disabled={action.busy} onClick={() => void run(`${base}/pause`, 'PUT')}>
          Pause
        </button>
      )}
      <button
        type="button"
        disabled={action.busy}
        onClick={() => void run(`${base}/restart?includeTasks=true`, 'POST')}
      >
        Restart
      </button>
      {action.error !== undefined && <ErrorBox error={action.error} />}
    </span>
  )
}
