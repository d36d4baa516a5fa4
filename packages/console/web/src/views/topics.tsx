/**
 * Topics (/topics): the server's paginated, searchable list (?search=, ?page=, ?internal=true),
 * with partitions, replication factor, size, record count and health per topic, and "Create
 * topic" unless the console is read-only.
 */
import { useState } from 'preact/hooks'
import { query } from '../api/client.js'
import type { Page, TopicRow } from '../api/types.js'
import type { Column } from '../components/data-table.js'
import { PagedTable } from '../components/paged-table.js'
import { SearchBox } from '../components/search-box.js'
import { fmtBytes, fmtInt } from '../format.js'
import { href, navigate, setSearch, useLocation } from '../router.js'
import { useSession } from '../session.js'
import { useApi } from '../use-api.js'
import { CreateTopicDialog } from './create-topic-dialog.js'

const columns: Column<TopicRow>[] = [
  {
    title: 'Name',
    render: (t) => (
      <>
        <a href={href.topic(t.name)}>{t.name}</a>
        {t.internal && <span class="badge neutral">internal</span>}
      </>
    ),
  },
  { title: 'Partitions', num: true, render: (t) => fmtInt(t.partitions) },
  { title: 'RF', num: true, render: (t) => fmtInt(t.replicationFactor) },
  { title: 'Size', num: true, render: (t) => fmtBytes(t.sizeBytes) },
  { title: 'Records', num: true, render: (t) => fmtInt(t.records) },
  {
    title: 'Under-replicated',
    num: true,
    render: (t) => (
      <span class={t.underReplicatedPartitions > 0 ? 'bad' : ''}>{fmtInt(t.underReplicatedPartitions)}</span>
    ),
  },
  {
    title: 'Offline',
    num: true,
    render: (t) => <span class={t.offlinePartitions > 0 ? 'bad' : ''}>{fmtInt(t.offlinePartitions)}</span>,
  },
  { title: '', render: (t) => <a href={href.messages(t.name)}>messages</a> },
]

export function TopicsView() {
  const { search } = useLocation()
  const session = useSession()
  const [creating, setCreating] = useState(false)
  const page = Number(search.get('page') ?? '1') || 1
  const internal = search.get('internal') === 'true'
  const text = search.get('search') ?? ''
  const list = useApi<Page<TopicRow>>(`/api/topics${query({ page, pageSize: 50, search: text, internal })}`)
  return (
    <section>
      <div class="title-row">
        <h1>Topics</h1>
        {!session.readOnly && (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            Create topic
          </button>
        )}
      </div>
      <div class="toolbar">
        <SearchBox value={text} placeholder="Search topics" label="search topics" />
        <label class="check">
          <input
            type="checkbox"
            checked={internal}
            onChange={(e) => setSearch({ internal: e.currentTarget.checked ? 'true' : undefined, page: undefined })}
          />
          show internal
        </label>
        {list.loading && <span class="muted">loading…</span>}
      </div>
      <PagedTable
        state={list}
        what="topics"
        label="topics"
        columns={columns}
        rowKey={(t) => t.name}
        empty={text === '' ? 'No topics yet.' : `No topic matches “${text}”.`}
      />
      {creating && (
        <CreateTopicDialog
          onClose={() => setCreating(false)}
          onCreated={(name) => {
            setCreating(false)
            navigate(href.topic(name))
          }}
        />
      )}
    </section>
  )
}
