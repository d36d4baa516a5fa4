/**
 * The table side of a stream–table join when nothing else materializes the table: it writes
 * each changelog record of the table into the table's store (a value puts, a tombstone deletes)
 * and forwards nothing, since a stream–table join emits only for stream records. A record
 * without a key cannot be a row and is dropped and counted.
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../api/processor.js'
import type { StreamRecord } from '../api/record.js'
import type { KeyValueStore } from '../state/store-types.js'
import { countInvalid } from './join-metrics.js'

export function tableStoreWriter<K, V>(tableStore: string): ProcessorSupplier<K, V> {
  return () => new TableStoreWriter<K, V>(tableStore)
}

class TableStoreWriter<K, V> implements Processor<K, V> {
  private context!: ProcessorContext<never, never>
  private store!: KeyValueStore<K, V>

  constructor(private readonly tableStore: string) {}

  init(context: ProcessorContext<never, never>): void {
    this.context = context
    this.store = context.getStateStore(this.tableStore)
  }

  process(record: StreamRecord<K, V>): void {
    if (record.key === null) {
      countInvalid(this.context)
      return
    }
    if (record.value === null) this.store.delete(record.key)
    else this.store.put(record.key, record.value)
  }
}
