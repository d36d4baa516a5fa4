import { describe, expect, it } from 'vitest'
import { renderTable } from './table.js'

interface Row {
  topic: string
  partition: number
  leader: number | null
  replicas: number[]
}

const columns = [
  { header: 'TOPIC', value: (r: Row) => r.topic },
  { header: 'PARTITION', value: (r: Row) => r.partition },
  { header: 'LEADER', value: (r: Row) => r.leader },
  { header: 'REPLICAS', value: (r: Row) => r.replicas.join(',') },
]

describe('renderTable', () => {
  it('aligns columns to the widest cell with a header row', () => {
    const out = renderTable(columns, [
      { topic: 'orders', partition: 0, leader: 1, replicas: [1, 2, 3] },
      { topic: 'orders-long-name', partition: 10, leader: 2, replicas: [2] },
    ])
    expect(out).toBe(
      [
        'TOPIC             PARTITION  LEADER  REPLICAS',
        'orders                    0       1  1,2,3',
        'orders-long-name         10       2  2',
        '',
      ].join('\n'),
    )
  })

  it('prints only the header for no rows and a dash for missing values', () => {
    expect(renderTable(columns, [])).toBe('TOPIC  PARTITION  LEADER  REPLICAS\n')
    const out = renderTable(columns, [{ topic: 't', partition: 0, leader: null, replicas: [] }])
    expect(out.split('\n')[1]).toBe('t              0  -')
  })

  it('renders bigints right-aligned and honours an explicit alignment', () => {
    const out = renderTable<{ o: bigint; n: number }>(
      [
        { header: 'OFFSET', value: (r) => r.o },
        { header: 'N', value: (r) => r.n, align: 'left' },
      ],
      [
        { o: 12345678901234n, n: 1 },
        { o: 5n, n: 22 },
      ],
    )
    expect(out).toBe('        OFFSET  N\n12345678901234  1\n             5  22\n')
  })
})
