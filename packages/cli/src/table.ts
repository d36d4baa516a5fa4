/**
 * A small aligned-column table renderer for the CLI's human output: a header row, then one row
 * per item, columns padded to their widest cell and separated by two spaces. Numbers (and
 * bigints) are right-aligned so offsets line up; everything else is left-aligned. No borders, so
 * the output stays friendly to grep, cut and awk.
 */

export type Cell = string | number | bigint | boolean | null | undefined

export interface Column<Row> {
  readonly header: string
  readonly value: (row: Row) => Cell
  /** Default: 'right' for numbers and bigints, 'left' for everything else. */
  readonly align?: 'left' | 'right'
}

export function cellText(cell: Cell): string {
  if (cell === null || cell === undefined) return '-'
  return String(cell)
}

function isNumeric(cell: Cell): boolean {
  return typeof cell === 'number' || typeof cell === 'bigint'
}

export function renderTable<Row>(columns: ReadonlyArray<Column<Row>>, rows: readonly Row[]): string {
  const cells = rows.map((row) => columns.map((c) => c.value(row)))
  const texts = cells.map((r) => r.map(cellText))
  const widths = columns.map((c, i) => texts.reduce((w, r) => Math.max(w, r[i]!.length), c.header.length))
  const aligns = columns.map(
    (c, i) => c.align ?? (cells.length > 0 && cells.every((r) => isNumeric(r[i])) ? 'right' : 'left'),
  )
  const line = (parts: readonly string[]): string =>
    parts
      .map((p, i) => {
        const last = i === parts.length - 1
        if (aligns[i] === 'right') return p.padStart(widths[i]!)
        return last ? p : p.padEnd(widths[i]!)
      })
      .join('  ')
      .trimEnd()
  return `${[line(columns.map((c) => c.header)), ...texts.map(line)].join('\n')}\n`
}
