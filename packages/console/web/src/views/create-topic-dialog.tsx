/** Create a topic: name, partitions, replication factor and optional configs (key=value lines). */
import { useState } from 'preact/hooks'
import { api } from '../api/client.js'
import { parseKeyValueLines } from '../components/config-lines.js'
import { Dialog, DialogActions } from '../components/dialog.js'
import { useAction } from '../use-api.js'

export function CreateTopicDialog(props: { onClose: () => void; onCreated: (name: string) => void }) {
  const [name, setName] = useState('')
  const [partitions, setPartitions] = useState('3')
  const [rf, setRf] = useState('1')
  const [configs, setConfigs] = useState('')
  const action = useAction()
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault()
    const done = await action.run(async () => {
      const body = {
        name: name.trim(),
        partitions: Number(partitions),
        replicationFactor: Number(rf),
        configs: parseKeyValueLines(configs, 'configs'),
      }
      await api('/api/topics', { method: 'POST', body })
      return true
    })
    if (done === true) props.onCreated(name.trim())
  }
  return (
    <Dialog title="Create topic" onClose={props.onClose}>
      <form class="form" onSubmit={(e) => void submit(e)}>
        <label>
          Name
          <input name="name" value={name} onInput={(e) => setName(e.currentTarget.value)} required autoFocus />
        </label>
        <div class="row">
          <label>
            Partitions
            <input
              name="partitions"
              type="number"
              min={1}
              value={partitions}
              onInput={(e) => setPartitions(e.currentTarget.value)}
            />
          </label>
          <label>
            Replication factor
            <input
              name="replicationFactor"
              type="number"
              min={1}
              value={rf}
              onInput={(e) => setRf(e.currentTarget.value)}
            />
          </label>
        </div>
        <label>
          Configs <span class="muted">(one key=value per line, optional)</span>
          <textarea
            name="configs"
            rows={3}
            placeholder="retention.ms=86400000"
            value={configs}
            onInput={(e) => setConfigs(e.currentTarget.value)}
          />
        </label>
        <DialogActions
          onCancel={props.onClose}
          submit={action.busy ? 'Creating…' : 'Create'}
          busy={action.busy}
          error={action.error}
        />
      </form>
    </Dialog>
  )
}
