/**
 * Topic detail (/topics/:name): per partition leader, replicas, ISR (replicas missing from it
 * in red), log start and end, records and size; the topic's configs with their source; and the
 * actions (produce, alter configs, add partitions, delete) unless the console is read-only.
 */
import { useState } from 'preact/hooks'
import { seg } from '../api/client.js'
import type { PartitionDetail, TopicConfig, TopicDetail } from '../api/types.js'
import { type Column, DataTable } from '../components/data-table.js'
import { Stat, zeroIsGood } from '../components/stat.js'
import { Loaded } from '../components/states.js'
import { fmtBytes, fmtInt } from '../format.js'
import { href, navigate } from '../router.js'
import { useSession } from '../session.js'
import { useApi } from '../use-api.js'
import { ProduceDialog } from './produce-dialog.js'
import { AddPartitionsDialog, AlterConfigDialog, DeleteTopicDialog } from './topic-dialogs.js'

function replicaList(p: PartitionDetail) {
  return (
    <span class="mono">
      {p.replicas.map((r, i) => (
        <span key={r} class={p.isr.includes(r) ? '' : 'bad'} title={p.isr.includes(r) ? 'in sync' : 'not in sync'}>
          {i > 0 ? ', ' : ''}
          {r}
        </span>
      ))}
    </span>
  )
}

const partitionColumns: Column<PartitionDetail>[] = [
  { title: 'Partition', num: true, render: (p) => p.partition },
  {
    title: 'Leader',
    num: true,
    render: (p) => (p.leader === null ? <span class="badge bad">offline</span> : p.leader),
  },
  { title: 'Epoch', num: true, render: (p) => p.leaderEpoch },
  { title: 'Replicas', render: replicaList },
  {
    title: 'ISR',
    render: (p) => <span class={`mono ${p.isr.length < p.replicas.length ? 'bad' : ''}`}>{p.isr.join(', ')}</span>,
  },
  { title: 'Log start', num: true, render: (p) => fmtInt(p.logStart) },
  { title: 'Log end', num: true, render: (p) => fmtInt(p.logEnd) },
  { title: 'Records', num: true, render: (p) => fmtInt(p.records) },
  { title: 'Size', num: true, render: (p) => fmtBytes(p.sizeBytes) },
]

const configColumns: Column<TopicConfig>[] = [
  { title: 'Name', render: (c) => <code>{c.name}</code> },
  {
    title: 'Value',
    render: (c) => (c.value === null ? <span class="muted">null</span> : <span class="mono">{c.value}</span>),
  },
  {
    title: 'Source',
    render: (c) => <span class={`badge ${/topic/i.test(c.source) ? 'warn' : 'neutral'}`}>{c.source}</span>,
  },
]

type DialogKind = 'produce' | 'config' | 'partitions' | 'delete' | null

export function TopicView(props: { name: string }) {
  const session = useSession()
  const state = useApi<TopicDetail>(`/api/topics/${seg(props.name)}`)
  const [dialog, setDialog] = useState<DialogKind>(null)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const close = (): void => setDialog(null)
  return (
    <section>
      <div class="crumbs">
        <a href="/topics">Topics</a> /
      </div>
      <div class="title-row">
        <h1>{props.name}</h1>
        <a href={href.messages(props.name)}>Browse messages</a>
        {!session.readOnly && (
          <>
            <button type="button" class="primary" onClick={() => setDialog('produce')}>
              Produce
            </button>
            <button type="button" onClick={() => setDialog('config')}>
              Edit config
            </button>
            <button type="button" onClick={() => setDialog('partitions')}>
              Add partitions
            </button>
            <button type="button" class="danger" onClick={() => setDialog('delete')}>
              Delete
            </button>
          </>
        )}
      </div>
      {notice !== undefined && (
        <div class="success" role="status">
          {notice}
        </div>
      )}
      <Loaded state={state} what={`topic ${props.name}`}>
        {(t) => (
          <>
            <div class="stats">
              <Stat label="Partitions">{fmtInt(t.partitions)}</Stat>
              <Stat label="Replication factor">{fmtInt(t.replicationFactor)}</Stat>
              <Stat label="Records">{fmtInt(t.records)}</Stat>
              <Stat label="Size">{fmtBytes(t.sizeBytes)}</Stat>
              <Stat label="Under-replicated" tone={zeroIsGood(t.underReplicatedPartitions)}>
                {fmtInt(t.underReplicatedPartitions)}
              </Stat>
            </div>
            <h2>Partitions</h2>
            <DataTable
              label="partitions"
              columns={partitionColumns}
              rows={t.partitionDetails}
              rowKey={(p) => String(p.partition)}
            />
            <h2>Configs</h2>
            <DataTable
              label="configs"
              columns={configColumns}
              rows={t.configs}
              rowKey={(c) => c.name}
              empty="No configs reported (every value is the broker default)."
            />
            {dialog === 'produce' && (
              <ProduceDialog
                topic={t.name}
                partitions={t.partitions}
                onClose={close}
                onProduced={(r) => {
                  setNotice(`Produced to partition ${r.partition} at offset ${fmtInt(r.offset)}.`)
                  state.reload()
                }}
              />
            )}
            {dialog === 'config' && (
              <AlterConfigDialog
                topic={t}
                onClose={close}
                onDone={() => {
                  close()
                  setNotice('Config changed.')
                  state.reload()
                }}
              />
            )}
            {dialog === 'partitions' && (
              <AddPartitionsDialog
                topic={t}
                onClose={close}
                onDone={() => {
                  close()
                  setNotice('Partitions added.')
                  state.reload()
                }}
              />
            )}
            {dialog === 'delete' && (
              <DeleteTopicDialog topic={t.name} onClose={close} onDone={() => navigate('/topics')} />
            )}
          </>
        )}
      </Loaded>
    </section>
  )
}
