/**
 * Reset a group's offsets the way `sluice groups reset-offsets` does: choose topic, partitions
 * and target, see the server's dry-run plan (current → target per partition), then execute that
 * same request with execute: true. Changing the form drops the plan, so what runs is always what
 * was shown. The server refuses while the group has members (NON_EMPTY_GROUP), shown here. A
 * read-only console offers the dry run alone.
 */
import { useState } from 'preact/hooks'
import { api, seg } from '../api/client.js'
import type { GroupDetail, ResetPlan } from '../api/types.js'
import { type Column, DataTable } from '../components/data-table.js'
import { Dialog } from '../components/dialog.js'
import { ErrorBox } from '../components/states.js'
import { fmtInt } from '../format.js'
import { useSession } from '../session.js'
import { useAction } from '../use-api.js'

type Target = 'earliest' | 'latest' | 'offset' | 'timestamp' | 'shiftBy'

type PlanRow = ResetPlan['partitions'][number]
const planColumns: Column<PlanRow>[] = [
  { title: 'Topic', render: (r) => r.topic },
  { title: 'Partition', num: true, render: (r) => r.partition },
  { title: 'Current', num: true, render: (r) => fmtInt(r.current) },
  { title: 'Target', num: true, render: (r) => <b>{fmtInt(r.target)}</b> },
]

export function ResetOffsetsDialog(props: { group: GroupDetail; onClose: () => void; onDone: () => void }) {
  const topics = [...new Set(props.group.offsets.map((o) => o.topic))].sort()
  const [topic, setTopic] = useState(topics[0] ?? '')
  const [target, setTarget] = useState<Target>('earliest')
  const [amount, setAmount] = useState('0')
  const [partitions, setPartitions] = useState('')
  const [plan, setPlan] = useState<ResetPlan | undefined>(undefined)
  const action = useAction()
  const session = useSession()
  const edit =
    <T,>(f: (v: T) => void) =>
    (v: T) => {
      f(v)
      setPlan(undefined)
    }

  const body = (execute: boolean): unknown => {
    const to =
      target === 'earliest' || target === 'latest'
        ? target
        : target === 'timestamp'
          ? { timestamp: new Date(amount).getTime() }
          : { [target]: amount.trim() }
    const parts = partitions
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '')
      .map(Number)
    return { topic: topic.trim(), to, ...(parts.length > 0 ? { partitions: parts } : {}), execute }
  }
  const send = async (execute: boolean): Promise<void> => {
    const r = await action.run(
      async () =>
        await api<ResetPlan>(`/api/groups/${seg(props.group.groupId)}/reset-offsets`, {
          method: 'POST',
          body: body(execute),
        }),
    )
    if (r === undefined) return
    if (execute) props.onDone()
    else setPlan(r)
  }

  return (
    <Dialog title={`Reset offsets of ${props.group.groupId}`} onClose={props.onClose}>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault()
          void send(false)
        }}
      >
        {props.group.members.length > 0 && (
          <div class="notice">
            The group has {props.group.members.length} active member(s); stop its consumers first or the server will
            refuse.
          </div>
        )}
        <div class="row">
          <label>
            Topic
            <input
              name="topic"
              list="group-topics"
              value={topic}
              onInput={(e) => edit(setTopic)(e.currentTarget.value)}
              required
            />
            <datalist id="group-topics">
              {topics.map((t) => (
                <option key={t} value={t} />
              ))}
            </datalist>
          </label>
          <label>
            Partitions <span class="muted">(e.g. 0,2; empty: all)</span>
            <input name="partitions" value={partitions} onInput={(e) => edit(setPartitions)(e.currentTarget.value)} />
          </label>
        </div>
        <div class="row">
          <label>
            Reset to
            <select name="target" value={target} onChange={(e) => edit(setTarget)(e.currentTarget.value as Target)}>
              <option value="earliest">earliest</option>
              <option value="latest">latest</option>
              <option value="offset">offset</option>
              <option value="timestamp">time</option>
              <option value="shiftBy">shift by</option>
            </select>
          </label>
          {target === 'timestamp' && (
            <label>
              Time
              <input
                name="amount"
                type="datetime-local"
                step="1"
                value={amount}
                onInput={(e) => edit(setAmount)(e.currentTarget.value)}
              />
            </label>
          )}
          {(target === 'offset' || target === 'shiftBy') && (
            <label>
              {target === 'shiftBy' ? 'Shift (negative goes back)' : 'Offset'}
              <input name="amount" value={amount} onInput={(e) => edit(setAmount)(e.currentTarget.value)} />
            </label>
          )}
        </div>
        {action.error !== undefined && <ErrorBox error={action.error} />}
        {plan !== undefined && (
          <>
            <h2>Plan (dry run)</h2>
            <DataTable
              label="reset plan"
              columns={planColumns}
              rows={plan.partitions}
              rowKey={(r) => `${r.topic}:${r.partition}`}
              empty="Nothing to reset."
            />
          </>
        )}
        <div class="actions">
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" disabled={action.busy}>
            Dry run
          </button>
          {!session.readOnly && (
            <button
              type="button"
              class="danger"
              disabled={plan === undefined || plan.partitions.length === 0 || action.busy}
              onClick={() => void send(true)}
            >
              Execute
            </button>
          )}
        </div>
      </form>
    </Dialog>
  )
}
