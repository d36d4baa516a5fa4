/**
 * A server-paginated list: the page's rows in a DataTable and the pager under it, which moves
 * ?page= in the URL (so the back button and a reload keep the page).
 */
import type { ComponentChildren } from 'preact'
import type { Page } from '../api/types.js'
import { setSearch } from '../router.js'
import type { ApiState } from '../use-api.js'
import { type Column, DataTable } from './data-table.js'
import { Pager } from './pager.js'
import { Loaded } from './states.js'

export function PagedTable<T>(props: {
  state: ApiState<Page<T>>
  what: string
  label: string
  columns: readonly Column<T>[]
  rowKey: (row: T) => string
  empty: ComponentChildren
}) {
  return (
    <Loaded state={props.state} what={props.what}>
      {(p) => (
        <>
          <DataTable
            label={props.label}
            columns={props.columns}
            rows={p.items}
            rowKey={props.rowKey}
            empty={props.empty}
          />
          <Pager page={p.page} pageSize={p.pageSize} total={p.total} onPage={(n) => setSearch({ page: n })} />
        </>
      )}
    </Loaded>
  )
}
