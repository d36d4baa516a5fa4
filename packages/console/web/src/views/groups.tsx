/**
 * Consumer groups (/groups): the server's paginated, searchable list with state, members,
 * topics and total lag (computed on the server for the page's groups only), refreshed every
 * few seconds.
 */
import { query } from '../api/client.js'
import type { GroupRow, Page } from '../api/types.js'
import type { Column } from '../components/data-table.js'
import { PagedTable } from '../components/paged-table.js'
import { SearchBox } from '../components/search-box.js'
import { StateBadge } from '../components/states.js'
import { fmtInt } from '../format.js'
import { href, useLocation } from '../router.js'
import { useApi } from '../use-api.js'

const columns: Column<GroupRow>[] = [
  { title: 'Group', render: (g) => <a href={href.group(g.groupId)}>{g.groupId}</a> },
  { title: 'State', render: (g) => <StateBadge state={g.state} /> },
  { title: 'Members', num: true, render: (g) => fmtInt(g.members) },
  {
    title: 'Topics',
    render: (g) =>
      g.topics.length === 0 ? (
        <span class="muted">—</span>
      ) : (
        g.topics.map((t, i) => (
          <span key={t}>
            {i > 0 && ', '}
            <a href={href.topic(t)}>{t}</a>
          </span>
        ))
      ),
  },
  { title: 'Total lag', num: true, render: (g) => fmtInt(g.totalLag) },
]

export function GroupsView() {
  const { search } = useLocation()
  const page = Number(search.get('page') ?? '1') || 1
  const text = search.get('search') ?? ''
  const list = useApi<Page<GroupRow>>(`/api/groups${query({ page, pageSize: 50, search: text })}`, { pollMs: 5000 })
  return (
    <section>
      <h1>Consumer groups</h1>
      <div class="toolbar">
        <SearchBox value={text} placeholder="Search groups" label="search groups" />
      </div>
      <PagedTable
        state={list}
        what="consumer groups"
        label="consumer groups"
        columns={columns}
        rowKey={(g) => g.groupId}
        empty={text === '' ? 'No consumer groups.' : `No group matches “${text}”.`}
      />
    </section>
  )
}
