/** Page controls for the server's `{items, total, page, pageSize}` lists. */
import { fmtInt } from '../format.js'

export function Pager(props: { page: number; pageSize: number; total: number; onPage: (page: number) => void }) {
  const pages = Math.max(1, Math.ceil(props.total / props.pageSize))
  const first = props.total === 0 ? 0 : (props.page - 1) * props.pageSize + 1
  const last = Math.min(props.total, props.page * props.pageSize)
  return (
    <nav class="pager" aria-label="pages">
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        ‹ Prev
      </button>
      <span>
        {fmtInt(first)}–{fmtInt(last)} of {fmtInt(props.total)} (page {props.page} of {pages})
      </span>
      <button type="button" disabled={props.page >= pages} onClick={() => props.onPage(props.page + 1)}>
        Next ›
      </button>
    </nav>
  )
}
