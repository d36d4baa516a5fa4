/**
 * The one table of the console: columns declare their alignment, so numbers are right-aligned
 * with tabular digits and text is left-aligned, the header stays put while the body scrolls,
 * and an empty list says so instead of showing nothing.
 */
import type { ComponentChildren } from 'preact'

export interface Column<T> {
  readonly title: string
  readonly num?: boolean
  readonly render: (row: T) => ComponentChildren
  readonly width?: string
}

export function DataTable<T>(props: {
  columns: readonly Column<T>[]
  rows: readonly T[]
  rowKey: (row: T) => string
  empty?: ComponentChildren
  label: string
  rowClass?: (row: T) => string | undefined
}) {
  return (
    <div class="table-wrap">
      <table aria-label={props.label}>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th
                key={c.title}
                class={c.num === true ? 'num' : undefined}
                style={c.width ? { width: c.width } : undefined}
              >
                {c.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.length === 0 ? (
            <tr>
              <td class="empty" colSpan={props.columns.length}>
                {props.empty ?? 'Nothing here.'}
              </td>
            </tr>
          ) : (
            props.rows.map((r) => (
              <tr key={props.rowKey(r)} class={props.rowClass?.(r)}>
                {props.columns.map((c) => (
                  <td key={c.title} class={c.num === true ? 'num' : undefined}>
                    {c.render(r)}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  )
}
