/**
 * count, reduce and aggregate of a grouped stream: one processor over a key-value store named by
 * the user. A record with a null key or a null value cannot be aggregated and is skipped and
 * counted (Kafka's dropped-records). The new aggregate goes downstream as a table update.
 */
import type { ProcessorSupplier } from '../../api/processor.js'
import type { KeyValueStore } from '../../state/store-types.js'
import type { InternalProcessorContext } from '../../topology/task-node.js'
import { type TableEmit, tableEmitter } from './table-emitter.js'

/** `initial` is the aggregate before a key's first record; `add` folds one record into it. */
export interface Aggregation<K, V, A> {
  initial(): A
  add(key: K, value: V, aggregate: A): A
}

export function aggregateSupplier<K, V, A>(
  storeName: string,
  aggregation: Aggregation<K, V, A>,
): ProcessorSupplier<unknown, unknown, unknown, unknown> {
  return () => {
    let context: InternalProcessorContext<unknown, unknown>
    let store: KeyValueStore<K, A>
    let emit: TableEmit
    return {
      init(c) {
        context = c as InternalProcessorContext<unknown, unknown>
        store = c.getStateStore<KeyValueStore<K, A>>(storeName)
        emit = tableEmitter(store as KeyValueStore<unknown, unknown>, c)
      },
      process(record) {
        if (record.key === null || record.value === null) {
          context.metrics.skipped++
          return
        }
        const key = record.key as K
        const old = store.get(key)
        const next = aggregation.add(key, record.value as V, old === undefined ? aggregation.initial() : old)
        store.put(key, next)
        emit(record, key, next)
      },
    }
  }
}
