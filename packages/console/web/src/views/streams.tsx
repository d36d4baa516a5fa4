/**
 * Streams applications (/streams): the applications the server finds among the consumer groups
 * (paginated and searchable on the server), with state, instances, input topics and total lag.
 */
import { query } from '../api/client.js'
import type { Page, StreamsAppRow } from '../api/types.js'
import type { Column } from '../components/data-table.js'
import { PagedTable } from '../components/paged-table.js'
import { SearchBox } from '../components/search-box.js'
import { StateBadge } from '../components/states.js'
import { fmtInt } from '../format.js'
import { href, useLocation } from '../router.js'
import { useApi } from '../use-api.js'

const columns: Column<StreamsAppRow>[] = [
  { title: 'Application', render: (a) => <a href={href.stream(a.applicationId)}>{a.applicationId}</a> },
  { title: 'State', render: (a) => <StateBadge state={a.state} /> },
  { title: 'Instances', num: true, render: (a) => fmtInt(a.instances) },
  {
    title: 'Input topics',
    render: (a) =>
      a.topics.map((t) => (
        <a key={t} href={href.topic(t)}>
          {t}{' '}
        </a>
      )),
  },
  { title: 'Total lag', num: true, render: (a) => fmtInt(a.totalLag) },
]

export function StreamsView() {
  const { search } = useLocation()
  const page = Number(search.get('page') ?? '1') || 1
  const text = search.get('search') ?? ''
  const list = useApi<Page<StreamsAppRow>>(`/api/streams${query({ page, pageSize: 50, search: text })}`, {
    pollMs: 5000,
  })
  return (
    <section>
      <h1>Streams applications</h1>
      <div class="toolbar">
        <SearchBox value={text} placeholder="Search applications" label="search streams applications" />
      </div>
      <PagedTable
        state={list}
        what="streams applications"
        label="streams applications"
        columns={columns}
        rowKey={(r) => r.applicationId}
        empty="No streams applications found (one shows up once its instances have joined the group)."
      />
    </section>
  )
}
