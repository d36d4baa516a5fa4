/**
 * Source offsets: the newest `sourceOffset` of each (connector, sourcePartition), kept in the
 * offsets topic under Kafka Connect's key `["<connector>", {<sourcePartition>}]` with the
 * offset as the JSON value (null: reset). Keys are compared in a canonical form (object keys
 * sorted), so the same partition written by another worker or tool lands on the same key.
 */
export type OffsetMap = Readonly<Record<string, unknown>>

export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`
  if (typeof v === 'object' && v !== null) {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`
  }
  if (typeof v === 'bigint') return v.toString()
  return JSON.stringify(v) ?? 'null'
}

export function offsetKey(connector: string, sourcePartition: OffsetMap): string {
  return canonicalJson([connector, sourcePartition])
}

export class OffsetState {
  /** canonical key -> { partition, offset } */
  private readonly offsets = new Map<string, { connector: string; partition: OffsetMap; offset: OffsetMap }>()

  apply(keyBytes: Buffer | null, valueBytes: Buffer | null): void {
    if (keyBytes === null) return
    let key: unknown
    try {
      key = JSON.parse(keyBytes.toString('utf8'))
    } catch {
      return
    }
    if (!Array.isArray(key) || key.length !== 2 || typeof key[0] !== 'string') return
    const [connector, partition] = key as [string, OffsetMap]
    const k = offsetKey(connector, partition)
    if (valueBytes === null) {
      this.offsets.delete(k)
      return
    }
    try {
      this.offsets.set(k, { connector, partition, offset: JSON.parse(valueBytes.toString('utf8')) as OffsetMap })
    } catch {
      // A value no worker wrote; ignored.
    }
  }

  get(connector: string, sourcePartition: OffsetMap): OffsetMap | undefined {
    return this.offsets.get(offsetKey(connector, sourcePartition))?.offset
  }

  /** Every stored offset of a connector (GET /connectors/{name}/offsets). */
  of(connector: string): Array<{ partition: OffsetMap; offset: OffsetMap }> {
    return [...this.offsets.values()]
      .filter((o) => o.connector === connector)
      .map(({ partition, offset }) => ({ partition, offset }))
  }
}
