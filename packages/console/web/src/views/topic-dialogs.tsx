/**
 * The topic page's changes: alter one config (an empty value removes the override), grow the
 * partition count, and delete, which needs the topic's name typed again (the server checks the
 * same confirmation, so a replayed request cannot delete by accident either).
 */
import { useState } from 'preact/hooks'
import { api, seg } from '../api/client.js'
import type { TopicDetail } from '../api/types.js'
import { Dialog, DialogActions } from '../components/dialog.js'
import { useAction } from '../use-api.js'

export function AlterConfigDialog(props: { topic: TopicDetail; onClose: () => void; onDone: () => void }) {
  const [name, setName] = useState('')
  const [value, setValue] = useState('')
  const action = useAction()
  const current = props.topic.configs.find((c) => c.name === name.trim())
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault()
    const ok = await action.run(async () => {
      const configs = { [name.trim()]: value.trim() === '' ? null : value.trim() }
      await api(`/api/topics/${seg(props.topic.name)}/configs`, { method: 'PATCH', body: { configs } })
      return true
    })
    if (ok === true) props.onDone()
  }
  return (
    <Dialog title={`Edit config of ${props.topic.name}`} onClose={props.onClose}>
      <form class="form" onSubmit={(e) => void submit(e)}>
        <label>
          Config name
          <input
            name="configName"
            list="config-names"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            required
            autoFocus
          />
          <datalist id="config-names">
            {props.topic.configs.map((c) => (
              <option key={c.name} value={c.name} />
            ))}
          </datalist>
        </label>
        <label>
          Value <span class="muted">(empty removes the topic's override)</span>
          <input
            name="configValue"
            value={value}
            placeholder={current?.value ?? ''}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
        </label>
        {current !== undefined && (
          <p class="muted">
            Now <code>{current.value ?? 'null'}</code> from {current.source}.
          </p>
        )}
        <DialogActions onCancel={props.onClose} submit="Save" busy={action.busy} error={action.error} />
      </form>
    </Dialog>
  )
}

export function AddPartitionsDialog(props: { topic: TopicDetail; onClose: () => void; onDone: () => void }) {
  const [count, setCount] = useState(String(props.topic.partitions + 1))
  const action = useAction()
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault()
    const ok = await action.run(async () => {
      await api(`/api/topics/${seg(props.topic.name)}/partitions`, { method: 'POST', body: { count: Number(count) } })
      return true
    })
    if (ok === true) props.onDone()
  }
  return (
    <Dialog title={`Add partitions to ${props.topic.name}`} onClose={props.onClose}>
      <form class="form" onSubmit={(e) => void submit(e)}>
        <p>
          The topic has {props.topic.partitions} partitions. Keyed records may map to other partitions once it has more.
        </p>
        <label>
          New total
          <input
            name="count"
            type="number"
            min={props.topic.partitions + 1}
            value={count}
            onInput={(e) => setCount(e.currentTarget.value)}
            autoFocus
          />
        </label>
        <DialogActions onCancel={props.onClose} submit="Add" busy={action.busy} error={action.error} />
      </form>
    </Dialog>
  )
}

export function DeleteTopicDialog(props: { topic: string; onClose: () => void; onDone: () => void }) {
  const [typed, setTyped] = useState('')
  const action = useAction()
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault()
    const ok = await action.run(async () => {
      await api(`/api/topics/${seg(props.topic)}?confirm=${seg(typed)}`, { method: 'DELETE' })
      return true
    })
    if (ok === true) props.onDone()
  }
  return (
    <Dialog title={`Delete ${props.topic}`} onClose={props.onClose}>
      <form class="form" onSubmit={(e) => void submit(e)}>
        <p>
          This deletes the topic and every record in it. Type <code>{props.topic}</code> to confirm.
        </p>
        <label>
          Topic name
          <input name="confirm" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} autoFocus />
        </label>
        <DialogActions
          onCancel={props.onClose}
          submit="Delete topic"
          busy={action.busy}
          error={action.error}
          danger
          disabled={typed !== props.topic}
        />
      </form>
    </Dialog>
  )
}
