/**
 * Produce one record: key, value, headers (key=value lines) and an optional partition (empty
 * lets the partitioner choose by key). The dialog stays open after a send, so several records
 * can be written in a row; each result is shown.
 */
import { useState } from 'preact/hooks'
import { api, seg } from '../api/client.js'
import type { Produced } from '../api/types.js'
import { parseKeyValueLines } from '../components/config-lines.js'
import { Dialog, DialogActions } from '../components/dialog.js'
import { PartitionSelect } from '../components/partition-select.js'
import { fmtInt } from '../format.js'
import { useAction } from '../use-api.js'

export function ProduceDialog(props: {
  topic: string
  partitions: number
  onClose: () => void
  onProduced: (r: Produced) => void
}) {
  const [key, setKey] = useState('')
  const [value, setValue] = useState('')
  const [headers, setHeaders] = useState('')
  const [partition, setPartition] = useState('')
  const [last, setLast] = useState<Produced | undefined>(undefined)
  const action = useAction()
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault()
    const r = await action.run(async () => {
      const body = {
        key: key === '' ? null : key,
        value,
        headers: parseKeyValueLines(headers, 'headers'),
        ...(partition === '' ? {} : { partition: Number(partition) }),
      }
      return await api<Produced>(`/api/topics/${seg(props.topic)}/messages`, { method: 'POST', body })
    })
    if (r !== undefined) {
      setLast(r)
      props.onProduced(r)
    }
  }
  return (
    <Dialog title={`Produce to ${props.topic}`} onClose={props.onClose}>
      <form class="form" onSubmit={(e) => void submit(e)}>
        <div class="row">
          <label>
            Key <span class="muted">(empty: no key)</span>
            <input name="key" value={key} onInput={(e) => setKey(e.currentTarget.value)} autoFocus />
          </label>
          <PartitionSelect partitions={props.partitions} value={partition} onChange={setPartition} anyLabel="by key" />
        </div>
        <label>
          Value <span class="muted">(sent as UTF-8 text; JSON is kept as written)</span>
          <textarea name="value" rows={6} value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        </label>
        <label>
          Headers <span class="muted">(one key=value per line)</span>
          <textarea name="headers" rows={2} value={headers} onInput={(e) => setHeaders(e.currentTarget.value)} />
        </label>
        {last !== undefined && (
          <div class="success" role="status" data-testid="produced">
            Written to partition {last.partition} at offset {fmtInt(last.offset)}.
          </div>
        )}
        <DialogActions
          onCancel={props.onClose}
          cancel="Close"
          submit={action.busy ? 'Sending…' : 'Send'}
          busy={action.busy}
          error={action.error}
        />
      </form>
    </Dialog>
  )
}
