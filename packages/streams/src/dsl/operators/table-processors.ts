/**
 * The processors of a KTable: its source (builder.table: every record is an upsert, a null value
 * deletes the key) and filter / mapValues over its updates. A transformed table is materialized
 * when the user names a store for it; otherwise its updates pass downstream as they come. A
 * filtered-out update becomes a tombstone, so downstream forgets a key that stopped matching.
 */
import type { ProcessorContext, ProcessorSupplier } from '../../api/processor.js'
import type { StreamRecord } from '../../api/record.js'
import type { KeyValueStore } from '../../state/store-types.js'
import type { InternalProcessorContext } from '../../topology/task-node.js'
import { type TableEmit, tableEmitter } from './table-emitter.js'

type AnySupplier = ProcessorSupplier<unknown, unknown, unknown, unknown>

/** Maps one update to the table's new value (null: the key is deleted). */
export type TableUpdate = (record: StreamRecord<unknown, unknown>) => unknown | null

export function tableUpdateSupplier(update: TableUpdate, storeName: string | undefined): AnySupplier {
  return () => {
    let context: ProcessorContext<unknown, unknown>
    let store: KeyValueStore<unknown, unknown> | undefined
    let emit: TableEmit
    return {
      init(c) {
        context = c
        if (storeName === undefined) return
        store = c.getStateStore<KeyValueStore<unknown, unknown>>(storeName)
        emit = tableEmitter(store, c)
      },
      process(record) {
        if (record.key === null) {
          // A table row needs a key: Kafka drops these too.
          ;(context as InternalProcessorContext<unknown, unknown>).metrics.skipped++
          return
        }
        const value = update(record)
        if (store === undefined) {
          context.forward({ ...record, value })
          return
        }
        if (value === null) store.delete(record.key)
        else store.put(record.key, value)
        emit(record, record.key, value)
      },
    }
  }
}

/** builder.table's processor: the record's value is the row (null deletes it). */
export const upsert: TableUpdate = (r) => r.value

export function filterUpdate(predicate: (key: unknown, value: unknown) => boolean, keepWhen: boolean): TableUpdate {
  return (r) => (r.value === null || predicate(r.key, r.value) !== keepWhen ? null : r.value)
}

export function mapValuesUpdate(mapper: (value: unknown, key: unknown) => unknown): TableUpdate {
  return (r) => (r.value === null ? null : mapper(r.value, r.key))
}
