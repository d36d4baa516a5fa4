/**
 * The stream–table join (inner and left): each stream record looks its key up in the table's
 * store as the table is at that moment (the table's later updates never change a result already
 * emitted, and a table update alone emits nothing). The result has the stream record's key,
 * timestamp and headers.
 *
 * - A stream record without a value is dropped and counted (it has nothing to join).
 * - No key, or no row for the key: an inner join drops the record (a record without a key is
 *   also counted); a left join emits it with a null table value (Kafka's KIP-962 for the key).
 *
 * The table side is fed by tableStoreWriter (table-store-writer.ts), or by whatever already
 * materializes the table into the store named here (a KTable's own store).
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../api/processor.js'
import type { StreamRecord } from '../api/record.js'
import type { KeyValueStore } from '../state/store-types.js'
import { countInvalid } from './join-metrics.js'
import type { NullableValueJoiner } from './join-types.js'

export interface StreamTableJoinOptions<K, V, VT, VR> {
  readonly kind: 'inner' | 'left'
  /** The table's key-value store (its user-given name). */
  readonly tableStore: string
  readonly joiner: NullableValueJoiner<K, V, VT, VR>
}

export function streamTableJoin<K, V, VT, VR>(
  options: StreamTableJoinOptions<K, V, VT, VR>,
): ProcessorSupplier<K, V, K, VR> {
  return () => new StreamTableJoinProcessor(options)
}

class StreamTableJoinProcessor<K, V, VT, VR> implements Processor<K, V, K, VR> {
  private context!: ProcessorContext<K, VR>
  private table!: KeyValueStore<K, VT>

  constructor(private readonly options: StreamTableJoinOptions<K, V, VT, VR>) {}

  init(context: ProcessorContext<K, VR>): void {
    this.context = context
    this.table = context.getStateStore(this.options.tableStore)
  }

  process(record: StreamRecord<K, V>): void {
    const { key, value } = record
    if (value === null) {
      countInvalid(this.context)
      return
    }
    const row = key === null ? undefined : this.table.get(key)
    if (row === undefined) {
      if (this.options.kind === 'inner') {
        if (key === null) countInvalid(this.context)
        return
      }
      this.context.forward({ ...record, value: this.options.joiner(value, null, key) })
      return
    }
    this.context.forward({ ...record, value: this.options.joiner(value, row, key) })
  }
}
